// Replacing a file through a temporary in its directory: made when the output opens, given the
// target's name by rename(2) when it closes well, dropped otherwise.
#pragma once

#include <sys/stat.h>

#include <memory>
#include <string>

#include "platform/sys.hpp"

namespace mapout::detail {

class replacement {
 public:
  // Opens the file `path` names for writing as std::ofstream would, but creating and truncating
  // nothing, so that the kernel decides (permissions, and rules such as Linux's protected links
  // and files) and its errno is the open's; refuses what rename(2) will refuse; and makes a
  // temporary in the file's directory, open for reading and writing, in `temporary`: unnamed
  // where the system and file system can, ".<name>.mapout-XXXXXX" otherwise, never more
  // accessible than the final file.
  static error_cause create(const char* path, std::unique_ptr<replacement>& out,
                            descriptor& temporary) noexcept;
  replacement(const replacement&) = delete;
  replacement& operator=(const replacement&) = delete;
  // Removes a named temporary that was neither committed nor discarded.
  ~replacement();

  // The target's stat at open, when it exists.
  bool target_exists() const noexcept { return target_exists_; }
  const struct stat& target() const noexcept { return target_; }
  // The file that is replaced: `path` with its final symbolic links followed.
  const char* target_path() const noexcept { return target_path_.c_str(); }
  // Whether the target's name still names the file opened at open, and nothing changed it since
  // (size, mtime and ctime as they were).
  bool target_untouched() const noexcept;

  // Gives the temporary its final owner and bits: a replaced file's owner and group where the
  // writer may give them (root), and its bits, set-ID ones only with that owner and group; a new
  // file 0666 & ~umask.
  error_cause settle(int temporary) noexcept;
  // Gives an unnamed temporary a name in the directory, so that it can be renamed. Its
  // descriptor may be closed after this.
  error_cause link(int temporary) noexcept;
  // Renames the temporary over the target; with `durable`, fsyncs the directory after. On failure
  // the temporary's name is removed and the target is as it was.
  error_cause rename(bool durable) noexcept;
  // Removes the temporary's name, if it has one; an unnamed one goes with its last descriptor.
  error_cause discard() noexcept;

 private:
  replacement() = default;
  // Finds the directory and name of the file the kernel opened as `opened` (from target_path_), and
  // checks what the kernel will check when it is replaced.
  error_cause find_target(const descriptor& opened) noexcept;
  error_cause create_temporary(descriptor& temporary) noexcept;
  // Creates (or, for a link to an unnamed temporary, makes) the name with `make`, trying fresh
  // random suffixes while the name exists.
  template <class Make>
  error_cause make_unique_name(Make make) noexcept;

  descriptor directory_;
  std::string target_path_;
  std::string target_name_;     // the target's name in directory_
  std::string temporary_name_;  // empty while the temporary has no name
  bool target_exists_ = false;
  struct stat target_ = {};
  descriptor target_file_;  // platform::hold, so that its inode is not reused
  mode_t new_mode_ = 0;     // a new file's bits; 0 where an unnamed temporary took the umask
};

}  // namespace mapout::detail
