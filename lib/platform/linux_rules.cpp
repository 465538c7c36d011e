// Linux's rules for following links, replacing in sticky directories and new files' bits, as the
// kernel applies them, with the settings and credentials /proc shows.
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "platform/platform.hpp"

namespace mapout::detail::platform {
namespace {

constexpr int cap_fowner = 3;

// The start of a small file of /proc, NUL-terminated; false when it cannot be read.
bool read_proc(const char* path, char* text, std::size_t size) noexcept {
  const descriptor file(retry_on_eintr(sys().open, path, O_RDONLY | O_CLOEXEC, mode_t{0}));
  if (!file) return false;
  std::size_t length = 0;
  while (length + 1 < size) {
    const ssize_t got = retry_on_eintr(sys().read, file.get(), text + length, size - 1 - length);
    if (got < 0) return false;
    if (got == 0) break;
    length += static_cast<std::size_t>(got);
  }
  text[length] = '\0';
  return true;
}

// The number after "<field>:" in /proc/self/status, in `base`; false when there is none.
bool status_field(const char* field, int base, unsigned long long& value) noexcept {
  char status[8192];
  if (!read_proc("/proc/self/status", status, sizeof status)) return false;
  for (const char* line = status; *line != '\0';) {
    const std::size_t length = std::strlen(field);
    if (std::strncmp(line, field, length) == 0 && line[length] == ':') {
      char* end = nullptr;
      value = std::strtoull(line + length + 1, &end, base);
      return end != line + length + 1;
    }
    const char* next = std::strchr(line, '\n');
    if (next == nullptr) break;
    line = next + 1;
  }
  return false;
}

bool holds_cap_fowner() noexcept {
  unsigned long long effective = 0;
  return status_field("CapEff", 16, effective) && (effective >> cap_fowner & 1) != 0;
}

bool protected_symlinks() noexcept {
  char setting[16];
  return !read_proc("/proc/sys/fs/protected_symlinks", setting, sizeof setting) ||
         setting[0] != '0';
}

}  // namespace

// fs.protected_symlinks: the link is its own or its directory's owner's, or the directory is not
// both sticky and world-writable. An unreadable setting counts as on.
bool may_follow(const struct stat& link, const struct stat& directory) noexcept {
  if (link.st_uid == ::geteuid() || directory.st_uid == link.st_uid) return true;
  if ((directory.st_mode & (S_ISVTX | S_IWOTH)) != (S_ISVTX | S_IWOTH)) return true;
  return !protected_symlinks();
}

// In a sticky directory only the file's owner, the directory's owner or a holder of CAP_FOWNER.
bool may_replace(const struct stat& file, const struct stat& directory) noexcept {
  if ((directory.st_mode & S_ISVTX) == 0) return true;
  const uid_t self = ::geteuid();
  return file.st_uid == self || directory.st_uid == self || holds_cap_fowner();
}

// The umask read from /proc: umask(2) would change it for other threads meanwhile. 0600 when it
// cannot be read.
mode_t new_file_mode() noexcept {
  unsigned long long umask = 0;
  if (!status_field("Umask", 8, umask)) return 0600;
  return 0666 & ~static_cast<mode_t>(umask);
}

}  // namespace mapout::detail::platform
