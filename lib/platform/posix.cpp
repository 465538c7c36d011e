// What POSIX.1-2008 defines, for every system that follows it: the portable entries of the
// system-call table and the answers that need nothing more.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
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

bool same_version(const struct stat& now, const struct stat& then) noexcept {
  return now.st_dev == then.st_dev && now.st_ino == then.st_ino && now.st_size == then.st_size &&
         now.st_mtim.tv_sec == then.st_mtim.tv_sec && now.st_mtim.tv_nsec == then.st_mtim.tv_nsec &&
         now.st_ctim.tv_sec == then.st_ctim.tv_sec && now.st_ctim.tv_nsec == then.st_ctim.tv_nsec;
}

}  // namespace mapout::detail::platform
