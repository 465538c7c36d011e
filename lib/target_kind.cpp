// Deciding from fstat and fstatfs whether a descriptor can be mapped.
#include "target_kind.hpp"

#include <sys/stat.h>
#include <sys/statfs.h>

#include "sys.hpp"

namespace mapout::detail {
namespace {

// statfs(2) f_type values of file systems whose pages live on another machine or process.
constexpr long remote_file_systems[] = {
    0x6969,      // NFS
    0x517B,      // SMB
    0xFE534D42,  // SMB2
    0xFF534D42,  // CIFS
    0x65735546,  // FUSE
    0x01021997,  // 9p
    0x00C36400,  // Ceph
    0x5346414F,  // AFS
    0x6B414653,  // kAFS
};

}  // namespace

bool can_map(int fd) noexcept {
  struct stat st;
  if (sys().fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return false;
  struct statfs fs;
  if (sys().fstatfs(fd, &fs) != 0) return false;
  for (long type : remote_file_systems) {
    if (static_cast<long>(fs.f_type) == type) return false;
  }
  return true;
}

}  // namespace mapout::detail
