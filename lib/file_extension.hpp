// Growing the file under a mapping so that a full disk is an error from the extension, not a
// SIGBUS from a later store.
#pragma once

#include <cstdint>

namespace mapout::detail {

// What an extension reached, or why it failed.
struct extension_result {
  int error = 0;                    // errno of the failed call, 0 on success
  const char* operation = nullptr;  // the call that failed
  std::uint64_t extent = 0;         // the file's size after a successful extension
};

// Grows the file of `fd` from `extent` bytes to `target`, reserving the blocks with fallocate
// where the file system can (ftruncate where it says EOPNOTSUPP, leaving holes). When the disk,
// a quota or RLIMIT_FSIZE refuses `target`, tries `minimal` (the page the writer needs now) so
// that every byte that fits is written. Only system calls through sys(), no allocation, errno
// left as found: safe to call from the SIGBUS handler.
extension_result extend_file(int fd, std::uint64_t extent, std::uint64_t minimal,
                             std::uint64_t target) noexcept;

}  // namespace mapout::detail
