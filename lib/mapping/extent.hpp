// Growing the file under a mapping: how far ahead, and with the blocks reserved so that a full
// disk is an error from the extension, not a SIGBUS from a later store.
#pragma once

#include <algorithm>
#include <cstdint>

#include "platform/sys.hpp"

namespace mapout::detail {

// Each extension costs a system call, so the file grows by its own size: small steps for a small
// file, whose close gives back little. The cap is what a killed writer can leave as NUL bytes
// after its data; a smaller one made the mapping slower on ext4 (docs/decisions.md, "extension
// step"). Plain values, so that the SIGBUS handler can use them too.
constexpr std::uint64_t smallest_extension_step = std::uint64_t{64} << 10;
constexpr std::uint64_t largest_extension_step = std::uint64_t{64} << 20;

// The extent to set when the file is `extent` bytes long and `needed` bytes must fit.
constexpr std::uint64_t next_extent(std::uint64_t extent, std::uint64_t needed) noexcept {
  const std::uint64_t step = std::clamp(extent, smallest_extension_step, largest_extension_step);
  return std::max(needed, extent + step);
}

// What an extension reached, or why it failed.
struct extension_result {
  error_cause why;
  std::uint64_t extent = 0;  // the file's size afterwards, whether or not it failed
};

// What the writer needs: the file grown from `extent` bytes to `target`, with the blocks from
// `from` (page-aligned, at least `extent`) reserved. What lies between `extent` and `from` stays
// a hole, so a far seek costs no blocks.
struct extension_request {
  std::uint64_t extent;
  std::uint64_t from;
  std::uint64_t minimal;  // tried when the disk, a quota or RLIMIT_FSIZE refuses `target`
  std::uint64_t target;
  // For a writer whose stores past the end fault (extension::on_fault), the file must end on a
  // page boundary: the part of a page past an unaligned end takes stores silently. A failure then
  // leaves the file at `extent`, undoing what a failed reservation grew. Otherwise a failure keeps
  // what it grew, and EFBIG for `minimal` grows to RLIMIT_FSIZE itself: every byte that fits.
  bool whole_pages = false;
};

// Reserves the blocks where the file system can (platform::reserve; ftruncate where it cannot,
// leaving holes). Only system calls through sys(), no allocation, errno left as found: safe to
// call from the SIGBUS handler.
extension_result extend_file(int fd, const extension_request& request) noexcept;

}  // namespace mapout::detail
