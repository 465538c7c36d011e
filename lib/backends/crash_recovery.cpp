// The cut of a dead writer's reserve: under the writers' size lock, so that a writer opening the
// file meanwhile waits and then finds the file as cut.
#include "backends/crash_recovery.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <new>

#include "mapping/end_mark.hpp"
#include "mapping/writer_presence.hpp"
#include "platform/platform.hpp"

namespace mapout::detail {
namespace {

// The end of the last non-zero byte in [from, to), read through the descriptor from the end
// back (pages written out and dropped from memory hold their bytes on the disk), or `from`.
// Sets `failed` where a read fails.
std::uint64_t end_of_bytes(int fd, std::uint64_t from, std::uint64_t to, bool& failed) noexcept {
  constexpr std::size_t chunk = std::size_t{64} << 10;
  std::unique_ptr<char[]> buffer(new (std::nothrow) char[chunk]);
  failed = !buffer;
  while (buffer && to > from) {
    const auto size = static_cast<std::size_t>(std::min<std::uint64_t>(to - from, chunk));
    const std::uint64_t begin = to - size;
    if (retry_on_eintr(sys().pread, fd, buffer.get(), size, static_cast<off_t>(begin)) !=
        static_cast<ssize_t>(size)) {
      failed = true;
      return to;
    }
    for (std::size_t at = size; at > 0; --at) {
      if (buffer[at - 1] != 0) return begin + at;
    }
    to = begin;
  }
  return from;
}

// Cuts fd's file, which keeps the mark `mark`, to its bytes. Call with the sizes locked.
error_cause cut_reserve(int fd, std::uint64_t mark) noexcept {
  struct stat st;
  if (sys().fstat(fd, &st) != 0) return errno_failure("fstat");
  const auto size = static_cast<std::uint64_t>(st.st_size);
  bool failed = false;
  const std::uint64_t keep = std::min(size, end_of_bytes(fd, mark, size, failed));
  if (failed) return errno_failure("pread");
  if (keep < size && retry_on_eintr(sys().ftruncate, fd, static_cast<off_t>(keep)) != 0) {
    return errno_failure("ftruncate");
  }
  remove_end_mark(fd);
  return {};
}

}  // namespace

error_cause recover_after_crash(int opened) noexcept {
  std::uint64_t mark = 0;
  if (!read_end_mark(opened, mark)) return {};
  // The bytes are read through a description of its own: `opened` may be write-only.
  char path[64];
  if (!platform::name_of_open_file(opened, path, sizeof path)) return {};
  const descriptor readable(retry_on_eintr(sys().open, path, O_RDWR | O_CLOEXEC, mode_t{0}));
  // Unreadable: the writer that left the file could read it; this one appends after the zeros.
  if (!readable) return {};
  const int fd = readable.get();
  // A writer holds it: its reserve is no debris, and its size lock may be held for long.
  if (writer_presence::held(fd)) return {};
  writer_presence presence;
  // The mark read again under the lock: a writer may have closed, and removed it, meanwhile.
  const bool dead = !presence.join(fd) && read_end_mark(fd, mark);
  const error_cause why = dead ? cut_reserve(fd, mark) : error_cause{};
  presence.leave();
  return why;
}

}  // namespace mapout::detail
