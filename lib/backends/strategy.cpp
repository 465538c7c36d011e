// The strategy: the file systems' verdicts, the backend chosen at open, and the buffer's
// hand-over to a mapping.
#include "backends/strategy.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "backends/buffered_backend.hpp"
#include "backends/mapped_backend.hpp"
#include "backends/tail_file.hpp"
#include "mapping/mappable.hpp"
#include "platform/platform.hpp"
#include "platform/sys.hpp"

namespace mapout::detail {
namespace {

// Where flush_publishes' flushes keep what they do not publish (tail_file.hpp): for a regular file
// opened by path and written in place, once publishes are spaced or crash_safe keeps every store.
// A buffer of `capacity` bytes whose first byte goes to `start_at` of a file of `st`'s size; null
// where every flush writes, or no tail can be made.
std::unique_ptr<tail_file> tail_for(const open_file& file, const opening& how, const options& opts,
                                    const struct stat& st, bool positioned, std::size_t capacity,
                                    std::uint64_t start_at) noexcept {
  if (!opts.flush_publishes || how.path == nullptr || how.replaces || how.flush_writes ||
      !S_ISREG(st.st_mode) || (opts.publish_every.count() <= 0 && !opts.crash_safe)) {
    return nullptr;
  }
  const std::uint32_t flags =
      (positioned ? 0 : tail_header::appends) | (opts.crash_safe ? tail_header::whole_buffer : 0);
  return tail_file::create(how.path, file.fd.get(), capacity, flags, start_at,
                           static_cast<std::uint64_t>(st.st_size));
}

}  // namespace

target_kind kind_of(int fd) noexcept {
  platform::file_system_kind kind;
  if (!mappable(fd, kind)) return target_kind::unmappable;
  switch (kind) {
    // Where write(2) from a buffer beat the mapping (docs/decisions.md, "automatic").
    case platform::file_system_kind::in_memory:
    case platform::file_system_kind::ext4:
    // A file system that cannot be named gets what won on each one measured, and maps on request.
    case platform::file_system_kind::unnamed:
      return target_kind::buffer_wins;
    default:
      // Other local file systems have not been measured: they map.
      return target_kind::mapping_wins;
  }
}

error_cause open_backend(open_file& file, const opening& how, const options& opts,
                         std::unique_ptr<backend>& out) noexcept {
  struct stat st;
  if (sys().fstat(file.fd.get(), &st) != 0) return errno_failure("fstat");
  const target_kind kind = how.may_map ? kind_of(file.fd.get()) : target_kind::unmappable;
  const auto size = static_cast<std::uint64_t>(st.st_size);
  const std::uint64_t start_at = how.at_end ? size : how.position;
  const bool mapping_asked = (opts.strategy == strategy::mapped && !how.append) || opts.crash_safe;
  if (mapping_asked && kind == target_kind::unmappable) return {ENODEV, "map"};
  // A shared log opened for appending keeps std::ofstream's flush, like a pipe or a terminal.
  const bool streamed = !S_ISREG(st.st_mode) || how.append;
  const std::size_t capacity = std::max<std::size_t>(opts.buffer_size, 1);
  std::unique_ptr<tail_file> tail = tail_for(file, how, opts, st, !streamed, capacity, start_at);
  // flush_publishes takes the buffer on every strategy: a publish is a write(2) there, a cut and
  // an extension of a mapping (docs/decisions.md, "live readers"). crash_safe keeps the mapping
  // where no tail keeps its stores.
  if (mapping_asked && (opts.crash_safe ? !tail : !opts.flush_publishes)) {
    return mapped_backend::create(file, size, start_at, opts, out);
  }
  // A flush that shows the bytes costs a write(2) in the buffer, two size changes on the mapping.
  const bool automatic = opts.strategy == strategy::automatic && !opts.flush_publishes;
  const handover when(automatic && kind == target_kind::mapping_wins,
                      automatic && kind != target_kind::unmappable);
  if (how.at_end && sys().lseek(file.fd.get(), 0, SEEK_END) < 0 && errno != ESPIPE) {
    return errno_failure("lseek");
  }
  // What a flush returned must outlive the process: written, or in a mapping of the file.
  using at_flush = buffered_backend::at_flush;
  const at_flush flushing =
      streamed || how.flush_writes ? at_flush::write
      : how.replaces               ? at_flush::keep
      : opts.strategy == strategy::automatic && kind != target_kind::unmappable
          ? at_flush::write_then_map
          : at_flush::write;
  const auto publish_every =
      std::chrono::duration_cast<std::chrono::nanoseconds>(opts.publish_every).count();
  return buffered_backend::create(file, capacity, flushing, !streamed, size, start_at, when,
                                  std::move(tail), publish_every, out);
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
