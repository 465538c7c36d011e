// Whether other writers hold a mapped file: each one holds a shared OFD lock for as long as it,
// or a forked copy of it, may store into the file, so that only the last one to close cuts the
// file's extension back to the bytes written.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>

#include "sys.hpp"

namespace mapout::detail {

class writer_presence {
 public:
  // Takes the lock for the writer of `fd`, on an open file description of the file's own
  // (through /proc/self/fd): a forked copy of the writer shares that one too, and the close of
  // either copy sees the other's. Without /proc the lock is fd's, which a fork cannot tell
  // apart: a forked copy then counts the original as still writing. Returns whether another
  // writer holds the file already.
  bool join(int fd) noexcept;
  // Whether another writer, or another copy of this one, holds the file now. The lock moves to a
  // new open file description first, so that a copy forked since keeps the old one to itself.
  bool others(int fd) noexcept;
  // Drops this copy's lock, for a close: only other writers and copies count from then on.
  void leave() noexcept {
    own_.close();
    left_ = true;
  }
  bool left() const noexcept { return left_; }

 private:
  descriptor own_;      // the description that holds the lock; none once left
  bool on_fd_ = false;  // no description of its own: fd holds the lock
  pid_t joined_by_ = 0;
  bool left_ = false;
};

// The ends of the bytes that writers of this process wrote into a file, `file` by device and
// inode, and closed while another writer still held it: the last one to close cuts no shorter,
// since the bytes it cannot see as data may be zeros. Bounded: where the table is full, a close
// keeps what is not zero, as without it.
void note_closed_end(const struct stat& file, std::uint64_t end) noexcept;
// The largest end noted for `file`, or 0.
std::uint64_t closed_end(const struct stat& file) noexcept;
void forget_closed_end(const struct stat& file) noexcept;

}  // namespace mapout::detail
