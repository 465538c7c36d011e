// The real system calls behind mapout::detail::sys().
#include "sys.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

namespace mapout::detail {
namespace {

template <class Call>
auto retry_on_eintr(Call call) {
  for (;;) {
    auto result = call();
    if (result != -1 || errno != EINTR) return result;
  }
}

const system_calls real_calls = {
    [](const char* path, int flags, mode_t mode) {
      return retry_on_eintr([&] { return ::open(path, flags, mode); });
    },
    [](int fd) { return ::close(fd); },
    [](const char* path, struct stat* st) { return ::stat(path, st); },
    [](int fd, struct stat* st) { return ::fstat(fd, st); },
    [](int fd, struct statfs* st) { return retry_on_eintr([&] { return ::fstatfs(fd, st); }); },
    [](int fd, off_t length) { return retry_on_eintr([&] { return ::ftruncate(fd, length); }); },
    [](int fd, int mode, off_t offset, off_t length) {
      return retry_on_eintr([&] { return ::fallocate(fd, mode, offset, length); });
    },
    [](void* addr, std::size_t length, int prot, int flags, int fd, off_t offset) {
      return ::mmap(addr, length, prot, flags, fd, offset);
    },
    [](void* addr, std::size_t length) { return ::munmap(addr, length); },
    [](void* addr, std::size_t length, int advice) {
      return retry_on_eintr([&] { return ::madvise(addr, length, advice); });
    },
    [](int fd, const void* data, std::size_t size) {
      return retry_on_eintr([&] { return ::write(fd, data, size); });
    },
    [](int fd, void* data, std::size_t size, off_t offset) {
      return retry_on_eintr([&] { return ::pread(fd, data, size, offset); });
    },
    [](int fd, const void* data, std::size_t size, off_t offset) {
      return retry_on_eintr([&] { return ::pwrite(fd, data, size, offset); });
    },
    [](int fd, int command, struct flock* lock) {
      return retry_on_eintr([&] { return ::fcntl(fd, command, lock); });
    },
    [](int fd, off_t offset, int whence) { return ::lseek(fd, offset, whence); },
    [](int fd) { return retry_on_eintr([&] { return ::fsync(fd); }); },
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
