// What POSIX.1-2008 defines, for every system that follows it: the portable entries of the
// system-call table and the answers that need nothing more.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "platform.hpp"

const std::error_category& mapout::detail::errno_category() noexcept {
  return std::system_category();
}

namespace mapout::detail::platform {

void add_posix_calls(system_calls& calls) noexcept {
  calls.open = [](const char* path, int flags, mode_t mode) { return ::open(path, flags, mode); };
  calls.close = ::close;
  calls.stat = ::stat;
  calls.fstat = ::fstat;
  calls.ftruncate = ::ftruncate;
  calls.mmap = ::mmap;
  calls.munmap = ::munmap;
  calls.madvise = ::madvise;
  calls.mprotect = ::mprotect;
  calls.write = ::write;
  calls.pread = ::pread;
  calls.pwrite = ::pwrite;
  calls.lock = [](int fd, int command, struct flock* lock) { return ::fcntl(fd, command, lock); };
  calls.status_flags = [](int fd, int command, int flags) { return ::fcntl(fd, command, flags); };
  calls.lseek = ::lseek;
  calls.fsync = ::fsync;
  calls.fdatasync = ::fdatasync;
  calls.openat = [](int directory, const char* path, int flags, mode_t mode) {
    return ::openat(directory, path, flags, mode);
  };
  calls.readlink = ::readlink;
  calls.fchmod = ::fchmod;
  calls.linkat = ::linkat;
  calls.renameat = ::renameat;
  calls.unlinkat = ::unlinkat;
  calls.read = ::read;
  calls.fstatat = ::fstatat;
  calls.fchown = ::fchown;
}

std::string path_text(const std::filesystem::path& path) {
  return path.native();
}

std::string path_shown(const std::filesystem::path& path) {
  return path.native();
}

bool cuts_under_mapped_views() noexcept {
  return true;
}

namespace {

struct file_times {
  struct timespec modified;
  struct timespec changed;
};

// POSIX.1-2008 names them st_mtim and st_ctim, macOS st_mtimespec and st_ctimespec.
template <class Stat>
auto times_of(const Stat& st, int) noexcept -> decltype(file_times{st.st_mtim, st.st_ctim}) {
  return {st.st_mtim, st.st_ctim};
}
template <class Stat>
auto times_of(const Stat& st, long) noexcept
    -> decltype(file_times{st.st_mtimespec, st.st_ctimespec}) {
  return {st.st_mtimespec, st.st_ctimespec};
}

bool same_time(const struct timespec& a, const struct timespec& b) noexcept {
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

}  // namespace

bool same_version(const struct stat& now, const struct stat& then) noexcept {
  const file_times a = times_of(now, 0);
  const file_times b = times_of(then, 0);
  return now.st_dev == then.st_dev && now.st_ino == then.st_ino && now.st_size == then.st_size &&
         same_time(a.modified, b.modified) && same_time(a.changed, b.changed);
}

}  // namespace mapout::detail::platform
