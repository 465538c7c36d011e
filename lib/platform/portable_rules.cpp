// The rules for following links, replacing in sticky directories and new files' bits, as POSIX
// and the BSDs' kernels apply them, with what POSIX lets a process ask.
#include <sys/stat.h>
#include <unistd.h>

#include <mutex>

#include "platform/platform.hpp"

namespace mapout::detail::platform {

// No system but Linux refuses to follow a link in a sticky directory.
bool may_follow(const struct stat&, const struct stat&) noexcept {
  return true;
}

// In a sticky directory only the file's owner, the directory's owner or the superuser.
bool may_replace(const struct stat& file, const struct stat& directory) noexcept {
  if ((directory.st_mode & S_ISVTX) == 0) return true;
  const uid_t self = ::geteuid();
  return file.st_uid == self || directory.st_uid == self || self == 0;
}

// umask(2) is the only way to read the mask, and it sets one meanwhile: the strictest, so that a
// file another thread makes in between gets fewer bits, never more. The mutex keeps mapout's own
// threads from reading that one.
mode_t new_file_mode() noexcept {
  static std::mutex reading;
  const std::lock_guard<std::mutex> lock(reading);
  const mode_t mask = ::umask(0777);
  ::umask(mask);
  return 0666 & ~mask;
}

}  // namespace mapout::detail::platform
