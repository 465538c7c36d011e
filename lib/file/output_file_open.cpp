// mapout::output_file's opening: the mode table or a descriptor taken over, then the backend the
// strategy picks (strategy.cpp).
#include <fcntl.h>
#include <sys/stat.h>

#include "backends/crash_recovery.hpp"
#include "backends/strategy.hpp"
#include "file/open_mode.hpp"
#include "file/output_file_state.hpp"
#include "platform/platform.hpp"

namespace mapout {
namespace {

// Opens the descriptor. Mapping needs it readable as well as writable; a file we may write but
// not read still opens, for the buffered strategy, as std::ofstream would open it.
error_cause open_descriptor(const char* path, const detail::open_flags& flags, bool want_map,
                            detail::descriptor& fd, bool& readable) noexcept {
  const int common = flags.creation | O_CLOEXEC;
  if (want_map || flags.read) {
    fd = detail::descriptor(
        detail::retry_on_eintr(detail::sys().open, path, O_RDWR | common, mode_t{0666}));
    readable = static_cast<bool>(fd);
    if (fd || flags.read || errno != EACCES)
      return fd ? error_cause{} : detail::errno_failure("open");
  }
  fd = detail::descriptor(
      detail::retry_on_eintr(detail::sys().open, path, O_WRONLY | common, mode_t{0666}));
  readable = false;
  return fd ? error_cause{} : detail::errno_failure("open");
}

// crash_safe needs the mapping, which the buffered strategy never makes, and a target that a
// death leaves in place.
error_cause crash_safe_refusal(const options& opts) noexcept {
  if (!opts.crash_safe) return {};
  if (opts.strategy == strategy::buffered) {
    return {EINVAL, "open", "crash_safe needs a mapping (strategy::buffered given)"};
  }
  if (opts.atomic || opts.write_if_changed) {
    return {EINVAL, "open",
            "crash_safe keeps what a death leaves; atomic and write_if_changed "
            "discard it"};
  }
  return {};
}

}  // namespace

error_cause output_file::state::open(const char* path, std::ios_base::openmode mode,
                                     const options& opts) noexcept {
  detail::open_flags flags;
  if (!detail::to_open_flags(mode, flags)) return {EINVAL, "open mode"};
  if (error_cause why = crash_safe_refusal(opts)) return why;
  if (opts.crash_safe && flags.append) {
    // The mapping writes at the end as the file's one writer: O_APPEND would move pwrite(2)'s
    // bytes there too.
    flags.creation &= ~O_APPEND;
    flags.at_end = true;
  }
  // Only what is, or will be, a regular file is opened for mapping: a FIFO opened for reading and
  // writing would not wait for its reader as std::ofstream does.
  bool want_map = detail::may_map(opts, flags.append);
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
    if (error_cause why = detail::replace_session::open(path, opts, file, session)) return why;
  } else if (error_cause why = open_descriptor(path, flags, want_map, file.fd, readable)) {
    return why;
  } else if (error_cause why = detail::recover_after_crash(file.fd.get())) {
    return why;
  } else if (error_cause why =
                 detail::recover_tail(path, file.fd.get(), (flags.creation & O_TRUNC) == 0)) {
    // A tail that no longer fits the file stays for mapout::recover() to report; this writer
    // publishes at every flush meanwhile.
    if (why.error != ENOTRECOVERABLE) return why;
  }
  return detail::open_backend(
      file, {want_map && readable, flags.append, flags.at_end, 0, false, replace, path}, opts,
      backend);
}

error_cause output_file::state::take_descriptor(int fd, const options& opts) noexcept {
  const int status = detail::retry_on_eintr(detail::sys().status_flags, fd, F_GETFL, 0);
  if (status < 0) return detail::errno_failure("fcntl");
  const int access = status & O_ACCMODE;
  if (access != O_WRONLY && access != O_RDWR) return {EBADF, "open", "not open for writing"};
  if (opts.atomic || opts.write_if_changed) {
    return {EINVAL, "open", "atomic and write_if_changed need a path to replace"};
  }
  if (error_cause why = crash_safe_refusal(opts)) return why;
  // No crash recovery here: the descriptor may be shared (a parallel output's part, a shell's
  // redirection), and a cut under another user of it would take its bytes.
  file.fd = detail::descriptor(fd);
  const bool append = (status & O_APPEND) != 0;
  // Writing goes on where the descriptor stands; a pipe or a terminal has no offset.
  off_t position = detail::sys().lseek(fd, 0, SEEK_CUR);
  if (position < 0 && errno != ESPIPE) return detail::errno_failure("lseek");
  if (position < 0) position = 0;
  const bool may_map = detail::may_map(opts, append) && access == O_RDWR;
  // The open file may be shared (a shell's redirection, a child after fork or system()): the
  // buffer goes out at each flush, as stdio's does, so that the bytes keep their order among the
  // other writers' of the same offset.
  return detail::open_backend(
      file, {may_map, append, false, static_cast<std::uint64_t>(position), true}, opts, backend);
}

}  // namespace mapout
