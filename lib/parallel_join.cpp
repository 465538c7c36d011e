// The join of a parallel output: each part held in memory is handed to pwrite(2) at its offset,
// one stretch at a time, by whichever thread takes the stretch next.
#include "parallel_join.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <mutex>
#include <system_error>
#include <thread>

namespace mapout::detail {
namespace {

// Large enough that a thread's turn costs little beside its copy, small enough that two threads
// share a part of a few MiB.
constexpr std::uint64_t stretch_size = std::uint64_t{4} << 20;

struct stretch {
  const char* data;
  std::size_t size;
  std::uint64_t offset;
};

error_cause write_stretch(int to, const stretch& piece) noexcept {
  if (write_all(to, piece.data, piece.size, static_cast<off_t>(piece.offset)) == piece.size) {
    return {};
  }
  // pwrite(2) returns 0 for a regular file only where it cannot write more, as at a full disk.
  return errno != 0 ? errno_failure("write") : error_cause{ENOSPC, "write"};
}

// The stretches, taken in turn; the first failure stops every thread at its next turn.
class stretch_queue {
 public:
  explicit stretch_queue(std::vector<stretch> pieces) noexcept : pieces_(std::move(pieces)) {}

  void work(int to) noexcept {
    for (;;) {
      const std::size_t k = next_.fetch_add(1, std::memory_order_relaxed);
      if (k >= pieces_.size() || failed_.load(std::memory_order_relaxed)) return;
      if (error_cause why = write_stretch(to, pieces_[k])) return record(why);
    }
  }
  error_cause first_failure() const noexcept { return first_; }
  std::size_t size() const noexcept { return pieces_.size(); }

 private:
  void record(error_cause why) noexcept {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!first_) first_ = why;
    failed_.store(true, std::memory_order_relaxed);
  }

  std::vector<stretch> pieces_;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> failed_{false};
  std::mutex mutex_;
  error_cause first_;
};

}  // namespace

error_cause copy_into_place(int to, const std::vector<placed_copy>& copies,
                            unsigned threads) noexcept {
  try {
    std::vector<stretch> pieces;
    for (const placed_copy& copy : copies) {
      for (std::uint64_t at = 0; at < copy.size; at += stretch_size) {
        const std::uint64_t size = std::min(stretch_size, copy.size - at);
        pieces.push_back({copy.from + at, static_cast<std::size_t>(size), copy.offset + at});
      }
    }
    stretch_queue queue(std::move(pieces));
    const std::size_t workers = std::min<std::size_t>(std::max(threads, 1u), queue.size());
    const std::size_t helpers = workers > 0 ? workers - 1 : 0;
    std::vector<std::thread> started;
    try {
      for (std::size_t k = 0; k < helpers; ++k) started.emplace_back([&] { queue.work(to); });
    } catch (const std::system_error&) {
      // Fewer threads copy; the caller's own turn below still copies everything left.
    }
    queue.work(to);
    for (std::thread& helper : started) helper.join();
    return queue.first_failure();
  } catch (const std::bad_alloc&) {
    return {ENOMEM, "join"};
  }
}

}  // namespace mapout::detail
