// The options the test suites write with. The mapping is asked for by name: strategy::automatic
// picks the buffer on tmpfs, where TMPDIR may well be, and a test of the mapping must not quietly
// test the buffer instead.
#pragma once

#include <cstddef>
#include <vector>

#include "bytes.hpp"
#include "mapout/options.hpp"

namespace mapout::test {

inline options mapped(std::size_t reserve = options{}.mapping_size) {
  options opts;
  opts.strategy = strategy::mapped;
  opts.mapping_size = reserve;
  return opts;
}

inline options buffered(std::size_t buffer_size = options{}.buffer_size) {
  options opts;
  opts.strategy = strategy::buffered;
  opts.buffer_size = buffer_size;
  return opts;
}

// A named configuration, for the tests that run once per strategy.
struct strategy_case {
  const char* name;
  options opts;
};

// The mapping with the default reservation and with one page (the window moves at every page),
// and the buffer.
inline std::vector<strategy_case> strategies() {
  return {{"mapped", mapped()}, {"one page", mapped(page_size())}, {"buffered", buffered()}};
}

}  // namespace mapout::test
