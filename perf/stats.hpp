// What every perf/ program does around its timed runs: the warm-up before each, and the median and
// best of the rounds after.
#pragma once

#ifdef _WIN32
#include <windows.h>
#else
#include <sys/mman.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <system_error>
#include <vector>

namespace perf {

// The middle value (the mean of the two middle ones for an even count); 0 when there is none.
inline double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// The smallest value, the fastest of the runs' times; 0 when there is none.
inline double best(const std::vector<double>& values) {
  return values.empty() ? 0 : *std::min_element(values.begin(), values.end());
}

// Beyond the output: the writers' buffers and whatever they reserve ahead of it.
constexpr std::uint64_t warm_up_slack = std::uint64_t{64} << 20;

// Touches and frees `touched` + 64 MiB of anonymous memory before a timed run, as much as the run
// may take fresh. On a virtual machine, pages the guest freed go back to the host, and the first
// run to touch them again pays a host fault per page; this takes them back outside the timed
// region. Throws std::system_error.
inline void warm_up(std::uint64_t touched) {
  const std::uint64_t bytes = touched + warm_up_slack;
#ifdef _WIN32
  void* const memory = ::VirtualAlloc(nullptr, bytes, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
  if (memory == nullptr) throw std::system_error(ENOMEM, std::generic_category(), "warm-up");
  auto* const first = static_cast<volatile char*>(memory);
  for (std::uint64_t at = 0; at < bytes; at += 4096) first[at] = 1;
  ::VirtualFree(memory, 0, MEM_RELEASE);
#else
  void* const memory =
      ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) throw std::system_error(errno, std::generic_category(), "warm-up mmap");
  // One system call instead of a fault per page; kernels before 5.14 do not know it.
  if (::madvise(memory, bytes, MADV_POPULATE_WRITE) != 0) {
    const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    auto* const first = static_cast<volatile char*>(memory);
    for (std::uint64_t at = 0; at < bytes; at += page) first[at] = 1;
  }
  ::munmap(memory, bytes);
#endif
}

}  // namespace perf
