// The handler of faults in mapped files (platform::catch_mapping_faults) and its registry. Why it
// is safe:
// - The registry is blocks of fixed entries linked by atomic pointers; blocks are never freed, so
//   the handler may read any entry at any time, in any thread. Every field is a lock-free atomic.
// - An entry's range changes under a sequence count (odd while it changes): the handler takes a
//   range only when it read the same even count before and after, so it never pairs the begin of
//   one mapping with the end of another.
// - The owner uncovers its range before munmap; a mapping made later at the same address can
//   therefore never be taken for the old file's.
// - Only the thread that stores into a mapping faults on it, so the handler that changes an
//   entry's extent or error runs in the owner's thread, between two of the owner's stores:
//   owner and handler never write one entry at the same time. A mapping armed for reading may
//   fault in several threads at once: their handlers store the same error and map zeroes over
//   the same pages, so which one wins does not matter.
// - Inside the handler: atomics, the system calls of sys() (fstat, the reservation, ftruncate,
//   mmap), and the platform's passing on (sigaction and raise). No allocation, no lock, errno
//   saved and restored.
#include "mapping/sigbus_guard.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <limits>
#include <new>

#include "mapping/extent.hpp"
#include "platform/platform.hpp"
#include "platform/sys.hpp"

namespace mapout::detail {

struct guard_entry {
  std::atomic<bool> claimed{false};
  std::atomic<unsigned> sequence{0};
  std::atomic<std::uintptr_t> begin{0};
  std::atomic<std::uintptr_t> end{0};
  std::atomic<std::uint64_t> offset{0};  // the file offset at begin
  std::atomic<int> fd{-1};
  std::atomic<bool> extend_on_fault{false};
  std::atomic<bool> reads{false};  // a read-only mapping: its faults are failed reads
  std::atomic<std::uint64_t> extent{0};
  std::atomic<int> error{0};
  std::atomic<const char*> operation{nullptr};
  std::atomic<std::uint64_t> failed_at{0};
  std::atomic<bool> past_the_end{false};
};

static_assert(std::atomic<std::uint64_t>::is_always_lock_free &&
                  std::atomic<std::uintptr_t>::is_always_lock_free &&
                  std::atomic<const char*>::is_always_lock_free &&
                  std::atomic<unsigned>::is_always_lock_free &&
                  std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free,
              "the SIGBUS handler reads the registry without locks");

namespace {

constexpr std::uint64_t nowhere = std::numeric_limits<std::uint64_t>::max();
constexpr char truncated_by_another_process[] = "store into a file truncated by another process";
constexpr char read_truncated_by_another_process[] =
    "read from a file truncated by another process";

struct block {
  static constexpr std::size_t size = 64;
  guard_entry entries[size];
  std::atomic<block*> next{nullptr};
};

block first_block;
std::uintptr_t page_bytes = 0;

guard_entry* claim() noexcept {
  for (block* current = &first_block;;) {
    for (guard_entry& entry : current->entries) {
      bool free = false;
      if (entry.claimed.compare_exchange_strong(free, true, std::memory_order_acquire)) {
        return &entry;
      }
    }
    block* next = current->next.load(std::memory_order_acquire);
    if (!next) {
      block* fresh = new (std::nothrow) block;
      if (!fresh) return nullptr;
      if (current->next.compare_exchange_strong(next, fresh, std::memory_order_acq_rel)) {
        next = fresh;
      } else {
        delete fresh;
      }
    }
    current = next;
  }
}

// A sequence lock written with release stores and read with acquire loads, no fences: a reader
// that sees any new field sees the odd count, and one that sees the new even count sees every
// new field.
void set_range(guard_entry& entry, std::uintptr_t begin, std::uintptr_t end,
               std::uint64_t offset) noexcept {
  const unsigned sequence = entry.sequence.load(std::memory_order_relaxed);
  entry.sequence.store(sequence + 1, std::memory_order_relaxed);
  entry.begin.store(begin, std::memory_order_release);
  entry.end.store(end, std::memory_order_release);
  entry.offset.store(offset, std::memory_order_release);
  entry.sequence.store(sequence + 2, std::memory_order_release);
}

// The entry whose range holds `address`, with the range's end and the address's file offset.
guard_entry* find(std::uintptr_t address, std::uintptr_t& range_end,
                  std::uint64_t& offset) noexcept {
  for (block* current = &first_block; current;
       current = current->next.load(std::memory_order_acquire)) {
    for (guard_entry& entry : current->entries) {
      const unsigned before = entry.sequence.load(std::memory_order_acquire);
      if (before & 1) continue;
      const std::uintptr_t begin = entry.begin.load(std::memory_order_acquire);
      const std::uintptr_t end = entry.end.load(std::memory_order_acquire);
      const std::uint64_t base = entry.offset.load(std::memory_order_acquire);
      if (entry.sequence.load(std::memory_order_relaxed) != before) continue;
      if (address >= begin && address < end) {
        range_end = end;
        offset = base + (address - begin);
        return &entry;
      }
    }
  }
  return nullptr;
}

struct outcome {
  enum { resumed, failed, not_ours } kind;
  error_cause why;
  bool past_the_end = false;  // an extension failed: nothing of the file was where the store went
};

// Makes the page at `page_offset` part of the file, or says why it cannot be.
outcome extend_for(guard_entry& entry, std::uint64_t page_offset) noexcept {
  const int fd = entry.fd.load(std::memory_order_relaxed);
  const std::uint64_t extent = entry.extent.load(std::memory_order_relaxed);
  struct stat st;
  if (sys().fstat(fd, &st) != 0) return {outcome::failed, errno_failure("fstat")};
  const bool reads = entry.reads.load(std::memory_order_relaxed);
  if (static_cast<std::uint64_t>(st.st_size) < extent) {
    return {outcome::failed,
            {EIO, reads ? read_truncated_by_another_process : truncated_by_another_process}};
  }
  // A page of a file that is still whole failed to read: an I/O error.
  if (reads) return {outcome::failed, {EIO, "read"}};
  // A page inside the file faults when the file system has no block for it: a hole on a full
  // disk, or a copy-on-write file system out of room.
  if (page_offset < extent) return {outcome::failed, {ENOSPC, "store"}};
  if (!entry.extend_on_fault.load(std::memory_order_relaxed)) return {outcome::not_ours, {}};
  // Whole pages only: the part of a page past the file's end takes stores without a fault, and
  // the kernel zeroes it when the file grows.
  const std::uint64_t minimal = page_offset + page_bytes;
  const std::uint64_t target = next_extent(extent, minimal);
  const extension_result result =
      extend_file(fd, {extent, page_offset, minimal,
                       target + (page_bytes - target % page_bytes) % page_bytes, true});
  entry.extent.store(result.extent, std::memory_order_release);
  if (result.why) return {outcome::failed, result.why, true};
  return {outcome::resumed, {}};
}

// Maps zeroed private memory over [page, range_end): the faulting store and every later one in
// this mapping land there, and the owner finds the error at its next call.
bool land_in_scratch(guard_entry& entry, std::uintptr_t page, std::uintptr_t range_end,
                     std::uint64_t page_offset) noexcept {
  // Up to the scratch memory an earlier fault mapped, which holds stores already (a copy may
  // store its last bytes first), and which every store above this page then lands in.
  const std::uint64_t failed_at = entry.failed_at.load(std::memory_order_relaxed);
  if (failed_at > page_offset && failed_at - page_offset < range_end - page) {
    range_end = page + static_cast<std::uintptr_t>(failed_at - page_offset);
  }
  if (page_offset < failed_at) entry.failed_at.store(page_offset, std::memory_order_relaxed);
  return platform::map_scratch(page, range_end - page);
}

// True when the fault at `address` was one of ours and the store may be restarted.
bool serve(std::uintptr_t address) noexcept {
  std::uintptr_t range_end = 0;
  std::uint64_t offset = 0;
  guard_entry* const entry = find(address, range_end, offset);
  if (!entry) return false;
  const std::uintptr_t page = address - address % page_bytes;
  const std::uint64_t page_offset = offset - (address - page);
  if (entry->error.load(std::memory_order_acquire) == 0) {
    const outcome result = extend_for(*entry, page_offset);
    if (result.kind == outcome::resumed) return true;
    if (result.kind == outcome::not_ours) return false;
    entry->operation.store(result.why.operation, std::memory_order_relaxed);
    entry->past_the_end.store(result.past_the_end, std::memory_order_relaxed);
    entry->error.store(result.why.error, std::memory_order_release);
  }
  return land_in_scratch(*entry, page, range_end, page_offset);
}

error_cause install() noexcept {
  page_bytes = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  return platform::catch_mapping_faults(serve);
}

}  // namespace

sigbus_guard::~sigbus_guard() {
  if (!entry_) return;
  set_range(*entry_, 0, 0, 0);
  entry_->fd.store(-1, std::memory_order_relaxed);
  entry_->claimed.store(false, std::memory_order_release);
}

error_cause sigbus_guard::arm(int fd, bool extend_on_fault) noexcept {
  return arm_entry(fd, extend_on_fault, false);
}

error_cause sigbus_guard::arm_for_reading(int fd) noexcept {
  return arm_entry(fd, false, true);
}

error_cause sigbus_guard::arm_entry(int fd, bool extend_on_fault, bool reads) noexcept {
  static const error_cause installed = install();
  if (installed) return installed;
  entry_ = claim();
  if (!entry_) return {ENOMEM, "register mapping"};
  entry_->fd.store(fd, std::memory_order_relaxed);
  entry_->extend_on_fault.store(extend_on_fault, std::memory_order_relaxed);
  entry_->reads.store(reads, std::memory_order_relaxed);
  entry_->extent.store(extent_, std::memory_order_relaxed);
  entry_->operation.store(nullptr, std::memory_order_relaxed);
  entry_->failed_at.store(nowhere, std::memory_order_relaxed);
  entry_->past_the_end.store(false, std::memory_order_relaxed);
  entry_->error.store(0, std::memory_order_release);
  return {};
}

void sigbus_guard::cover(char* begin, std::size_t length, std::uint64_t offset) noexcept {
  if (!entry_) return;
  const auto address = reinterpret_cast<std::uintptr_t>(begin);
  set_range(*entry_, address, address + length, offset);
}

void sigbus_guard::uncover() noexcept {
  if (entry_) set_range(*entry_, 0, 0, 0);
}

std::uint64_t sigbus_guard::extent() const noexcept {
  return entry_ ? entry_->extent.load(std::memory_order_acquire) : extent_;
}

void sigbus_guard::set_extent(std::uint64_t extent) noexcept {
  extent_ = extent;
  if (entry_) entry_->extent.store(extent, std::memory_order_release);
}

error_cause sigbus_guard::failed() const noexcept {
  if (!entry_) return {};
  const int error = entry_->error.load(std::memory_order_acquire);
  return {error, error ? entry_->operation.load(std::memory_order_relaxed) : nullptr};
}

std::uint64_t sigbus_guard::failed_at() const noexcept {
  return entry_ ? entry_->failed_at.load(std::memory_order_relaxed) : nowhere;
}

bool sigbus_guard::failed_past_the_end() const noexcept {
  return entry_ && entry_->past_the_end.load(std::memory_order_relaxed);
}

bool sigbus_blocked() noexcept {
  return platform::mapping_faults_blocked();
}

}  // namespace mapout::detail
