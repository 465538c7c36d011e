// The process-wide SIGBUS handler and the registry of live mappings it serves: it extends files
// written in extension::on_fault mode, and turns a store the file cannot take (full disk,
// RLIMIT_FSIZE, a truncate by another process) into an error on the stream instead of a crash.
#pragma once

#include <cstddef>
#include <cstdint>

#include "platform/sys.hpp"

namespace mapout::detail {

struct guard_entry;

// One mapping's entry in the registry, owned by one mapped_backend. The handler reads the entry
// from whichever thread faults; the owner changes it only from its own thread.
//
//   sigbus_guard guard;
//   guard.set_extent(size);
//   if (failure why = guard.arm(fd, true)) return why;
//   guard.cover(map, length, offset);   // after mmap
//   guard.uncover();                    // before munmap
//   if (failure why = guard.failed()) ...
class sigbus_guard {
 public:
  sigbus_guard() noexcept = default;
  sigbus_guard(const sigbus_guard&) = delete;
  sigbus_guard& operator=(const sigbus_guard&) = delete;
  // Gives the entry back; the range must be uncovered already.
  ~sigbus_guard();

  // Installs the handler (once per process) and takes an entry for the file of `fd`, whose size
  // is extent(). With `extend_on_fault`, a store past the extent makes the handler extend the file;
  // without, such a store is not the guard's business and goes to the previous handler.
  error_cause arm(int fd, bool extend_on_fault) noexcept;
  // The same for a read-only mapping of a file of extent() bytes: a read from a page the file
  // lost (another process truncated it) or could not read (an I/O error) fails with EIO and reads
  // zeroes from there on, in every thread that reads the mapping.
  error_cause arm_for_reading(int fd) noexcept;
  bool armed() const noexcept { return entry_ != nullptr; }

  // Tells the handler that [begin, begin + length) maps the file from `offset` on.
  void cover(char* begin, std::size_t length, std::uint64_t offset) noexcept;
  // Forgets the range; call it before the munmap, so that no fault in a mapping made later at the
  // same address can be taken for this file's.
  void uncover() noexcept;

  // The file's size as the handler or the owner last set it: the one place the extent is kept,
  // armed or not.
  std::uint64_t extent() const noexcept;
  void set_extent(std::uint64_t extent) noexcept;

  // The first store the handler could not serve, or nothing.
  error_cause failed() const noexcept;
  // The file offset of the page that store was on: the bytes before it are in the file.
  std::uint64_t failed_at() const noexcept;
  // True when that store was past the file's end (an extension failed), so the pages from
  // failed_at() on hold nothing but the stores that landed in scratch memory.
  bool failed_past_the_end() const noexcept;

 private:
  error_cause arm_entry(int fd, bool extend_on_fault, bool reads) noexcept;

  guard_entry* entry_ = nullptr;
  std::uint64_t extent_ = 0;  // while not armed
};

// True when the calling thread blocks SIGBUS: the kernel then kills the process at a fault
// instead of running the handler, so nothing that relies on the handler may map.
bool sigbus_blocked() noexcept;

}  // namespace mapout::detail
