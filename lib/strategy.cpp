// The strategy: the file systems' verdicts, the backend chosen at open, and the buffer's
// hand-over to a mapping.
#include "strategy.hpp"

#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "buffered_backend.hpp"
#include "mapped_backend.hpp"
#include "sys.hpp"

namespace mapout::detail {
namespace {

// File systems whose pages live on another machine or process.
constexpr long remote_file_systems[] = {
    NFS_SUPER_MAGIC, SMB_SUPER_MAGIC,  SMB2_SUPER_MAGIC, CIFS_SUPER_MAGIC, FUSE_SUPER_MAGIC,
    V9FS_MAGIC,      CEPH_SUPER_MAGIC, AFS_SUPER_MAGIC,  AFS_FS_MAGIC,
};

}  // namespace

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

failure open_backend(open_file& file, const opening& how, const options& opts,
                     std::unique_ptr<backend>& out) noexcept {
  struct stat st;
  if (sys().fstat(file.fd.get(), &st) != 0) return errno_failure("fstat");
  const target_kind kind = how.may_map ? kind_of(file.fd.get()) : target_kind::unmappable;
  const auto size = static_cast<std::uint64_t>(st.st_size);
  const std::uint64_t start_at = how.at_end ? size : how.position;
  if (opts.strategy == strategy::mapped && !how.append) {
    if (kind == target_kind::unmappable) return {ENODEV, "map"};
    return mapped_backend::create(file, size, start_at, opts, out);
  }
  // A flush that shows the bytes costs a write(2) in the buffer, two size changes on the mapping.
  const bool automatic = opts.strategy == strategy::automatic && !opts.flush_publishes;
  const handover when(automatic && kind == target_kind::mapping_wins,
                      automatic && kind != target_kind::unmappable);
  if (how.at_end && sys().lseek(file.fd.get(), 0, SEEK_END) < 0 && errno != ESPIPE) {
    return errno_failure("lseek");
  }
  // A shared log opened for appending keeps std::ofstream's flush, like a pipe or a terminal.
  const bool write_on_flush = !S_ISREG(st.st_mode) || how.append;
  return buffered_backend::create(file, opts.buffer_size, write_on_flush, !write_on_flush, size,
                                  start_at, when, out);
}

void hand_over(open_file& file, const options& opts, std::unique_ptr<backend>& in_use) noexcept {
  if (in_use->publish(in_use->current().begin)) return;
  const std::int64_t position = in_use->tell(in_use->current().begin);
  struct stat st;
  std::unique_ptr<backend> mapped;
  if (position >= 0 && sys().fstat(file.fd.get(), &st) == 0 &&
      !mapped_backend::create(file, static_cast<std::uint64_t>(st.st_size),
                              static_cast<std::uint64_t>(position), opts, mapped)) {
    in_use = std::move(mapped);
  }
}

}  // namespace mapout::detail
