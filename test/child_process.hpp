// Forked children for the tests that need another process: a reader at the far end of a pipe or
// FIFO, a writer with other credentials or its own mounts, a process whose stdout is a pipe.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>
#include <unistd.h>
#ifndef _WIN32
#include <sys/wait.h>
#endif

#include <cerrno>
#include <exception>
#include <functional>
#include <string>

namespace mapout::test {

// Everything readable from fd until end of file.
inline std::string drain(int fd) {
  std::string bytes;
  char chunk[65536];
  for (;;) {
    const ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got > 0) {
      bytes.append(chunk, static_cast<std::size_t>(got));
    } else if (got == 0 || errno != EINTR) {
      return bytes;
    }
  }
}

inline bool write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t written = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return false;
    done += static_cast<std::size_t>(written);
  }
  return true;
}

// Windows cannot fork: the tests that need a child process are Linux's.
#ifndef _WIN32
// Runs body in a forked child that exits with what body returns (1 when it throws). The child
// must not touch GoogleTest: its failures would not reach the parent.
inline pid_t spawn(const std::function<int()>& body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    int status = 1;
    try {
      status = body();
    } catch (...) {
    }
    ::_exit(status);
  }
  return pid;
}

// The child's exit status, or -1 when it did not exit normally.
inline int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

struct child_report {
  int status = -1;     // the child's exit status, -1 when it did not exit
  std::string report;  // what body returned
};

// Runs body in a forked child and brings back the string it returns, for the parent to check.
inline child_report run_in_child(const std::function<std::string()>& body) {
  int fds[2];
  if (::pipe(fds) != 0) return {};
  const pid_t pid = spawn([&] {
    ::close(fds[0]);
    std::string report;
    try {
      report = body();
    } catch (const std::exception& e) {
      report = std::string("exception: ") + e.what();
    }
    return write_all(fds[1], report) ? 0 : 1;
  });
  ::close(fds[1]);
  child_report result;
  result.report = drain(fds[0]);
  ::close(fds[0]);
  result.status = wait_for(pid);
  return result;
}

// The child must come back alive, with "ok".
inline void expect_ok(const child_report& child) {
  EXPECT_EQ(child.status, 0) << "the child did not exit normally";
  EXPECT_EQ(child.report, "ok");
}
#endif  // _WIN32

}  // namespace mapout::test
