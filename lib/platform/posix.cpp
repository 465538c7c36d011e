// What POSIX.1-2008 defines, for every system that follows it: the portable entries of the
// system-call table and the answers that need nothing more.
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cstring>

#include "platform/platform.hpp"

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

bool fdopen_fits_descriptor() noexcept {
  return true;
}

// glibc's and the BSDs' fopen("a") seek to the end as they open.
bool append_starts_at_end() noexcept {
  return true;
}

namespace {

// ",ccs=" names the character set glibc's wide stream writes, in any spelling glibc takes ("utf8",
// "UTF-8"); only UTF-8's text is the bytes as written.
bool character_set_is_bytes(const char* mode) noexcept {
  const char* set = std::strstr(mode, ",ccs=");
  if (set == nullptr) return true;
  const char* const expected = "UTF8";
  std::size_t matched = 0;
  for (set += 5; *set != '\0' && *set != ','; ++set) {
    if (*set == '-' || *set == '_') continue;
    const char upper = *set >= 'a' && *set <= 'z' ? static_cast<char>(*set - 'a' + 'A') : *set;
    if (matched == 4 || upper != expected[matched]) return false;
    ++matched;
  }
  return matched == 4;
}

}  // namespace

// glibc's: 'r', 'w' or 'a', then fopen reads six letters, up to a ',', of which '+' and 'x'
// count; fdopen reads four, of which only '+' counts. Other letters are ignored.
bool read_open_mode(const char* mode, bool descriptor, open_mode_letters& letters) noexcept {
  if (mode[0] != 'r' && mode[0] != 'w' && mode[0] != 'a') return false;
  letters = {};
  letters.access = mode[0];
  const int last = descriptor ? 4 : 6;
  for (int at = 1; at <= last && mode[at] != '\0' && (descriptor || mode[at] != ','); ++at) {
    if (mode[at] == '+') {
      letters.update = true;
      if (descriptor) break;
    }
    if (mode[at] == 'x' && !descriptor) letters.exclusive = true;
  }
  letters.bytes = descriptor || character_set_is_bytes(mode);
  return true;
}

// glibc's, which mapout_printf writes.
printf_dialect c_printf_dialect() noexcept {
  return {};
}

bool cuts_under_mapped_views() noexcept {
  return true;
}

bool make_usable(char* begin, std::size_t length) noexcept {
  return sys().mprotect(begin, length, PROT_READ | PROT_WRITE) == 0;
}

bool release_address_space(char* base, std::size_t size) noexcept {
  return sys().munmap(base, size) == 0;
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

bool at_fork(void (*prepare)(), void (*parent)(), void (*child)()) noexcept {
  return ::pthread_atfork(prepare, parent, child) == 0;
}

bool owned_by_this_user(const struct stat& file) noexcept {
  return file.st_uid == ::geteuid();
}

}  // namespace mapout::detail::platform
