// The entries of the system-call table that only some systems make: each system's file fills its
// own (add_system_calls) and is the only caller; on every other system they stay null. Types
// only, so that each system compiles the one table and the tests name the same entries.
#pragma once

#include <sys/types.h>

#include <cstddef>

// Linux's, for fstatfs; only linux.cpp includes its definition.
struct statfs;

namespace mapout::detail::platform {

struct own_calls {
  // Linux's: the file system's magic number, reserving blocks (Windows' too, as mode 0), and
  // growing memory by moving its pages.
  int (*fstatfs)(int fd, struct statfs* st);
  int (*fallocate)(int fd, int mode, off_t offset, off_t length);
  void* (*mremap)(void* address, std::size_t length, std::size_t new_length, int flags);
  // Windows': VirtualAlloc and VirtualFree, null with errno set on failure, or 0 and -1.
  void* (*virtual_alloc)(void* address, std::size_t size, unsigned long type,
                         unsigned long protection);
  int (*virtual_free)(void* address, std::size_t size, unsigned long type);
  // The portable build's, where the system has it: reserving blocks. Returns the error, not -1.
  int (*posix_fallocate)(int fd, off_t offset, off_t length);
  // The portable build's: a second descriptor of fd's open file description, closed at exec
  // (fcntl F_DUPFD_CLOEXEC), where no name opens the file again.
  int (*duplicate)(int fd);
};

}  // namespace mapout::detail::platform
