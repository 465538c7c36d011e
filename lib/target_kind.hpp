// Whether an open descriptor may be written through a mapping, and whether it should be.
#pragma once

namespace mapout::detail {

enum class target_kind {
  // Not a regular file on a local file system: only the buffered strategy can write it. Network
  // and FUSE file systems are among these: their mapped pages reach the server late, and errors
  // surface as SIGBUS.
  unmappable,
  // A file that can be mapped, but where write(2) from a buffer is faster: tmpfs and ext4.
  mappable_slower,
  // A file where the mapping is the faster strategy.
  mappable,
};

target_kind kind_of(int fd) noexcept;

}  // namespace mapout::detail
