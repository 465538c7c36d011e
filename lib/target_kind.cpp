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

// tmpfs gives a mapping one fault per 4 KiB page (no large folios), and each costs more than
// write(2) copying the same page: through mapout::ostream at 256 MiB (perf/compare, medians of
// 5 interleaved runs, user + sys), mapped against buffered took 1180 vs 1083 ms for tokens,
// 651 vs 510 ms for generated lines and 410 vs 262 ms for 4 KiB blocks, with the sys time of
// 4 KiB blocks at 368 vs 196 ms. MEASURING.md: 2.6-2.8 us per mapped page, 1.35 us via write(2).
constexpr long tmpfs_magic = 0x01021994;

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
  return type == tmpfs_magic ? target_kind::mappable_slower : target_kind::mappable;
}

}  // namespace mapout::detail
