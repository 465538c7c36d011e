// Pretending, through the system-call seam, that every file lives on a given file system type:
// strategy::automatic chooses by file system, and the tests must reach each choice on whatever
// file system their temporary directory is.
#pragma once

#ifdef _WIN32
namespace mapout::test {
// Windows's strategy::automatic does not ask the file system's type: there is nothing to pretend.
// User-provided, so that a guard variable declared and never named is not an unused variable.
struct on_unmeasured_file_system {
  on_unmeasured_file_system() {}
};
}  // namespace mapout::test
#else
#include <linux/magic.h>
#include <sys/statfs.h>

#include "platform/sys.hpp"
#include "system_call_override.hpp"

namespace mapout::test {

// statfs(2) f_type values.
constexpr long ext4_magic = EXT4_SUPER_MAGIC;
constexpr long tmpfs_magic = TMPFS_MAGIC;
// A local file system whose speed mapout has not measured, where automatic keeps the mapping.
constexpr long xfs_magic = XFS_SUPER_MAGIC;
// File systems whose pages reach another machine or process late.
constexpr long nfs_magic = NFS_SUPER_MAGIC;
constexpr long fuse_magic = FUSE_SUPER_MAGIC;

// While alive, fstatfs reports `Magic` as every file's type.
template <long Magic>
class file_system_type {
 public:
  file_system_type()
      : fstatfs_([](int fd, struct statfs* fs) {
          const int result = detail::real_system_calls().fstatfs(fd, fs);
          if (result == 0) fs->f_type = Magic;
          return result;
        }) {}

 private:
  system_call_override<&detail::system_calls::fstatfs> fstatfs_;
};

using on_unmeasured_file_system = file_system_type<xfs_magic>;

}  // namespace mapout::test
#endif  // _WIN32
