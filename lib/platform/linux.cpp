// Linux's answers: fallocate, O_TMPFILE and linkat, O_PATH, statfs's magic numbers,
// MADV_POPULATE_WRITE, memory grown by mremap, open file description locks, user
// extended attributes, the coarse clock, and /proc for what the kernel tells there.
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <limits>

#include "platform/platform.hpp"

// Kernel headers before Linux 5.14 lack it; an older kernel then refuses the advice with EINVAL.
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace mapout::detail::platform {
namespace {

// File systems whose pages live on another machine or process.
constexpr long remote_file_systems[] = {
    NFS_SUPER_MAGIC, SMB_SUPER_MAGIC,  SMB2_SUPER_MAGIC, CIFS_SUPER_MAGIC, FUSE_SUPER_MAGIC,
    V9FS_MAGIC,      CEPH_SUPER_MAGIC, AFS_SUPER_MAGIC,  AFS_FS_MAGIC,
};

// What x86-64 gives a process's user space: 128 TiB.
constexpr std::uint64_t user_address_space = std::uint64_t{1} << 47;

// Growing memory's largest first reservation: little of the address space, which mremap(2) grows
// past.
constexpr std::size_t memory_reservation = std::size_t{1} << 30;

short type_of(lock_kind kind) noexcept {
  switch (kind) {
    case lock_kind::shared:
      return F_RDLCK;
    case lock_kind::exclusive:
      return F_WRLCK;
    case lock_kind::unlocked:
      break;
  }
  return F_UNLCK;
}

struct flock flock_of(lock_kind kind, locked_range range) noexcept {
  struct flock lock = {};
  lock.l_type = type_of(kind);
  lock.l_whence = SEEK_SET;
  lock.l_start = range.start;
  lock.l_len = range.length;
  return lock;
}

// mapout's attributes live in the namespace every owner may write.
bool attribute_name(const char* name, char* full, std::size_t size) noexcept {
  const int length = std::snprintf(full, size, "user.%s", name);
  if (length > 0 && static_cast<std::size_t>(length) < size) return true;
  errno = ENAMETOOLONG;
  return false;
}

constexpr std::size_t longest_attribute_name = 256;

}  // namespace

void add_system_calls(system_calls& calls) noexcept {
  calls.fstatfs = ::fstatfs;
  calls.fallocate = ::fallocate;
  calls.mincore = ::mincore;
  calls.mremap = [](void* address, std::size_t length, std::size_t new_length, int flags) {
    return ::mremap(address, length, new_length, flags);
  };
}

error_cause reserve(int fd, std::uint64_t offset, std::uint64_t length) noexcept {
  if (retry_on_eintr(sys().fallocate, fd, 0, static_cast<off_t>(offset),
                     static_cast<off_t>(length)) == 0) {
    return {};
  }
  // Some file systems have no fallocate; old kernels and seccomp filters answer ENOSYS.
  return {errno == EOPNOTSUPP || errno == ENOSYS ? ENOTSUP : errno, "fallocate"};
}

error_cause create_unnamed_temporary(int directory, mode_t mode, descriptor& temporary) noexcept {
  temporary = descriptor(
      retry_on_eintr(sys().openat, directory, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, mode));
  if (temporary) return {};
  // File systems without O_TMPFILE refuse it with EOPNOTSUPP, or EISDIR on kernels that do not
  // know the flag.
  return {errno == EOPNOTSUPP || errno == EISDIR ? ENOTSUP : errno, "open temporary"};
}

bool link_unnamed(int temporary, int directory, const char* name) noexcept {
  if (sys().linkat(temporary, "", directory, name, AT_EMPTY_PATH) == 0) return true;
  // AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; the descriptor's /proc link does not.
  if (errno != ENOENT && errno != EPERM) return false;
  char path[32];
  if (!name_of_open_file(temporary, path, sizeof path)) return false;
  return sys().linkat(AT_FDCWD, path, directory, name, AT_SYMLINK_FOLLOW) == 0;
}

descriptor hold(int directory, const char* name) noexcept {
  return descriptor(
      retry_on_eintr(sys().openat, directory, name, O_PATH | O_NOFOLLOW | O_CLOEXEC, mode_t{0}));
}

bool name_of_open_file(int fd, char* path, std::size_t size) noexcept {
  const int length = std::snprintf(path, size, "/proc/self/fd/%d", fd);
  return length > 0 && static_cast<std::size_t>(length) < size;
}

descriptor open_again(int fd) noexcept {
  char path[32];
  if (!name_of_open_file(fd, path, sizeof path)) return errno = EBADF, descriptor();
  return descriptor(retry_on_eintr(sys().open, path, O_RDWR | O_CLOEXEC, mode_t{0}));
}

file_system_kind file_system_of(int fd) noexcept {
  struct statfs fs;
  if (retry_on_eintr(sys().fstatfs, fd, &fs) != 0) return file_system_kind::unknown;
  const long type = static_cast<long>(fs.f_type);
  for (long remote : remote_file_systems) {
    if (type == remote) return file_system_kind::remote;
  }
  if (type == TMPFS_MAGIC) return file_system_kind::in_memory;
  // EXT4_SUPER_MAGIC is also ext2's and ext3's number.
  return type == EXT4_SUPER_MAGIC ? file_system_kind::ext4 : file_system_kind::local;
}

// A store past the file's end, or a page the file system could not read or back.
bool is_mapping_fault(int code) noexcept {
  return code == BUS_ADRERR;
}

bool populate_for_writing(void* begin, std::size_t length) noexcept {
  return retry_on_eintr(sys().madvise, begin, length, MADV_POPULATE_WRITE) == 0;
}

std::size_t largest_memory_reservation() noexcept {
  return memory_reservation;
}

char* reserve_address_space(std::size_t size) noexcept {
  // Small pages: where a virtual machine hands freed memory back to its host, fresh huge pages
  // waited on the host, and a part took longer (docs/decisions.md).
  void* const base = sys().mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return base == MAP_FAILED ? nullptr : static_cast<char*>(base);
}

bool address_space_moves() noexcept {
  return true;
}

char* move_address_space(char* base, std::size_t size, std::size_t grown) noexcept {
  void* const moved = sys().mremap(base, size, grown, MREMAP_MAYMOVE);
  return moved == MAP_FAILED ? nullptr : static_cast<char*>(moved);
}

std::uint64_t free_address_space() noexcept {
  std::uint64_t limit = user_address_space;
  struct rlimit address_space;
  if (getrlimit(RLIMIT_AS, &address_space) == 0 && address_space.rlim_cur != RLIM_INFINITY &&
      address_space.rlim_cur < limit) {
    limit = address_space.rlim_cur;
  }
  unsigned long long pages = 0;
  if (std::FILE* statm = std::fopen("/proc/self/statm", "re")) {
    if (std::fscanf(statm, "%llu", &pages) != 1) pages = 0;
    std::fclose(statm);
  }
  const std::uint64_t used = pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  return used >= limit ? 0 : limit - used;
}

// Read from the vDSO without the time counter: a quarter of steady_clock's cost, ticks of 1-4 ms.
std::int64_t coarse_nanoseconds() noexcept {
  struct timespec now;
  ::clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

int lock_range(int fd, lock_kind kind, locked_range range, bool wait) noexcept {
  struct flock lock = flock_of(kind, range);
  return sys().lock(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &lock);
}

bool find_conflicting_lock(int fd, lock_kind kind, locked_range range,
                           locked_range& found) noexcept {
  struct flock probe = flock_of(kind, range);
  if (sys().lock(fd, F_OFD_GETLK, &probe) != 0 || probe.l_type == F_UNLCK) return false;
  found = {probe.l_start, probe.l_len};
  return true;
}

ssize_t get_attribute(int fd, const char* name, char* value, std::size_t size) noexcept {
  char full[longest_attribute_name];
  return attribute_name(name, full, sizeof full) ? ::fgetxattr(fd, full, value, size) : -1;
}

int set_attribute(int fd, const char* name, const char* value, std::size_t size) noexcept {
  char full[longest_attribute_name];
  return attribute_name(name, full, sizeof full) ? ::fsetxattr(fd, full, value, size, 0) : -1;
}

int remove_attribute(int fd, const char* name) noexcept {
  char full[longest_attribute_name];
  return attribute_name(name, full, sizeof full) ? ::fremovexattr(fd, full) : -1;
}

}  // namespace mapout::detail::platform
