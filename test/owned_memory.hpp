// Growing memory owned by a test.
#pragma once

#include "backends/growing_memory.hpp"

namespace mapout::test {

// Growing memory given back when the test ends, even when an assertion ends it early: a
// reservation left behind would count against a later test's address-space limit.
struct owned_memory {
  mapout::detail::growing_memory memory;
  owned_memory() = default;
  owned_memory(const owned_memory&) = delete;
  owned_memory& operator=(const owned_memory&) = delete;
  ~owned_memory() { mapout::detail::release_memory(memory); }
};

}  // namespace mapout::test
