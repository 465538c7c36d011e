// Copying the parts of a parallel output that were held in memory into their places in the file,
// on several threads at once.
#pragma once

#include <cstdint>
#include <vector>

#include "mapout/options.hpp"
#include "platform/sys.hpp"

namespace mapout::detail {

// How the join of a parallel output copies a part held in memory into its place.
enum class join_copy {
  write,  // pwrite(2), a stretch at a time, on one thread
  map,    // stores through a shared mapping of each stretch, its pages populated first, on every
          // core but one, which writes its stretches
};

// The join's copy into the file `fd`, written with `opts`.
join_copy join_copy_for(int fd, const options& opts) noexcept;

// `size` bytes from `from` go to `offset` in the file.
struct placed_copy {
  const char* from = nullptr;
  std::uint64_t size = 0;
  std::uint64_t offset = 0;
};

// Makes every copy into `to` the way `how` says, split into stretches that up to `threads`
// threads (the caller's among them) take in turn where they are mapped, one of them writing its
// stretches instead, and the caller alone where they are written; returns the first failure,
// after every thread has stopped. A stretch that cannot be mapped is written instead.
error_cause copy_into_place(int to, const std::vector<placed_copy>& copies, unsigned threads,
                            join_copy how) noexcept;

}  // namespace mapout::detail
