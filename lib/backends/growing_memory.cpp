// Growing memory's policy, written once: how much to reserve, when to make pages usable, when to
// move; the system's calls are platform.hpp's.
#include "backends/growing_memory.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <limits>

#include "platform/platform.hpp"

namespace mapout::detail {
namespace {

// Where the system gives less, the least reservation worth holding.
constexpr std::size_t least_reservation = std::size_t{1} << 24;

}  // namespace

error_cause reserve_memory(growing_memory& memory) noexcept {
  for (std::size_t size = platform::largest_memory_reservation();; size /= 2) {
    if (char* const base = platform::reserve_address_space(size)) {
      memory = {base, 0, size};
      return {};
    }
    if (errno != ENOMEM || size / 2 < least_reservation) return errno_failure("reserve memory");
  }
}

error_cause commit_memory(growing_memory& memory, std::size_t size) noexcept {
  if (size <= memory.usable) return {};
  if (size > std::numeric_limits<std::size_t>::max() / 2) return {ENOMEM, "commit memory"};
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t wanted = (size + page - 1) / page * page;
  if (wanted <= memory.reserved) {
    if (!platform::make_usable(memory.base + memory.usable, wanted - memory.usable)) {
      return errno_failure("commit memory");
    }
    memory.usable = wanted;
    return {};
  }
  if (!platform::address_space_moves()) {
    return {ENOMEM, "commit memory", "a part held in memory outgrew the address space reserved"};
  }
  // Past the reservation: all of it usable, one mapping then, which moves whole, its pages and
  // not their bytes.
  if (memory.usable < memory.reserved &&
      !platform::make_usable(memory.base + memory.usable, memory.reserved - memory.usable)) {
    return errno_failure("commit memory");
  }
  memory.usable = memory.reserved;
  const std::size_t grown = std::max(wanted, memory.reserved * 2);
  char* const moved = platform::move_address_space(memory.base, memory.reserved, grown);
  if (moved == nullptr) return errno_failure("grow memory");
  memory = {moved, grown, grown};
  return {};
}

error_cause release_memory(growing_memory& memory) noexcept {
  if (memory.base == nullptr) return {};
  const bool released = platform::release_address_space(memory.base, memory.reserved);
  memory = {};
  return released ? error_cause{} : errno_failure("release memory");
}

}  // namespace mapout::detail
