// Whether a descriptor's file can be mapped at all: asked by the write side's strategy and by the
// read side alike.
#pragma once

#include "platform/platform.hpp"

namespace mapout::detail {

// The file system `fd`'s file is on, when the file can be mapped: a regular file on a local file
// system. Network and FUSE file systems are not: their mapped pages reach the server late, and
// errors surface as SIGBUS. False when it cannot be mapped or cannot be asked.
bool mappable(int fd, platform::file_system_kind& kind) noexcept;

inline bool mappable(int fd) noexcept {
  platform::file_system_kind kind;
  return mappable(fd, kind);
}

}  // namespace mapout::detail
