// The join of a parallel output: the way it copies, decided here, and each part held in memory
// going to its offset one stretch at a time, taken by whichever thread is free next: stored
// through a shared mapping of the stretch, or handed to pwrite(2) by the one thread that writes.
#include "parallel/parallel_join.hpp"

#include <sys/mman.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <system_error>
#include <thread>

#include "mapping/pages.hpp"
#include "mapping/sigbus_guard.hpp"
#include "platform/platform.hpp"

namespace mapout::detail {
namespace {

// Large enough that a thread's turn costs little beside its copy, small enough that two threads
// share a part of a few MiB.
constexpr std::uint64_t stretch_size = std::uint64_t{4} << 20;
// Each pwrite(2) stays below 2 MiB: a larger one has ext4 take 2 MiB folios for the page cache,
// which on a VM came from memory its host backs at first touch (docs/decisions.md).
constexpr std::size_t write_piece = std::size_t{1} << 20;

struct stretch {
  const char* data;
  std::size_t size;
  std::uint64_t offset;
};

error_cause write_stretch(int to, const stretch& piece) noexcept {
  for (std::size_t at = 0; at < piece.size; at += write_piece) {
    const std::size_t size = std::min(write_piece, piece.size - at);
    if (write_all(to, piece.data + at, size, static_cast<off_t>(piece.offset + at)) != size) {
      // pwrite(2) returns 0 for a regular file only where it cannot write more, as at a full
      // disk.
      return errno != 0 ? errno_failure("write") : error_cause{ENOSPC, "write"};
    }
  }
  return {};
}

// Stores the stretch through a mapping of its pages, populated first so that no store faults;
// false, with nothing stored, where the pages cannot be mapped or had: the stretch is then
// written. The guard turns a fault (the file cut by another process) into `why`.
bool map_stretch(int to, const stretch& piece, sigbus_guard& guard, error_cause& why) noexcept {
  const std::uint64_t base = page_floor(piece.offset);
  const auto lead = static_cast<std::size_t>(piece.offset - base);
  const std::size_t length = lead + piece.size;
  void* const map =
      sys().mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, to, static_cast<off_t>(base));
  if (map == MAP_FAILED) return false;
  const bool populated = platform::populate_for_writing(map, length);
  if (populated) {
    guard.cover(static_cast<char*>(map), length, base);
    std::memcpy(static_cast<char*>(map) + lead, piece.data, piece.size);
    guard.uncover();
    why = guard.failed();
  }
  if (sys().munmap(map, length) != 0 && !why) why = errno_failure("unmap");
  return populated;
}

// The stretches, taken in turn; the first failure stops every thread at its next turn.
class stretch_queue {
 public:
  stretch_queue(std::vector<stretch> pieces, std::uint64_t end, bool maps) noexcept
      : pieces_(std::move(pieces)), end_(end), maps_(maps) {}

  // `may_map`: this thread stores its stretches through a mapping where the queue maps, else
  // writes them.
  void work(int to, bool may_map) noexcept {
    sigbus_guard guard;
    guard.set_extent(end_);
    const bool maps = may_map && maps_ && !guard.arm(to, false);
    for (;;) {
      const std::size_t k = next_.fetch_add(1, std::memory_order_relaxed);
      if (k >= pieces_.size() || failed_.load(std::memory_order_relaxed)) return;
      error_cause why;
      const bool stored = maps && map_stretch(to, pieces_[k], guard, why);
      if (!stored && !why) why = write_stretch(to, pieces_[k]);
      if (why) return record(why);
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
  std::uint64_t end_;  // where the file ends once every copy is made
  bool maps_;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> failed_{false};
  std::mutex mutex_;
  error_cause first_;
};

// Makes the file reach `end`: true where the stretches may then be mapped. Where not, pwrite(2)
// finds the failure at its exact byte.
bool ready_for_mapping(int to, std::uint64_t end, join_copy how) noexcept {
  // With SIGBUS blocked, a fault kills the process; the threads started here inherit the mask.
  if (how == join_copy::write || sigbus_blocked()) return false;
  struct stat st;
  if (sys().fstat(to, &st) != 0) return false;
  return static_cast<std::uint64_t>(st.st_size) >= end ||
         retry_on_eintr(sys().ftruncate, to, static_cast<off_t>(end)) == 0;
}

}  // namespace

join_copy join_copy_for(int fd, const options& opts) noexcept {
  // A store through a mapping needs the guard: without it, a fault kills the process.
  if (opts.strategy == strategy::buffered || !opts.guard_faults) return join_copy::write;
  // Stores into a tmpfs mapping take no inode lock, so threads copy side by side; ext4 reads
  // (zeroes) each mapped page before the store (docs/decisions.md, "The join's way").
  return platform::file_system_of(fd) == platform::file_system_kind::in_memory ? join_copy::map
                                                                               : join_copy::write;
}

error_cause copy_into_place(int to, const std::vector<placed_copy>& copies, unsigned threads,
                            join_copy how) noexcept {
  try {
    std::vector<stretch> pieces;
    std::uint64_t end = 0;
    for (const placed_copy& copy : copies) {
      for (std::uint64_t at = 0; at < copy.size; at += stretch_size) {
        const std::uint64_t size = std::min(stretch_size, copy.size - at);
        pieces.push_back({copy.from + at, static_cast<std::size_t>(size), copy.offset + at});
      }
      end = std::max(end, copy.offset + copy.size);
    }
    if (pieces.empty()) return {};
    const bool maps = ready_for_mapping(to, end, how);
    stretch_queue queue(std::move(pieces), end, maps);
    // Buffered writes to one file take its inode lock in turn: a second writer only waits.
    const std::size_t workers =
        maps ? std::min<std::size_t>(std::max(threads, 1u), queue.size()) : 1;
    std::vector<std::thread> started;
    try {
      // The first helper writes while the others map: a write skips the zero-fill of a fault, and
      // its inode lock does not stop faults (docs/decisions.md, "The join on tmpfs: one thread
      // writes").
      for (std::size_t k = 1; k < workers; ++k) {
        started.emplace_back([&queue, to, k] { queue.work(to, k != 1); });
      }
    } catch (const std::system_error&) {
      // Fewer threads copy; the caller's own turn below still copies everything left.
    }
    queue.work(to, true);
    for (std::thread& helper : started) helper.join();
    return queue.first_failure();
  } catch (const std::bad_alloc&) {
    return {ENOMEM, "join"};
  }
}

}  // namespace mapout::detail
