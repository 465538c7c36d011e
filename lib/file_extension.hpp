// Growing the file under a mapping so that a full disk is an error from the extension, not a
// SIGBUS from a later store.
#pragma once

#include <cstdint>

namespace mapout::detail {

// What an extension reached, or why it failed.
struct extension_result {
  int error = 0;                    // errno of the failed call, 0 on success
  const char* operation = nullptr;  // the call that failed
  std::uint64_t extent = 0;         // the file's size afterwards, whether or not it failed
};

// What the writer needs: the file grown from `extent` bytes to `target`, with the blocks from
// `from` (page-aligned, at least `extent`) reserved. What lies between `extent` and `from` stays
// a hole, so a far seek costs no blocks.
struct extension_request {
  std::uint64_t extent;
  std::uint64_t from;
  std::uint64_t minimal;  // tried when the disk, a quota or RLIMIT_FSIZE refuses `target`
  std::uint64_t target;
  // For a writer whose stores past the end fault (extension::on_sigbus), the file must end on a
  // page boundary: the part of a page past an unaligned end takes stores silently. A failure then
  // leaves the file at `extent`, undoing what a failed fallocate grew. Otherwise a failure keeps
  // what it grew, and EFBIG for `minimal` grows to RLIMIT_FSIZE itself: every byte that fits.
  bool whole_pages = false;
};

// Reserves with fallocate where the file system can (ftruncate where it says EOPNOTSUPP, leaving
// holes). Only system calls through sys(), no allocation, errno left as found: safe to call from
// the SIGBUS handler.
extension_result extend_file(int fd, const extension_request& request) noexcept;

}  // namespace mapout::detail
