// Private memory that grows in place, zero-filled: address space reserved at once, its pages made
// usable from its start as they are needed, never copied to grow.
#pragma once

#include <cstddef>

#include "platform/sys.hpp"

namespace mapout::detail {

struct growing_memory {
  char* base = nullptr;      // null until reserved
  std::size_t usable = 0;    // [base, base + usable) takes stores
  std::size_t reserved = 0;  // the address space held from base
};

// Reserves the address space, none of it usable yet: as much as the system offers, halved while it
// refuses, down to the least worth holding.
error_cause reserve_memory(growing_memory& memory) noexcept;
// Makes at least `size` bytes from base usable. Where the system moves a reservation without
// copying its bytes (Linux), the memory grows past its reservation and base may move; elsewhere a
// size past the reservation fails with ENOMEM.
error_cause commit_memory(growing_memory& memory, std::size_t size) noexcept;
// Gives the address space back, usable or not; `memory` is empty after, even when it fails.
error_cause release_memory(growing_memory& memory) noexcept;

}  // namespace mapout::detail
