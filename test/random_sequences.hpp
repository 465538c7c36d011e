// The driver of the randomized suites: one seeded sequence of calls per seed, each on the next of
// window_cases(), written to a mapout::ostream and to a std::ostringstream that must end up alike.
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>

#include "bytes.hpp"
#include "mapout/ostream.hpp"
#include "strategies.hpp"
#include "temp_dir.hpp"

namespace mapout::test {

inline int pick(std::mt19937& random, int low, int high) {
  return std::uniform_int_distribution<int>(low, high)(random);
}

// Calls `steps(out, reference, random)` once per seed below `seeds`; the file must then hold
// exactly what `reference` holds.
template <typename Steps>
void for_random_sequences(const temp_dir& dir, unsigned seeds, Steps steps) {
  const auto cases = window_cases();
  for (unsigned seed = 0; seed < seeds; ++seed) {
    const auto& which = cases[seed % cases.size()];
    SCOPED_TRACE("seed " + std::to_string(seed) + ", " + which.name);
    std::mt19937 random(seed);
    const auto path = dir / ("out" + std::to_string(seed));
    mapout::ostream out(path, std::ios::out, which.opts);
    ASSERT_TRUE(out.is_open());
    std::ostringstream reference;
    steps(out, reference, random);
    out.close();
    ASSERT_TRUE(out.good());
    ASSERT_EQ(read_file(path), reference.str());
  }
}

}  // namespace mapout::test
