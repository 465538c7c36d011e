// The real system calls behind mapout::detail::sys().
#include "sys.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mapout::detail {
namespace {

const system_calls real_calls = {
    [](const char* path, int flags, mode_t mode) { return ::open(path, flags, mode); },
    ::close,
    ::stat,
    ::fstat,
    ::fstatfs,
    ::ftruncate,
    ::fallocate,
    ::mmap,
    ::munmap,
    ::madvise,
    ::mincore,
    ::write,
    ::pread,
    ::pwrite,
    [](int fd, int command, struct flock* lock) { return ::fcntl(fd, command, lock); },
    [](int fd, int command, int flags) { return ::fcntl(fd, command, flags); },
    ::lseek,
    ::fsync,
    ::fdatasync,
    [](int directory, const char* path, int flags, mode_t mode) {
      return ::openat(directory, path, flags, mode);
    },
    ::readlink,
    ::fchmod,
    ::linkat,
    ::renameat,
    ::unlinkat,
    ::read,
    ::fstatat,
    ::fchown,
    ::memfd_create,
};

system_calls calls = real_calls;

}  // namespace

system_calls& sys() noexcept {
  return calls;
}
const system_calls& real_system_calls() noexcept {
  return real_calls;
}

}  // namespace mapout::detail
