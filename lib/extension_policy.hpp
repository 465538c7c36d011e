// How far ahead of the bytes written the mapped file is extended.
#pragma once

#include <algorithm>
#include <cstdint>

namespace mapout::detail {

// Each extension costs a system call, so the file grows by its own size: small steps for a small
// file, whose close gives back little. The cap is what a killed writer can leave as NUL bytes
// after its data; a smaller one made the mapping slower on ext4 (docs/decisions.md, "extension
// step"). A function of plain values, so that the SIGBUS handler can call it too.
constexpr std::uint64_t smallest_extension_step = std::uint64_t{64} << 10;
constexpr std::uint64_t largest_extension_step = std::uint64_t{64} << 20;

// The extent to set when the file is `extent` bytes long and `needed` bytes must fit.
constexpr std::uint64_t next_extent(std::uint64_t extent, std::uint64_t needed) noexcept {
  const std::uint64_t step = std::clamp(extent, smallest_extension_step, largest_extension_step);
  return std::max(needed, extent + step);
}

}  // namespace mapout::detail
