// One measured run in a fresh child process, its report sent back through a pipe: every run
// starts from the same memory state, and a writer that crashes takes only its own run down.
#pragma once

#include <fcntl.h>
#include <unistd.h>
#ifndef _WIN32
#include <sys/wait.h>
#endif

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace perf {

// Runs `measure()` in a forked child and returns the Report it made there. Throws
// std::runtime_error naming `who` when no child can be made or it dies before it reports.
template <class Report, class Measure>
Report run_in_child(const std::string& who, Measure measure) {
  static_assert(std::is_trivially_copyable_v<Report>, "the report crosses a pipe as bytes");
#ifdef _WIN32
  // Windows cannot fork: the run is made in this process, after the ones before it.
  (void)who;
  return measure();
#else
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) {
    throw std::runtime_error(who + ": pipe: " + std::strerror(errno));
  }
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) {
    const int error = errno;
    ::close(ends[0]);
    ::close(ends[1]);
    throw std::runtime_error(who + ": fork: " + std::strerror(error));
  }
  if (child == 0) {
    ::close(ends[0]);
    const Report report = measure();
    const bool sent = ::write(ends[1], &report, sizeof report) == sizeof report;
    ::_exit(sent ? 0 : 1);
  }
  ::close(ends[1]);
  Report report;
  const ssize_t received = ::read(ends[0], &report, sizeof report);
  ::close(ends[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (received != static_cast<ssize_t>(sizeof report)) {
    throw std::runtime_error(who + " died (wait status " + std::to_string(status) + ")");
  }
  return report;
#endif
}

}  // namespace perf
