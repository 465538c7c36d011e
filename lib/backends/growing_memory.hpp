// Private memory that grows, zero-filled: address space reserved at once, its pages made usable
// from its start as they are needed; past the reservation it moves (Linux moves its pages, other
// systems copy its bytes once into a reservation twice as large).
#pragma once

#include <cstddef>

#include "platform/sys.hpp"

namespace mapout::detail {

struct growing_memory {
  char* base = nullptr;      // null until reserved
  std::size_t usable = 0;    // [base, base + usable) takes stores
  std::size_t reserved = 0;  // the address space held from base
};

// Reserves the address space, none of it usable yet: at most a share of what the process may still
// map, halved while the system refuses, down to the least worth holding.
error_cause reserve_memory(growing_memory& memory) noexcept;
// Makes at least `size` bytes from base usable. Past the reservation the memory grows, to twice
// its size or, where that cannot be had, to `size`, and base may move: where the system moves a
// reservation without copying its bytes (Linux) all of them go along, elsewhere the first `kept`
// bytes are copied and the rest is zeros.
error_cause commit_memory(growing_memory& memory, std::size_t size, std::size_t kept) noexcept;
// Gives the address space back, usable or not; `memory` is empty after, even when it fails.
error_cause release_memory(growing_memory& memory) noexcept;

}  // namespace mapout::detail
