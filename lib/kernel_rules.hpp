// The kernel's rules that mapout applies itself where it cannot let an open(2) check them: when a
// final symbolic link names no file yet, when a rename would replace a file in a sticky directory,
// and the bits a new file gets.
#pragma once

#include <sys/stat.h>

namespace mapout::detail {

// Whether fs.protected_symlinks lets this process follow `link` (its lstat), which is in
// `directory`: the link is its own or its directory's owner's, or the directory is not both sticky
// and world-writable. An unreadable setting counts as on.
bool may_follow(const struct stat& link, const struct stat& directory) noexcept;

// Whether rename(2) may replace `file` in `directory`: in a sticky directory only its owner, the
// directory's owner or a holder of CAP_FOWNER may.
bool may_replace(const struct stat& file, const struct stat& directory) noexcept;

// The bits a new file opened with 0666 gets: 0666 & ~umask, the umask read from /proc (reading it
// with umask(2) would change it for other threads meanwhile); 0600 when it cannot be read.
mode_t new_file_mode() noexcept;

}  // namespace mapout::detail
