// The calls that reserve and commit the memory of a parallel output's parts, as this system makes
// them through the system-call table: counted, or made to fail, for a scope.
#pragma once

#ifdef _WIN32
#include <windows.h>
#else
#include <sys/mman.h>
#endif

#include <cerrno>
#include <cstddef>

#include "platform/sys.hpp"
#include "system_call_override.hpp"

namespace mapout::test {

class part_memory_calls {
 public:
  // Every reservation in the scope fails with `reserve_error`, every commit with `commit_error`;
  // 0 lets them through.
  explicit part_memory_calls(int reserve_error = 0, int commit_error = 0) {
    plan() = {reserve_error, commit_error, 0};
  }
  part_memory_calls(const part_memory_calls&) = delete;
  part_memory_calls& operator=(const part_memory_calls&) = delete;

  // The reservations asked for, failed or not.
  int reservations() const { return plan().reservations; }

 private:
  struct failures {
    int reserve_error;
    int commit_error;
    int reservations;
  };
  static failures& plan() {
    static failures failures;
    return failures;
  }
  // The error a call fails with, 0 to make it; counts reservations.
  static int error_of(bool reserving) {
    if (!reserving) return plan().commit_error;
    ++plan().reservations;
    return plan().reserve_error;
  }

#ifdef _WIN32
  system_call_override<&detail::system_calls::virtual_alloc> alloc_{
      [](void* address, std::size_t size, unsigned long type, unsigned long protection) -> void* {
        if (const int error = error_of((type & MEM_COMMIT) == 0)) return errno = error, nullptr;
        return detail::real_system_calls().virtual_alloc(address, size, type, protection);
      }};
#else
  system_call_override<&detail::system_calls::mmap> map_{
      [](void* address, std::size_t length, int prot, int flags, int fd, off_t offset) -> void* {
        const bool reserving = fd == -1 && prot == PROT_NONE;
        if (const int error = reserving ? error_of(true) : 0) return errno = error, MAP_FAILED;
        return detail::real_system_calls().mmap(address, length, prot, flags, fd, offset);
      }};
  system_call_override<&detail::system_calls::mprotect> protect_{
      [](void* address, std::size_t length, int prot) {
        if (const int error = (prot & PROT_WRITE) != 0 ? error_of(false) : 0) {
          return errno = error, -1;
        }
        return detail::real_system_calls().mprotect(address, length, prot);
      }};
#endif
};

}  // namespace mapout::test
