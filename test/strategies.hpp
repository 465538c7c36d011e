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

// Every strategy and extension mode, and buffers of 1, 7 and 64 bytes, so that window ends fall
// everywhere in what a test writes.
inline std::vector<strategy_case> window_cases() {
  std::vector<strategy_case> cases = strategies();
  options sigbus = mapped();
  sigbus.extension = extension::on_fault;
  cases.push_back({"on_sigbus", sigbus});
  cases.push_back({"automatic", options{}});
  cases.push_back({"buffer 1", buffered(1)});
  cases.push_back({"buffer 7", buffered(7)});
  cases.push_back({"buffer 64", buffered(64)});
  return cases;
}

}  // namespace mapout::test
