// Issue 3's performance targets, checked against one run's medians.
#pragma once

#include <cstdio>
#include <vector>

#include "report.hpp"

namespace perf {

// Prints one line per target and size measured: met or NOT MET, with the ratio behind it.
// Returns how many were not met.
int print_targets(std::FILE* out, const std::vector<summary>& rows);

}  // namespace perf
