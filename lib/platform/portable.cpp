// The answers of a system that offers POSIX.1-2008 and the few calls macOS and the BSDs share
// (madvise, mincore), for every system without a file of its own here. What they lack is refused
// with ENOTSUP where the shared code has a fallback, and named in docs/platforms.md.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <limits>

#include "platform/platform.hpp"

namespace mapout::detail::platform {
namespace {

// glibc's mincore takes an unsigned char vector, macOS's and the BSDs' a char one.
template <class Address, class Vector>
auto mincore_of(int (*)(Address, std::size_t, Vector*)) noexcept {
  return [](void* address, std::size_t length, unsigned char* resident) {
    return ::mincore(static_cast<Address>(address), length, reinterpret_cast<Vector*>(resident));
  };
}

// Growing memory's largest reservation: a 64-bit process has address space for many parts this
// large; under a limit a share of what is left, and a part outgrowing it is copied into a larger
// one (growing_memory.cpp).
constexpr std::size_t memory_reservation =
    sizeof(void*) >= 8 ? static_cast<std::size_t>(std::uint64_t{1} << 36) : std::size_t{1} << 28;

}  // namespace

void add_system_calls(system_calls& calls) noexcept {
  calls.mincore = mincore_of(::mincore);
  calls.duplicate = [](int fd) { return ::fcntl(fd, F_DUPFD_CLOEXEC, 0); };
  // macOS has no posix_fallocate: reserve refuses there.
#if defined(_POSIX_ADVISORY_INFO) && _POSIX_ADVISORY_INFO > 0
  calls.posix_fallocate = ::posix_fallocate;
#endif
}

error_cause reserve(int fd, std::uint64_t offset, std::uint64_t length) noexcept {
  if (sys().posix_fallocate == nullptr) return {ENOTSUP, "posix_fallocate"};
  int error = 0;
  do {
    error = sys().posix_fallocate(fd, static_cast<off_t>(offset), static_cast<off_t>(length));
  } while (error == EINTR);
  if (error == 0) return {};
  errno = error;
  // A file system that cannot reserve answers EINVAL on FreeBSD (ZFS), EOPNOTSUPP or ENODEV.
  return {error == EINVAL || error == EOPNOTSUPP || error == ENODEV ? ENOTSUP : error,
          "posix_fallocate"};
}

// POSIX makes no file without a name: the shared code makes a named temporary.
error_cause create_unnamed_temporary(int, mode_t, descriptor& temporary) noexcept {
  temporary = descriptor();
  return {ENOTSUP, "open temporary"};
}

bool link_unnamed(int, int, const char*) noexcept {
  errno = ENOTSUP;
  return false;
}

// No open without access: for reading, or for writing where the file cannot be read (an
// executable then cannot be held while it runs). O_NONBLOCK: a FIFO put there must not block.
descriptor hold(int directory, const char* name) noexcept {
  constexpr int common = O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
  descriptor held(retry_on_eintr(sys().openat, directory, name, O_RDONLY | common, mode_t{0}));
  if (held || errno != EACCES) return held;
  return descriptor(retry_on_eintr(sys().openat, directory, name, O_WRONLY | common, mode_t{0}));
}

// POSIX names no open file; /dev/fd, where it exists, shares the open file description.
bool name_of_open_file(int, char*, std::size_t) noexcept {
  return false;
}

// The duplicate shares fd's offset, which its caller leaves to the new descriptor meanwhile.
descriptor open_again(int fd) noexcept {
  return descriptor(sys().duplicate(fd));
}

std::size_t largest_memory_reservation() noexcept {
  return memory_reservation;
}

char* reserve_address_space(std::size_t size) noexcept {
  void* const base = sys().mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANON, -1, 0);
  return base == MAP_FAILED ? nullptr : static_cast<char*>(base);
}

// POSIX moves no mapping: the reservation is all the memory there is.
bool address_space_moves() noexcept {
  return false;
}

char* move_address_space(char*, std::size_t, std::size_t) noexcept {
  errno = ENOTSUP;
  return nullptr;
}

// POSIX's statvfs tells no file system's kind, nor whether it is remote.
file_system_kind file_system_of(int) noexcept {
  return file_system_kind::unnamed;
}

// A store past the file's end; FreeBSD reports it as an object error. The server still checks
// that the address is in a mapping of mapout's.
bool is_mapping_fault(int code) noexcept {
  return code == BUS_ADRERR || code == BUS_OBJERR;
}

// Nothing populates a shared mapping for writing ahead: the stores fault the pages in.
bool populate_for_writing(void*, std::size_t) noexcept {
  errno = ENOTSUP;
  return false;
}

// The limit alone: POSIX tells nothing of what the process has mapped already.
std::uint64_t free_address_space() noexcept {
  struct rlimit address_space;
  if (getrlimit(RLIMIT_AS, &address_space) == 0 && address_space.rlim_cur != RLIM_INFINITY) {
    return static_cast<std::uint64_t>(address_space.rlim_cur);
  }
  return std::numeric_limits<std::uint64_t>::max();
}

std::int64_t coarse_nanoseconds() noexcept {
  struct timespec now;
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

// POSIX record locks belong to the process: two writers of one process would not see each other,
// and closing any descriptor of the file drops them all. flock(2) locks the whole file and
// cannot be asked who holds it. So none: each writer behaves as alone.
int lock_range(int, lock_kind, locked_range, bool) noexcept {
  errno = ENOTSUP;
  return -1;
}

bool find_conflicting_lock(int, lock_kind, locked_range, locked_range&) noexcept {
  return false;
}

// Extended attributes are no POSIX interface: macOS's and FreeBSD's differ in every call.
ssize_t get_attribute(int, const char*, char*, std::size_t) noexcept {
  errno = ENOTSUP;
  return -1;
}

int set_attribute(int, const char*, const char*, std::size_t) noexcept {
  errno = ENOTSUP;
  return -1;
}

int remove_attribute(int, const char*) noexcept {
  errno = ENOTSUP;
  return -1;
}

}  // namespace mapout::detail::platform
