// The writers' shared lock: F_OFD_SETLK on a description of the writer's own, F_OFD_GETLK from
// another to find the others'.
#include "writer_presence.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <utility>

namespace mapout::detail {
namespace {

bool lock_shared(int fd) noexcept {
  struct flock shared = {};
  shared.l_type = F_RDLCK;
  shared.l_whence = SEEK_SET;
  return sys().lock(fd, F_OFD_SETLK, &shared) == 0;
}

// A new open file description of fd's file, holding the shared lock, or none.
descriptor locked_description(int fd) noexcept {
  char path[32];
  std::snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  descriptor own(retry_on_eintr(sys().open, path, O_RDONLY | O_CLOEXEC, mode_t{0}));
  if (own && !lock_shared(own.get())) own.close();
  return own;
}

// Whether a description other than fd's holds a lock on the file. Where locks are refused, no.
bool locked_elsewhere(int fd) noexcept {
  struct flock probe = {};
  probe.l_type = F_WRLCK;
  probe.l_whence = SEEK_SET;
  return sys().lock(fd, F_OFD_GETLK, &probe) == 0 && probe.l_type != F_UNLCK;
}

struct closed_writer {
  dev_t device = 0;
  ino_t inode = 0;
  std::uint64_t end = 0;  // 0: the slot is free
};
// Files written by several streams of one process at once are few.
constexpr std::size_t most_closed_writers = 64;
std::mutex closed_writers_lock;
closed_writer closed_writers[most_closed_writers];

closed_writer* find_closed(const struct stat& file) noexcept {
  for (closed_writer& slot : closed_writers) {
    if (slot.end != 0 && slot.device == file.st_dev && slot.inode == file.st_ino) return &slot;
  }
  return nullptr;
}

}  // namespace

void note_closed_end(const struct stat& file, std::uint64_t end) noexcept {
  if (end == 0) return;
  const std::lock_guard<std::mutex> hold(closed_writers_lock);
  if (closed_writer* slot = find_closed(file)) {
    slot->end = std::max(slot->end, end);
    return;
  }
  for (closed_writer& slot : closed_writers) {
    if (slot.end == 0) {
      slot = {file.st_dev, file.st_ino, end};
      return;
    }
  }
}

std::uint64_t closed_end(const struct stat& file) noexcept {
  const std::lock_guard<std::mutex> hold(closed_writers_lock);
  const closed_writer* slot = find_closed(file);
  return slot ? slot->end : 0;
}

void forget_closed_end(const struct stat& file) noexcept {
  const std::lock_guard<std::mutex> hold(closed_writers_lock);
  if (closed_writer* slot = find_closed(file)) slot->end = 0;
}

bool writer_presence::join(int fd) noexcept {
  joined_by_ = ::getpid();
  own_ = locked_description(fd);
  on_fd_ = !own_;
  if (on_fd_) lock_shared(fd);
  return locked_elsewhere(on_fd_ ? fd : own_.get());
}

bool writer_presence::others(int fd) noexcept {
  if (on_fd_) return ::getpid() != joined_by_ || locked_elsewhere(fd);
  if (!own_) return locked_elsewhere(fd);  // left
  if (descriptor renewed = locked_description(fd)) own_ = std::move(renewed);
  return locked_elsewhere(own_.get());
}

}  // namespace mapout::detail
