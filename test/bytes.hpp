// What the tests write and the unit they measure it in: a byte pattern that shows a byte written
// at the wrong place, lost or zeroed, and the page size that sets where windows end.
#pragma once

#ifdef _WIN32
#include <windows.h>
#else
#include <unistd.h>
#endif

#include <cstddef>
#include <string>

namespace mapout::test {

inline std::size_t page_size() {
#ifdef _WIN32
  // A view of a file starts at a multiple of the allocation granularity (64 KiB), not of a page.
  SYSTEM_INFO system;
  ::GetSystemInfo(&system);
  return system.dwAllocationGranularity;
#else
  return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
#endif
}

// Printable bytes, never zero, that differ from one offset to the next. The period of 90 drifts
// by one every 4093 bytes, so a copy shifted by any distance differs at least that often; `salt`
// makes a second string that differs from the first at every offset. `from`: the bytes a longer
// pattern has there, for writing one piece at a time.
inline std::string pattern(std::size_t size, unsigned salt = 0, std::size_t from = 0) {
  std::string bytes(size, '\0');
  for (std::size_t i = from; i < from + size; ++i)
    bytes[i - from] = static_cast<char>('!' + (i * 7 + i / 4093 + salt) % 90);
  return bytes;
}

}  // namespace mapout::test
