// Replacing a file through a temporary in its directory: made when the output opens, given the
// target's name by rename(2) when it closes well, dropped otherwise.
#pragma once

#include <sys/stat.h>

#include <memory>
#include <string>

#include "sys.hpp"

namespace mapout::detail {

class replacement {
 public:
  // Opens the directory of the file `path` names (a final symbolic link followed), and makes a
  // temporary there, open for reading and writing, in `temporary`: unnamed (O_TMPFILE) where the
  // file system can, ".<name>.mapout-XXXXXX" otherwise. A temporary that replaces a regular file
  // gets its permission bits.
  static failure create(const char* path, std::unique_ptr<replacement>& out,
                        descriptor& temporary) noexcept;
  replacement(const replacement&) = delete;
  replacement& operator=(const replacement&) = delete;
  // Removes a named temporary that was neither committed nor discarded.
  ~replacement();

  // The target's stat, when it exists.
  bool target_exists() const noexcept { return target_exists_; }
  const struct stat& target() const noexcept { return target_; }
  // The file that is replaced: `path` with its final symbolic links followed.
  const char* target_path() const noexcept { return target_path_.c_str(); }

  // Gives an unnamed temporary a name in the directory, so that it can be renamed. Its
  // descriptor may be closed after this.
  failure link(int temporary) noexcept;
  // Renames the temporary over the target; with `durable`, fsyncs the directory after. On failure
  // the temporary's name is removed and the target is as it was.
  failure rename(bool durable) noexcept;
  // Removes the temporary's name, if it has one; an unnamed one goes with its last descriptor.
  failure discard() noexcept;

 private:
  replacement() = default;
  // Creates (or, for a link to an unnamed temporary, makes) the name with `make`, trying fresh
  // random suffixes while the name exists.
  template <class Make>
  failure make_unique_name(Make make) noexcept;

  descriptor directory_;
  std::string target_path_;
  std::string target_name_;     // the target's name in directory_
  std::string temporary_name_;  // empty while the temporary has no name
  bool target_exists_ = false;
  struct stat target_ = {};
};

}  // namespace mapout::detail
