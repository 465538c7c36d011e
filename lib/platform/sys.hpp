// The one seam for system calls: lib/ calls the kernel only through mapout::detail::sys() and
// the platform's answers (platform/platform.hpp), which call it through sys() too, so a test can
// replace any entry to make that call fail on purpose. With it, what every call site shares:
// retrying on EINTR, the failure a call reports, and the descriptor the calls work on.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <cerrno>
#include <cstddef>
#include <system_error>

#include "platform/own_calls.hpp"

namespace mapout::detail {

// Each entry is the plain system call: retrying is the caller's (retry_on_eintr), so that a test
// that makes an entry fail with EINTR sees the retry. The platform's files fill the table
// (platform::add_posix_calls, then platform::add_system_calls). These entries are every POSIX
// system's; those of one system alone are platform::own_calls', null on the others.
struct system_calls : platform::own_calls {
  int (*open)(const char* path, int flags, mode_t mode);
  int (*close)(int fd);
  int (*stat)(const char* path, struct stat* st);
  int (*fstat)(int fd, struct stat* st);
  int (*ftruncate)(int fd, off_t length);
  void* (*mmap)(void* addr, std::size_t length, int prot, int flags, int fd, off_t offset);
  int (*munmap)(void* addr, std::size_t length);
  int (*madvise)(void* addr, std::size_t length, int advice);
  int (*mprotect)(void* addr, std::size_t length, int prot);
  // Not POSIX, but macOS's and the BSDs' too (there with a char vector).
  int (*mincore)(void* addr, std::size_t length, unsigned char* resident);
  ssize_t (*write)(int fd, const void* data, std::size_t size);
  ssize_t (*pread)(int fd, void* data, std::size_t size, off_t offset);
  ssize_t (*pwrite)(int fd, const void* data, std::size_t size, off_t offset);
  // fcntl(2) with a struct flock: the platform's range locks.
  int (*lock)(int fd, int command, struct flock* lock);
  // fcntl(2) with an int: F_GETFL and F_SETFL, for a descriptor the caller opened.
  int (*status_flags)(int fd, int command, int flags);
  off_t (*lseek)(int fd, off_t offset, int whence);
  int (*fsync)(int fd);
  int (*fdatasync)(int fd);
  // For replacing a file through a temporary in its directory.
  int (*openat)(int directory, const char* path, int flags, mode_t mode);
  ssize_t (*readlink)(const char* path, char* target, std::size_t size);
  int (*fchmod)(int fd, mode_t mode);
  int (*linkat)(int from_directory, const char* from, int to_directory, const char* to, int flags);
  int (*renameat)(int from_directory, const char* from, int to_directory, const char* to);
  int (*unlinkat)(int directory, const char* path, int flags);
  ssize_t (*read)(int fd, void* data, std::size_t size);
  // For checking a target as the kernel found it, and giving its replacement the old owner.
  int (*fstatat)(int directory, const char* path, struct stat* st, int flags);
  int (*fchown)(int fd, uid_t owner, gid_t group);
};

// The table in use; tests swap entries and restore them.
system_calls& sys() noexcept;
// The table of real calls, for restoring.
const system_calls& real_system_calls() noexcept;

// Makes the call again while it fails with EINTR. Never for close: Linux releases the descriptor
// even when close fails, and a retry could close another thread's new one.
template <class Call, class... Args>
auto retry_on_eintr(Call call, Args... args) noexcept {
  for (;;) {
    const auto result = call(args...);
    if (result != -1 || errno != EINTR) return result;
  }
}

// The offset write_all takes for the descriptor's own, with write(2).
constexpr off_t at_descriptor = -1;

// The full-write loop: writes `size` bytes with write(2), or with pwrite(2) at `offset` unless it
// is at_descriptor, across EINTR and short writes. Returns how many it wrote: all of them, or
// fewer with errno set (0 where a call wrote nothing). Inlined, so that a full buffer reaches
// write(2) with no frame of its own.
[[gnu::always_inline]] inline std::size_t write_all(int fd, const char* data, std::size_t size,
                                                    off_t offset) noexcept {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t written =
        offset == at_descriptor
            ? sys().write(fd, data + done, size - done)
            : sys().pwrite(fd, data + done, size - done, offset + static_cast<off_t>(done));
    if (written > 0) {
      done += static_cast<std::size_t>(written);
    } else if (written == 0 || errno != EINTR) {
      if (written == 0) errno = 0;
      break;
    }
  }
  return done;
}

// What failed and why: errno (or an error mapout found itself) and the call or check that met
// it. Plain values, so that the SIGBUS handler can make one. Not "failure": that is what the
// streams throw (std::ios_base::failure), which several files build from one of these.
struct error_cause {
  int error = 0;
  const char* operation = nullptr;
  const char* detail = nullptr;  // what the message adds after the path, when errno is not enough

  explicit operator bool() const noexcept { return error != 0; }
};

// The category of errno values mapout reports: std::system_category(), or on Windows one whose
// messages are Windows' own texts (platform/).
const std::error_category& errno_category() noexcept;

// What the std::error_code API reports for it.
inline std::error_code code_of(const error_cause& why) noexcept {
  return why ? std::error_code(why.error, errno_category()) : std::error_code{};
}

// The failure of the system call that just returned -1.
inline error_cause errno_failure(const char* operation) noexcept {
  return {errno, operation};
}

// An open descriptor, closed exactly once, by its owner.
class descriptor {
 public:
  descriptor() noexcept = default;
  explicit descriptor(int fd) noexcept : fd_(fd) {}
  descriptor(descriptor&& other) noexcept : fd_(other.release()) {}
  descriptor& operator=(descriptor&& other) noexcept {
    if (this != &other) {
      close();
      fd_ = other.release();
    }
    return *this;
  }
  ~descriptor() { close(); }

  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }
  // Hands the descriptor back unclosed.
  int release() noexcept {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  // A failed close has released the descriptor all the same.
  error_cause close() noexcept {
    const int fd = release();
    return fd >= 0 && sys().close(fd) != 0 ? errno_failure("close") : error_cause{};
  }

 private:
  int fd_ = -1;
};

}  // namespace mapout::detail
