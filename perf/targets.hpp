// mapout's performance targets, checked against one run's medians.
#pragma once

#include <cstdio>
#include <vector>

#include "report.hpp"

namespace perf {

// Prints one line per target: met, or NOT MET with the ratio behind it, or NOT MET with
// "MISSING:" and each row the target needs that the run lacks or that failed. Returns how many
// were not met, the missing ones included: a target the run cannot judge is not a target met.
int print_targets(std::FILE* out, const std::vector<summary>& rows);

}  // namespace perf
