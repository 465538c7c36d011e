// Mapped writers of one file tell each other what they may store into: each holds a shared range
// lock of an open file description (platform::lock_range) whose length is its claim, the bytes it
// may store into without asking, and every change of the file's size (an extension, a cut) happens
// under one exclusive lock, so that a cut never removes bytes a writer that joined, or extended,
// since has stored.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdint>
#include <limits>

#include "platform/sys.hpp"

namespace mapout::detail {

class writer_presence {
 public:
  // What a writer claims while it stores wherever its mapping reaches (extension::on_fault,
  // running free).
  static constexpr std::uint64_t everything = std::numeric_limits<std::uint64_t>::max();

  // Takes the locks for the writer of `fd` on an open file description of the file's own
  // (platform::name_of_open_file): a forked copy of the writer shares that one, and renew() then
  // tells the two apart. Without such a name the locks are fd's, which a fork cannot tell apart: a
  // forked copy then counts the original as still writing everything. Claims nothing yet. Returns
  // with the file's size locked (unlock_sizes), and says whether another writer holds the file.
  bool join(int fd) noexcept;
  // Moves the locks to a new open file description, so that a copy forked since keeps the old
  // one, and its claim, to itself.
  void renew() noexcept;
  // Waits until no other writer changes the file's size, and keeps it so until unlock_sizes().
  void lock_sizes() noexcept;
  void unlock_sizes() noexcept;
  // Sets this writer's claim: other writers cut no shorter while it holds.
  void claim(std::uint64_t end) noexcept;
  // Whether another writer, or another copy of this one, holds the file.
  bool others() const noexcept;
  // Whether any writer holds fd's file, or is changing its size, asked without joining or
  // waiting. False where the system cannot tell.
  static bool held(int fd) noexcept;
  // The largest claim of the others, 0 without any: the cut goes no lower.
  std::uint64_t others_claim() const noexcept;
  // Drops this copy's locks, for a close, all at once (without a description of its own, at the
  // close of fd).
  void leave() noexcept {
    own_.close();
    on_fd_ = false;
    sizes_locked_ = false;
  }

 private:
  int lock_fd() const noexcept { return on_fd_ ? fd_ : own_.get(); }
  // A copy forked from a writer without a description of its own cannot tell the other apart.
  bool forked_on_fd() const noexcept { return on_fd_ && ::getpid() != joined_by_; }

  descriptor own_;      // the description that holds the locks; none once left
  bool on_fd_ = false;  // no description of its own: fd_ holds the locks
  int fd_ = -1;
  pid_t joined_by_ = 0;
  std::uint64_t claim_ = 0;
  bool sizes_locked_ = false;
};

// The ends of the bytes that writers wrote into a file, `file` by device and inode, open as `fd`,
// and closed while another writer still held it: the last one to close cuts no shorter, since
// the bytes it cannot see as data may be zeros. Kept in the file's attribute mapout.end
// (platform::set_attribute), for writers of every process, and in a table for those of this one.
// Where the file system refuses the attribute, writers of other processes see only what is not
// zero; where the table is full, those of this one. Call with the sizes locked.
void note_closed_end(int fd, const struct stat& file, std::uint64_t end) noexcept;
// The largest end noted for the file, or 0.
std::uint64_t closed_end(int fd, const struct stat& file) noexcept;
// Forgets the ends, once no writer holds the file: none is left on it.
void forget_closed_end(int fd, const struct stat& file) noexcept;
// Forgets them for a writer that now holds the file alone, and marks the file's bytes up to `end`
// as its own (end_mark.hpp), should it die with its reserve in the file.
void restart_closed_end(int fd, const struct stat& file, std::uint64_t end) noexcept;

}  // namespace mapout::detail
