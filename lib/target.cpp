// Opening: the rows of the std::basic_filebuf::open table that contain out or app, and what
// fstat and fstatfs say of the target.
#include "target.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include "sys.hpp"

namespace mapout::detail {
namespace {
// File systems whose pages live on another machine or process.
constexpr long remote_file_systems[] = {
    NFS_SUPER_MAGIC, SMB_SUPER_MAGIC,  SMB2_SUPER_MAGIC, CIFS_SUPER_MAGIC, FUSE_SUPER_MAGIC,
    V9FS_MAGIC,      CEPH_SUPER_MAGIC, AFS_SUPER_MAGIC,  AFS_FS_MAGIC,
};

}  // namespace

bool to_open_flags(std::ios_base::openmode mode, open_flags& flags) noexcept {
  using std::ios_base;
  const ios_base::openmode row =
      mode & (ios_base::in | ios_base::out | ios_base::trunc | ios_base::app);
  flags = {};
  flags.at_end = (mode & ios_base::ate) != 0;
  if (row == ios_base::out || row == (ios_base::out | ios_base::trunc)) {
    flags.creation = O_CREAT | O_TRUNC;  // "w"
  } else if (row == ios_base::app || row == (ios_base::out | ios_base::app)) {
    flags.creation = O_CREAT | O_APPEND;  // "a"
    flags.append = true;
    // glibc's fopen("a") starts at the end, so std::filebuf's tellp reports the file's size
    // before the first write; "a+" starts at 0.
    flags.at_end = true;
  } else if (row == (ios_base::out | ios_base::in)) {
    flags.read = true;  // "r+": the file must exist and keeps its bytes
  } else if (row == (ios_base::out | ios_base::in | ios_base::trunc)) {
    flags.creation = O_CREAT | O_TRUNC;  // "w+"
    flags.read = true;
  } else if (row == (ios_base::in | ios_base::app) ||
             row == (ios_base::out | ios_base::in | ios_base::app)) {
    flags.creation = O_CREAT | O_APPEND;  // "a+"
    flags.read = true;
    flags.append = true;
  } else {
    return false;
  }
  return true;
}

const char* replacement_refusal(const options& opts, const open_flags& flags) noexcept {
  if (flags.append) {
    return opts.atomic ? "atomic needs a mode that truncates (app given)"
                       : "write_if_changed needs a mode that truncates (app given)";
  }
  return opts.atomic ? "atomic needs a mode that truncates (in|out without trunc given)"
                     : "write_if_changed needs a mode that truncates (in|out without trunc given)";
}

target_kind kind_of(int fd) noexcept {
  struct stat st;
  if (sys().fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return target_kind::unmappable;
  struct statfs fs;
  if (retry_on_eintr(sys().fstatfs, fd, &fs) != 0) return target_kind::unmappable;
  const long type = static_cast<long>(fs.f_type);
  for (long remote : remote_file_systems) {
    if (type == remote) return target_kind::unmappable;
  }
  // Where write(2) from a buffer beat the mapping (docs/decisions.md, "automatic"); EXT4 is also
  // ext2's and ext3's number. Other local file systems have not been measured: they map.
  return type == TMPFS_MAGIC || type == EXT4_SUPER_MAGIC ? target_kind::buffer_wins
                                                         : target_kind::mapping_wins;
}

}  // namespace mapout::detail
