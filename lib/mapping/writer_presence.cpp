// The writers' locks: the platform's range locks, held by an open file description, far past
// any file's end, on a description of the writer's own, asked from it to find the others'.
#include "mapping/writer_presence.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <mutex>

#include "mapping/end_mark.hpp"
#include "platform/platform.hpp"

namespace mapout::detail {
namespace {

// Each writer holds [claims - 1, claims + its claim) shared: the first byte says it is there.
// The byte at size_lock, held exclusively, says that a writer changes the file's size.
constexpr off_t claims = off_t{1} << 62;
constexpr off_t size_lock = claims - 3;
// Claims from here on are kept as a lock to the end of the offsets (length 0).
constexpr std::uint64_t longest_claim = (std::uint64_t{1} << 62) - 2;

int lock(int fd, platform::lock_kind kind, off_t start, off_t length) noexcept {
  return platform::lock_range(fd, kind, {start, length}, false);
}

off_t claim_length(std::uint64_t end) noexcept {
  return end >= longest_claim ? 0 : 1 + static_cast<off_t>(end);
}

// A new open file description of fd's file, or none: for writing, since only a writable
// description takes an exclusive lock.
descriptor new_description(int fd) noexcept {
  char path[64];
  if (!platform::name_of_open_file(fd, path, sizeof path)) return descriptor();
  return descriptor(retry_on_eintr(sys().open, path, O_RDWR | O_CLOEXEC, mode_t{0}));
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

void note_closed_end(int fd, const struct stat& file, std::uint64_t end) noexcept {
  if (end == 0) return;
  raise_end_mark(fd, end);
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

std::uint64_t closed_end(int fd, const struct stat& file) noexcept {
  std::uint64_t noted = 0;
  read_end_mark(fd, noted);
  const std::lock_guard<std::mutex> hold(closed_writers_lock);
  const closed_writer* slot = find_closed(file);
  return std::max(noted, slot ? slot->end : 0);
}

namespace {

void forget_closed_in_process(const struct stat& file) noexcept {
  const std::lock_guard<std::mutex> hold(closed_writers_lock);
  if (closed_writer* slot = find_closed(file)) slot->end = 0;
}

}  // namespace

void forget_closed_end(int fd, const struct stat& file) noexcept {
  remove_end_mark(fd);
  forget_closed_in_process(file);
}

void restart_closed_end(int fd, const struct stat& file, std::uint64_t end) noexcept {
  set_end_mark(fd, end);
  forget_closed_in_process(file);
}

bool writer_presence::join(int fd) noexcept {
  joined_by_ = ::getpid();
  fd_ = fd;
  own_ = new_description(fd);
  on_fd_ = !own_;
  lock_sizes();
  claim(0);
  return others();
}

void writer_presence::renew() noexcept {
  if (!own_) return;
  descriptor renewed = new_description(fd_);
  if (!renewed) return;
  if (lock(renewed.get(), platform::lock_kind::shared, claims - 1, claim_length(claim_)) != 0) {
    return;
  }
  own_ = std::move(renewed);
}

void writer_presence::lock_sizes() noexcept {
  if (lock_fd() < 0) return;
  // Where locks are refused, the writer changes sizes as if alone.
  sizes_locked_ = retry_on_eintr(platform::lock_range, lock_fd(), platform::lock_kind::exclusive,
                                 platform::locked_range{size_lock, 1}, true) == 0;
}

void writer_presence::unlock_sizes() noexcept {
  if (!sizes_locked_) return;
  sizes_locked_ = false;
  lock(lock_fd(), platform::lock_kind::unlocked, size_lock, 1);
}

void writer_presence::claim(std::uint64_t end) noexcept {
  if (lock_fd() < 0) return;
  if (end < claim_ && end < longest_claim) {
    lock(lock_fd(), platform::lock_kind::unlocked, claims + static_cast<off_t>(end), 0);
  }
  lock(lock_fd(), platform::lock_kind::shared, claims - 1, claim_length(end));
  claim_ = end;
}

bool writer_presence::others() const noexcept {
  if (forked_on_fd()) return true;
  if (lock_fd() < 0) return false;
  platform::locked_range found;
  return platform::find_conflicting_lock(lock_fd(), platform::lock_kind::exclusive, {claims - 1, 1},
                                         found);
}

bool writer_presence::held(int fd) noexcept {
  // The size lock and every claim lie from size_lock on.
  platform::locked_range found;
  return platform::find_conflicting_lock(fd, platform::lock_kind::exclusive, {size_lock, 0}, found);
}

std::uint64_t writer_presence::others_claim() const noexcept {
  if (forked_on_fd()) return everything;
  if (lock_fd() < 0) return 0;
  // The first lock found past the largest claim so far, until none: once per other writer.
  std::uint64_t largest = 0;
  for (;;) {
    platform::locked_range found;
    if (!platform::find_conflicting_lock(lock_fd(), platform::lock_kind::exclusive,
                                         {claims + static_cast<off_t>(largest), 0}, found)) {
      return largest;
    }
    if (found.length == 0) return everything;
    const auto end = static_cast<std::uint64_t>(found.start + found.length - claims);
    if (end <= largest) return largest;
    largest = end;
  }
}

}  // namespace mapout::detail
