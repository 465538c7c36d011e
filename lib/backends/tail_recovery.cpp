// A dead writer's tail written into its output: under the tail's recovery lock, so that two
// recoveries never write it twice, and only once its writer's lock is free.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "backends/crash_recovery.hpp"
#include "backends/tail_file.hpp"
#include "platform/platform.hpp"

namespace mapout::detail {
namespace {

constexpr std::size_t chunk = std::size_t{64} << 10;

const error_cause stale = {ENOTRECOVERABLE, "recover",
                           "the tail file does not fit the file any more"};

bool same_inode(const struct stat& a, const struct stat& b) noexcept {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// A regular file of one link, this user's or the output's owner's: a name another user planted
// beside the output is none of its writers' tails.
bool trusted(const struct stat& tail, const struct stat& output) noexcept {
  return S_ISREG(tail.st_mode) && tail.st_nlink == 1 &&
         (platform::owned_by_this_user(tail) || tail.st_uid == output.st_uid);
}

// Reads what there is of `size` bytes at `offset`, the rest left as it was: how many it read, or
// -1.
ssize_t read_at(int fd, void* data, std::size_t size, std::uint64_t offset) noexcept {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t got = retry_on_eintr(sys().pread, fd, static_cast<char*>(data) + done,
                                       size - done, static_cast<off_t>(offset + done));
    if (got < 0) return -1;
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  return static_cast<ssize_t>(done);
}

// Whether the header describes a buffer the tail file holds, its committed bytes inside it.
bool fits(const tail_header& header, const struct stat& tail) noexcept {
  const auto length = static_cast<std::uint64_t>(tail.st_size);
  return header.buffer_at >= sizeof header && header.buffer_at <= length &&
         header.capacity <= length - header.buffer_at && header.committed <= header.capacity;
}

// The end of the buffer's output: its committed bytes, and with whole_buffer every byte up to
// the last non-zero one. Sets `failed` where a read fails.
std::uint64_t end_of_output(int tail, const tail_header& header, char* scratch,
                            bool& failed) noexcept {
  std::uint64_t to = header.capacity;
  failed = false;
  if (!(header.flags & tail_header::whole_buffer)) return header.committed;
  while (to > header.committed) {
    const auto size =
        static_cast<std::size_t>(std::min<std::uint64_t>(to - header.committed, chunk));
    const std::uint64_t begin = to - size;
    if (read_at(tail, scratch, size, header.buffer_at + begin) != static_cast<ssize_t>(size)) {
      failed = true;
      return header.committed;
    }
    for (std::size_t at = size; at > 0; --at) {
      if (scratch[at - 1] != 0) return begin + at;
    }
    to = begin;
  }
  return header.committed;
}

// Copies the buffer's bytes [from, to) to `output`, at `offset` of it, or at its end where it
// appends.
error_cause copy_out(int tail, const tail_header& header, std::uint64_t from, std::uint64_t to,
                     int output, bool appends, std::uint64_t offset, char* scratch) noexcept {
  for (std::uint64_t at = from; at < to;) {
    const auto size = static_cast<std::size_t>(std::min<std::uint64_t>(to - at, chunk));
    if (read_at(tail, scratch, size, header.buffer_at + at) != static_cast<ssize_t>(size)) {
      return errno_failure("read tail");
    }
    const off_t where = appends ? at_descriptor : static_cast<off_t>(offset + (at - from));
    if (write_all(output, scratch, size, where) != size) {
      return errno != 0 ? errno_failure(appends ? "write" : "pwrite") : error_cause{EIO, "write"};
    }
    at += size;
  }
  return {};
}

// Writes the tail's output into the file `fd` is open on, through a description of its own: fd
// may append, where a positioned tail's bytes go to their offset, or not, where a tail that
// appends must.
error_cause write_back(int tail, const tail_header& header, int fd,
                       const struct stat& output) noexcept {
  std::unique_ptr<char[]> scratch(new (std::nothrow) char[chunk]);
  if (!scratch) return {ENOMEM, "recover"};
  bool failed = false;
  const std::uint64_t end = end_of_output(tail, header, scratch.get(), failed);
  if (failed) return errno_failure("read tail");
  if (end == 0) return {};
  const bool appends = (header.flags & tail_header::appends) != 0;
  char path[64];
  if (!platform::name_of_open_file(fd, path, sizeof path)) return {ENOTSUP, "recover"};
  const descriptor writable(
      retry_on_eintr(sys().open, path, O_WRONLY | O_CLOEXEC | (appends ? O_APPEND : 0), mode_t{0}));
  struct stat now;
  if (!writable) return errno_failure("open");
  if (sys().fstat(writable.get(), &now) != 0) return errno_failure("fstat");
  if (!same_inode(now, output)) return stale;
  const auto size = static_cast<std::uint64_t>(now.st_size);
  const bool as_left = size == header.size || (header.writing && size > header.size &&
                                               size <= std::max(header.size, header.offset + end));
  if (!appends && !as_left) return stale;
  // A recovery that fails part way, on a full disk, leaves the tail as a writer that died while
  // writing it out: the next one finds the part written.
  static constexpr std::uint64_t under_way = 1;
  if (!header.writing &&
      write_all(tail, reinterpret_cast<const char*>(&under_way), sizeof under_way,
                static_cast<off_t>(offsetof(tail_header, writing))) != sizeof under_way) {
    return errno_failure("write tail");
  }
  if (appends) {
    // A write under way when the writer died may have landed, or a part of it, where the writer
    // was alone: those bytes are not written twice.
    const std::uint64_t landed =
        header.writing && size >= header.offset && size - header.offset <= end
            ? size - header.offset
            : 0;
    return copy_out(tail, header, landed, end, writable.get(), true, 0, scratch.get());
  }
  return copy_out(tail, header, 0, end, writable.get(), false, header.offset, scratch.get());
}

}  // namespace

error_cause recover_tail(const char* path, int fd, bool keep_bytes) noexcept {
  std::string directory;
  std::string name;
  std::string tail_path;
  try {
    if (!tail_location(path, directory, name)) return {};
    tail_path = directory + "/" + name;
  } catch (const std::bad_alloc&) {
    return {ENOMEM, "recover"};
  }
  // Not a link (ELOOP), nor a FIFO to wait on; none at all (ENOENT) is the usual answer, and
  // another user's (EACCES) is no tail of this user's to recover.
  const descriptor tail(retry_on_eintr(sys().open, tail_path.c_str(),
                                       O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
                                       mode_t{0}));
  if (!tail) return {};
  struct stat output;
  struct stat own;
  if (sys().fstat(fd, &output) != 0) return errno_failure("fstat");
  if (sys().fstat(tail.get(), &own) != 0 || !trusted(own, output)) return {};
  // Where the system has no such locks, a live writer cannot be told from a dead one: no writer
  // makes a tail there.
  if (platform::lock_range(tail.get(), platform::lock_kind::exclusive, recovering, true) != 0 ||
      platform::lock_range(tail.get(), platform::lock_kind::exclusive, writer_alive, false) != 0) {
    return {};
  }
  // Removed since it was opened (by another recovery, or its writer's close), or made anew.
  const descriptor opened_directory(
      retry_on_eintr(sys().open, directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode_t{0}));
  struct stat named;
  if (!opened_directory ||
      sys().fstatat(opened_directory.get(), name.c_str(), &named, AT_SYMLINK_NOFOLLOW) != 0 ||
      !same_inode(named, own) || sys().fstat(tail.get(), &own) != 0) {
    return {};
  }
  tail_header header;
  std::memset(&header, 0, sizeof header);
  if (read_at(tail.get(), &header, sizeof header, 0) < 0) return errno_failure("read tail");
  // Without the magic, its writer died while making it, before any byte.
  if (header.magic != 0) {
    if (header.magic != tail_header::magic_value ||
        header.version != tail_header::current_version) {
      return {};
    }
    if (header.device != static_cast<std::uint64_t>(output.st_dev) ||
        header.inode != static_cast<std::uint64_t>(output.st_ino) || !fits(header, own)) {
      return stale;
    }
    if (keep_bytes) {
      if (error_cause why = write_back(tail.get(), header, fd, output)) return why;
    }
  }
  if (sys().unlinkat(opened_directory.get(), name.c_str(), 0) != 0) return errno_failure("unlink");
  return {};
}

}  // namespace mapout::detail
