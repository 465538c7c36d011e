// Whether an open descriptor may be written through a mapping.
#pragma once

namespace mapout::detail {

// True for a regular file on a local file system. Network and FUSE file systems are left to the
// buffered strategy: their mapped pages reach the server late, and errors surface as SIGBUS.
bool can_map(int fd) noexcept;

}  // namespace mapout::detail
