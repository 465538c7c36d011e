// Deciding from fstat and fstatfs whether a descriptor can be mapped, and whether it should be.
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

// File systems where write(2) from a buffer beat the mapping, measured through mapout::ostream on
// this project's machines (perf/compare, medians of 3-5 interleaved runs, GB/s):
// - tmpfs gives a mapping one fault per 4 KiB page (no large folios), and each costs more than
//   write(2) copying the same page (MEASURING.md: 2.6-2.8 us against 1.35 us). 256 MiB, mapped
//   against buffered: tokens 0.22 vs 0.25, lines 0.40 vs 0.50, 4 KiB blocks 0.71 vs 1.18.
// - ext4 (with large folios): 256 MiB tokens 0.28 vs 0.44, bytes 0.29 vs 0.38, 4 KiB blocks 1.10
//   vs 1.78, 1 MiB blocks 1.20 vs 2.25; 1 GiB tokens 0.32 vs 0.38 (the mapping's faults cost
//   5 us of system time per page there, write(2) 2.8 us). Only 1 GiB in blocks went the other way
//   (1.35 vs 0.88), where every write(2) writer slowed alike.
// Other local file systems have not been measured: they keep the mapping.
constexpr long tmpfs_magic = 0x01021994;
constexpr long ext4_magic = 0xEF53;  // also ext2 and ext3

}  // namespace

target_kind kind_of(int fd) noexcept {
  struct stat st;
  if (sys().fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return target_kind::unmappable;
  struct statfs fs;
  if (sys().fstatfs(fd, &fs) != 0) return target_kind::unmappable;
  const long type = static_cast<long>(fs.f_type);
  for (long remote : remote_file_systems) {
    if (type == remote) return target_kind::unmappable;
  }
  return type == tmpfs_magic || type == ext4_magic ? target_kind::mappable_slower
                                                   : target_kind::mappable;
}

}  // namespace mapout::detail
