// The populating thread: one populating call per chunk, so that a writer that catches up waits
// for at most one chunk, and a halt too.
#include "mapping/page_populator.hpp"

#include <algorithm>
#include <new>

#include "platform/platform.hpp"

namespace mapout::detail {
namespace {

constexpr std::size_t chunk = std::size_t{256} << 10;

}  // namespace

std::unique_ptr<page_populator> page_populator::start() noexcept {
  std::unique_ptr<page_populator> populator(new (std::nothrow) page_populator);
  if (!populator) return nullptr;
  try {
    populator->thread_ = std::thread([p = populator.get()] { p->run(); });
  } catch (...) {
    // std::system_error when the kernel refuses the thread, std::bad_alloc for its state.
    return nullptr;
  }
  return populator;
}

page_populator::~page_populator() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  asked_.notify_one();
  // Not joinable when the thread could not be started (RLIMIT_NPROC, no memory for a stack).
  if (thread_.joinable()) thread_.join();
}

void page_populator::restart(char* begin) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  done_ = claimed_ = target_ = begin;
  early_begin_ = early_end_ = nullptr;
}

char* page_populator::populate(char* needed, char* target) noexcept {
  std::unique_lock<std::mutex> lock(mutex_);
  if (target > target_) {
    target_ = target;
    asked_.notify_one();
  }
  while (!failed_ && done_ < needed) {
    if (!populate_chunk(lock)) progress_.wait(lock);
  }
  return failed_ ? nullptr : done_;
}

void page_populator::halt() noexcept {
  std::unique_lock<std::mutex> lock(mutex_);
  target_ = claimed_;
  progress_.wait(lock, [&] { return in_flight_ == 0; });
}

bool page_populator::populate_chunk(std::unique_lock<std::mutex>& lock) noexcept {
  // Two chunks at most: the thread's and the waiting writer's.
  if (failed_ || claimed_ >= target_ || early_end_) return false;
  char* const from = claimed_;
  char* const to = std::min(target_, from + chunk);
  claimed_ = to;
  ++in_flight_;
  lock.unlock();
  const bool populated = platform::populate_for_writing(from, static_cast<std::size_t>(to - from));
  lock.lock();
  --in_flight_;
  if (!populated) {
    failed_ = true;
  } else if (from == done_) {
    done_ = to == early_begin_ ? early_end_ : to;
    if (to == early_begin_) early_begin_ = early_end_ = nullptr;
  } else {
    early_begin_ = from;
    early_end_ = to;
  }
  progress_.notify_all();
  return true;
}

void page_populator::run() noexcept {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!quit_) {
    if (!populate_chunk(lock)) asked_.wait(lock);
  }
}

}  // namespace mapout::detail
