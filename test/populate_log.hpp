// Every MADV_POPULATE_WRITE made while a populate_log lives, with what it returned; or each one
// refused, as a kernel older than 5.14 refuses them.
#pragma once

#include <sys/mman.h>

#include <cerrno>
#include <cstddef>
#include <mutex>
#include <vector>

#include "platform/sys.hpp"
#include "system_call_override.hpp"

namespace mapout::test {

struct populate_call {
  std::size_t length;
  // What the call returned: a stretch past the page that holds the end of a file fails with
  // EFAULT, as a store there would raise SIGBUS.
  int result;
};

class populate_log {
 public:
  explicit populate_log(int (*madvise)(void*, std::size_t, int) = real_madvise)
      : madvise_(madvise) {
    const std::lock_guard<std::mutex> lock(mutex());
    calls().clear();
  }

  // The calls so far. A mapped file past its first megabytes is populated from a thread of its
  // own as well: read them once the writer is done.
  static std::vector<populate_call> taken() {
    const std::lock_guard<std::mutex> lock(mutex());
    return calls();
  }

  static int real_madvise(void* address, std::size_t length, int advice) {
    const int result = detail::real_system_calls().madvise(address, length, advice);
    note(length, advice, result);
    return result;
  }
  static int refuse(void* address, std::size_t length, int advice) {
    if (advice != MADV_POPULATE_WRITE) {
      return detail::real_system_calls().madvise(address, length, advice);
    }
    note(length, advice, -1);
    errno = EINVAL;
    return -1;
  }

 private:
  static std::vector<populate_call>& calls() {
    static std::vector<populate_call> calls;
    return calls;
  }
  static std::mutex& mutex() {
    static std::mutex mutex;
    return mutex;
  }
  static void note(std::size_t length, int advice, int result) {
    const std::lock_guard<std::mutex> lock(mutex());
    if (advice == MADV_POPULATE_WRITE) calls().push_back({length, result});
  }

  system_call_override<&detail::system_calls::madvise> madvise_;
};

}  // namespace mapout::test
