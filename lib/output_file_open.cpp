// mapout::output_file's opening: the mode table or a descriptor taken over, the target, the
// strategy, and the mapping that takes over from the first buffer.
#include <fcntl.h>
#include <sys/stat.h>

#include "buffered_backend.hpp"
#include "mapped_backend.hpp"
#include "output_file_state.hpp"
#include "replacement.hpp"
#include "target.hpp"

namespace mapout {
namespace {

// Opens the descriptor. Mapping needs it readable as well as writable; a file we may write but
// not read still opens, for the buffered strategy, as std::ofstream would open it.
failure open_descriptor(const char* path, const detail::open_flags& flags, bool want_map,
                        detail::descriptor& fd, bool& readable) noexcept {
  const int common = flags.creation | O_CLOEXEC;
  if (want_map || flags.read) {
    fd = detail::descriptor(
        detail::retry_on_eintr(detail::sys().open, path, O_RDWR | common, mode_t{0666}));
    readable = static_cast<bool>(fd);
    if (fd || flags.read || errno != EACCES) return fd ? failure{} : detail::errno_failure("open");
  }
  fd = detail::descriptor(
      detail::retry_on_eintr(detail::sys().open, path, O_WRONLY | common, mode_t{0666}));
  readable = false;
  return fd ? failure{} : detail::errno_failure("open");
}

}  // namespace

char* output_file::state::map_instead_of_buffer(char* put) noexcept {
  if (backend->publish(put)) return backend->current().begin;
  const std::int64_t position = backend->tell(backend->current().begin);
  struct stat st;
  std::unique_ptr<detail::backend> mapped;
  if (position >= 0 && detail::sys().fstat(file.fd.get(), &st) == 0 &&
      !detail::mapped_backend::create(file, static_cast<std::uint64_t>(st.st_size),
                                      static_cast<std::uint64_t>(position), opts, mapped)) {
    backend = std::move(mapped);
  }
  if (session) session->window_handed_out(*backend);
  return backend->current().begin;
}

failure output_file::state::open(const char* path, std::ios_base::openmode mode,
                                 const options& opts) noexcept {
  detail::open_flags flags;
  if (!detail::to_open_flags(mode, flags)) return {EINVAL, "open mode"};
  // Only what is, or will be, a regular file is opened for mapping: a FIFO opened for reading and
  // writing would not wait for its reader as std::ofstream does. Appending never maps: every
  // write must land at the end, wherever other writers left it.
  bool want_map = opts.strategy != strategy::buffered && !flags.append;
  bool replace = opts.atomic || opts.write_if_changed;
  // Replacing would have to copy the bytes a mode keeps; and a device or FIFO is no file to
  // replace, so it is written as it would be without the options.
  if (replace && !(flags.creation & O_TRUNC)) {
    return {EINVAL, "open", detail::replacement_refusal(opts, flags)};
  }
  struct stat st;
  if ((want_map || replace) && detail::sys().stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    if (replace && S_ISDIR(st.st_mode)) return {EISDIR, "open"};
    want_map = false;
    replace = false;
  }
  bool readable = replace;
  if (replace) {
    if (failure why = detail::replace_session::open(path, opts, file, session)) return why;
  } else if (failure why = open_descriptor(path, flags, want_map, file.fd, readable)) {
    return why;
  }
  return start(want_map && readable, flags.append, flags.at_end, 0);
}

failure output_file::state::take_descriptor(int fd, const options& opts) noexcept {
  const int status = detail::retry_on_eintr(detail::sys().status_flags, fd, F_GETFL, 0);
  if (status < 0) return detail::errno_failure("fcntl");
  const int access = status & O_ACCMODE;
  if (access != O_WRONLY && access != O_RDWR) return {EBADF, "open", "not open for writing"};
  if (opts.atomic || opts.write_if_changed) {
    return {EINVAL, "open", "atomic and write_if_changed need a path to replace"};
  }
  file.fd = detail::descriptor(fd);
  const bool append = (status & O_APPEND) != 0;
  // Writing goes on where the descriptor stands; a pipe or a terminal has no offset.
  off_t position = detail::sys().lseek(fd, 0, SEEK_CUR);
  if (position < 0 && errno != ESPIPE) return detail::errno_failure("lseek");
  if (position < 0) position = 0;
  const bool may_map = opts.strategy != strategy::buffered && !append && access == O_RDWR;
  return start(may_map, append, false, static_cast<std::uint64_t>(position));
}

failure output_file::state::start(bool may_map, bool append, bool at_end,
                                  std::uint64_t position) noexcept {
  struct stat st;
  if (detail::sys().fstat(file.fd.get(), &st) != 0) return detail::errno_failure("fstat");
  const detail::target_kind kind =
      may_map ? detail::kind_of(file.fd.get()) : detail::target_kind::unmappable;
  const auto size = static_cast<std::uint64_t>(st.st_size);
  const std::uint64_t start_at = at_end ? size : position;
  if (opts.strategy == strategy::mapped && !append) {
    if (kind == detail::target_kind::unmappable) return {ENODEV, "map"};
    return detail::mapped_backend::create(file, size, start_at, opts, backend);
  }
  detail::mapping_offer offer;
  offer.when_full =
      kind == detail::target_kind::mapping_wins && opts.strategy == strategy::automatic;
  offer.when_scattered =
      kind != detail::target_kind::unmappable && opts.strategy == strategy::automatic;
  // A flush that shows the bytes costs a write(2) in the buffer, two size changes on the mapping.
  if (opts.flush_publishes) offer = {};
  if (at_end && detail::sys().lseek(file.fd.get(), 0, SEEK_END) < 0 && errno != ESPIPE) {
    return detail::errno_failure("lseek");
  }
  // A shared log opened for appending keeps std::ofstream's flush, like a pipe or a terminal.
  const bool write_on_flush = !S_ISREG(st.st_mode) || append;
  return detail::buffered_backend::create(file, opts.buffer_size, write_on_flush, !write_on_flush,
                                          size, start_at, offer, backend);
}

}  // namespace mapout
