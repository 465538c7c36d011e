// The page arithmetic of the mapped strategy.
#pragma once

#include <unistd.h>

#include <cstdint>

namespace mapout::detail {

// Read once at load, not behind a guard at each call: page_floor runs at every seek.
inline const std::uint64_t page_bytes = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));

inline std::uint64_t page_size() noexcept {
  return page_bytes;
}

// A mask, not a division: pages are a power of two.
inline std::uint64_t page_floor(std::uint64_t offset) noexcept {
  return offset & ~(page_bytes - 1);
}

inline std::uint64_t page_ceiling(std::uint64_t offset) noexcept {
  return page_floor(offset + page_bytes - 1);
}

}  // namespace mapout::detail
