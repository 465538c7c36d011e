// Growing memory's policy, written once: how much to reserve, when to make pages usable, how to
// grow past the reservation; the system's calls are platform.hpp's.
#include "backends/growing_memory.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>

#include "platform/platform.hpp"

namespace mapout::detail {
namespace {

// Where the system gives less, the least reservation worth holding: one step of the memory made
// usable ahead of the bytes.
constexpr std::size_t least_reservation = std::size_t{64} << 10;
// A reservation takes at most this share of the address space left to the process: under a limit
// (ulimit -v) the memories reserved after it get theirs too, and each grows as its bytes need
// (docs/decisions.md, "Parts in memory under an address-space limit").
constexpr std::uint64_t reservation_share = 64;

std::size_t first_reservation() noexcept {
  const std::uint64_t share = platform::free_address_space() / reservation_share;
  std::size_t size = platform::largest_memory_reservation();
  while (size > least_reservation && size > share) size /= 2;
  return size;
}

// The base of the memory grown past its reservation to `grown` bytes, `wanted` of them usable: its
// pages moved where the system moves a reservation, else a new one with the `kept` bytes copied
// into it. Null, with errno set, where the address space cannot be had.
char* grown_base(const growing_memory& memory, std::size_t grown, std::size_t wanted,
                 std::size_t kept) noexcept {
  if (platform::address_space_moves()) {
    return platform::move_address_space(memory.base, memory.reserved, grown);
  }
  char* const base = platform::reserve_address_space(grown);
  if (base == nullptr) return nullptr;
  if (!platform::make_usable(base, wanted)) {
    const int error = errno;
    platform::release_address_space(base, grown);
    errno = error;
    return nullptr;
  }
  std::memcpy(base, memory.base, kept);
  return base;
}

// Past the reservation: twice as much, or where that cannot be had, what is wanted.
error_cause grow(growing_memory& memory, std::size_t wanted, std::size_t kept) noexcept {
  const bool moves = platform::address_space_moves();
  // A reservation moves whole as one mapping: all of it usable first.
  if (moves && memory.usable < memory.reserved) {
    if (!platform::make_usable(memory.base + memory.usable, memory.reserved - memory.usable)) {
      return errno_failure("commit memory");
    }
    memory.usable = memory.reserved;
  }
  for (const std::size_t grown : {std::max(wanted, memory.reserved * 2), wanted}) {
    if (char* const base = grown_base(memory, grown, wanted, kept)) {
      const bool released = moves || platform::release_address_space(memory.base, memory.reserved);
      const int error = errno;
      memory = {base, moves ? grown : wanted, grown};
      return released ? error_cause{} : error_cause{error, "release memory"};
    }
    if (errno != ENOMEM || grown == wanted) break;
  }
  return errno_failure("grow memory");
}

}  // namespace

error_cause reserve_memory(growing_memory& memory) noexcept {
  for (std::size_t size = first_reservation();; size /= 2) {
    if (char* const base = platform::reserve_address_space(size)) {
      memory = {base, 0, size};
      return {};
    }
    if (errno != ENOMEM || size / 2 < least_reservation) return errno_failure("reserve memory");
  }
}

error_cause commit_memory(growing_memory& memory, std::size_t size, std::size_t kept) noexcept {
  if (size <= memory.usable) return {};
  if (size > std::numeric_limits<std::size_t>::max() / 2) return {ENOMEM, "commit memory"};
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t wanted = (size + page - 1) / page * page;
  if (wanted > memory.reserved) return grow(memory, wanted, std::min(kept, memory.usable));
  if (!platform::make_usable(memory.base + memory.usable, wanted - memory.usable)) {
    return errno_failure("commit memory");
  }
  memory.usable = wanted;
  return {};
}

error_cause release_memory(growing_memory& memory) noexcept {
  if (memory.base == nullptr) return {};
  const bool released = platform::release_address_space(memory.base, memory.reserved);
  memory = {};
  return released ? error_cause{} : errno_failure("release memory");
}

}  // namespace mapout::detail
