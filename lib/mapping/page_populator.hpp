// A thread that populates the pages of a mapping ahead of the writer's stores: the page faults
// and the zero-filling of new pages run beside the writer instead of in its way.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

namespace mapout::detail {

class page_populator {
 public:
  // Null when no thread can be started.
  static std::unique_ptr<page_populator> start() noexcept;
  ~page_populator();
  page_populator(const page_populator&) = delete;
  page_populator& operator=(const page_populator&) = delete;

  // Pages from `begin` on are the next to populate; called while halted, after a new mapping.
  void restart(char* begin) noexcept;
  // Asks for the pages up to `target` and returns once those up to `needed` are populated,
  // populating pages further on itself while it waits. Returns how far the pages are populated,
  // or null once populating failed (platform::populate_for_writing).
  char* populate(char* needed, char* target) noexcept;
  // Waits until no page is being populated and asks for no more: before the mapping is unmapped
  // or the file cut.
  void halt() noexcept;

 private:
  page_populator() = default;
  void run() noexcept;
  // Claims the next chunk, populates it without the lock and takes note of it; false when there
  // is nothing left to claim.
  bool populate_chunk(std::unique_lock<std::mutex>& lock) noexcept;

  std::mutex mutex_;
  std::condition_variable asked_;     // target_ moved, or quit_
  std::condition_variable progress_;  // done_ moved, a chunk ended, or failed_
  // [done_, claimed_) is being populated, as the thread's chunk and, while the writer waits, the
  // writer's next one; [early_begin_, early_end_) is a later chunk that ended first.
  char* done_ = nullptr;
  char* claimed_ = nullptr;
  char* early_begin_ = nullptr;
  char* early_end_ = nullptr;
  char* target_ = nullptr;  // asked up to here
  int in_flight_ = 0;
  bool failed_ = false;
  bool quit_ = false;
  std::thread thread_;
};

}  // namespace mapout::detail
