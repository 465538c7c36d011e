// An address-space limit (RLIMIT_AS) for a forked child: so much room beyond what the process has
// mapped now, as `ulimit -v` gives a job on a shared machine.
#pragma once

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>

#include "sanitized.hpp"

namespace mapout::test {

// The sanitizers reserve terabytes of shadow memory: no address-space limit leaves them room.
constexpr bool address_space_can_be_limited = !sanitized && !thread_sanitized;

#define SKIP_UNLESS_ADDRESS_SPACE_CAN_BE_LIMITED()                              \
  if (!mapout::test::address_space_can_be_limited) {                            \
    GTEST_SKIP() << "a sanitizer's shadow memory does not fit under RLIMIT_AS"; \
  }

// Lets this process map no more than `headroom` bytes beyond what it has mapped now (the first
// field of /proc/self/statm).
inline bool limit_address_space(std::size_t headroom) {
  unsigned long long pages = 0;
  std::FILE* statm = std::fopen("/proc/self/statm", "r");
  if (!statm) return false;
  const bool read = std::fscanf(statm, "%llu", &pages) == 1;
  std::fclose(statm);
  const auto used = static_cast<rlim_t>(pages) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE));
  const struct rlimit limit = {used + headroom, used + headroom};
  return read && ::setrlimit(RLIMIT_AS, &limit) == 0;
}

}  // namespace mapout::test
