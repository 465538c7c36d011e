// The one seam for system calls: lib/ calls the kernel only through mapout::detail::sys(), so a
// test can replace any entry to make that call fail on purpose.
#pragma once

#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>

#include <cstddef>

// Kernel headers before Linux 5.14 lack it; an older kernel then refuses the advice with EINVAL.
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace mapout::detail {

// Each entry behaves like the system call it is named for, retried on EINTR where that is safe
// (never for close: Linux releases the descriptor even when close fails).
struct system_calls {
  int (*open)(const char* path, int flags, mode_t mode);
  int (*close)(int fd);
  int (*stat)(const char* path, struct stat* st);
  int (*fstat)(int fd, struct stat* st);
  int (*fstatfs)(int fd, struct statfs* st);
  int (*ftruncate)(int fd, off_t length);
  int (*fallocate)(int fd, int mode, off_t offset, off_t length);
  void* (*mmap)(void* addr, std::size_t length, int prot, int flags, int fd, off_t offset);
  int (*munmap)(void* addr, std::size_t length);
  int (*madvise)(void* addr, std::size_t length, int advice);
  ssize_t (*write)(int fd, const void* data, std::size_t size);
  off_t (*lseek)(int fd, off_t offset, int whence);
  int (*fsync)(int fd);
};

// The table in use; tests swap entries and restore them.
system_calls& sys() noexcept;
// The table of real calls, for restoring.
const system_calls& real_system_calls() noexcept;

}  // namespace mapout::detail
