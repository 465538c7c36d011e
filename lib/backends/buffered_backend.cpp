// The buffered strategy: bytes gather in a buffer and reach the descriptor through write(2), or
// pwrite(2) where a seek moved them elsewhere in the file.
#include "backends/buffered_backend.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <limits>
#include <new>

#include "platform/platform.hpp"

namespace mapout::detail {

error_cause buffered_backend::create(open_file& file, std::size_t capacity, at_flush flushing,
                                     bool positioned, std::uint64_t size, std::uint64_t position,
                                     handover when, std::unique_ptr<tail_file> tail,
                                     std::int64_t publish_every,
                                     std::unique_ptr<backend>& out) noexcept {
  if (capacity == 0) capacity = 1;
  std::unique_ptr<char[]> buffer;
  if (!tail) {
    buffer.reset(new (std::nothrow) char[capacity]);
    if (!buffer) return {ENOMEM, "allocate buffer"};
  }
  std::unique_ptr<buffered_backend> created(new (std::nothrow) buffered_backend(
      file, tail ? tail->buffer() : buffer.get(), capacity, flushing));
  if (!created) return {ENOMEM, "allocate buffer"};
  created->own_buffer_ = std::move(buffer);
  created->tail_ = std::move(tail);
  created->publish_every_ = publish_every;
  created->positioned_ = positioned;
  created->base_ = created->descriptor_offset_ = position;
  created->size_ = size;
  created->handover_ = when;
  out = std::move(created);
  return {};
}

buffered_backend::buffered_backend(open_file& file, char* buffer, std::size_t capacity,
                                   at_flush flushing) noexcept
    : backend(file), buffer_(buffer), capacity_(capacity), flushing_(flushing) {
  window_ = {buffer_, buffer_ + capacity_};
}

std::size_t buffered_backend::filled(const char* put) const noexcept {
  return std::max(filled_, static_cast<std::size_t>(put - buffer_));
}

void buffered_backend::leave_cursor(char* put) noexcept {
  window_.begin = put;
  if (positioned_) filled_ = filled(put);
}

seek_range buffered_backend::seekable() const noexcept {
  if (filled_ == 0 || file_.error) return {};
  return {buffer_, buffer_ + filled_, static_cast<std::int64_t>(base_)};
}

inline error_cause buffered_backend::write_at_base(const char* data, std::size_t size) noexcept {
  if (size == 0) return {};
  const bool at_offset = !positioned_ || base_ == descriptor_offset_;
  const std::size_t written =
      write_all(fd(), data, size, at_offset ? at_descriptor : static_cast<off_t>(base_));
  base_ += written;
  if (at_offset) descriptor_offset_ = base_;
  if (written < size) {
    const char* operation = at_offset ? "write" : "pwrite";
    return file_.fail(errno != 0 ? errno_failure(operation) : error_cause{EIO, operation});
  }
  size_ = std::max(size_, base_);
  return {};
}

bool buffered_backend::hands_over_when_full(char* put) noexcept {
  if (!handover_.at_full_buffer()) return false;
  window_.begin = put;
  return true;
}

void buffered_backend::assert_invariant() const noexcept {
  char* const buffer_end = buffer_ + capacity_;
  assert(window_.begin >= buffer_ && window_.begin <= window_.end);
  assert(window_.end == buffer_end || window_.end == buffer_);
  assert(filled_ <= capacity_ && (positioned_ || filled_ == 0));
  assert(!positioned_ || descriptor_offset_ <= size_);
  (void)buffer_end;
}

inline error_cause buffered_backend::write_out(char* put) noexcept {
  const std::size_t pending = filled(put);
  const std::uint64_t cursor = base_ + static_cast<std::uint64_t>(put - buffer_);
  filled_ = 0;
  if (file_.error) {
    // Nothing more reaches the file after a lost write; an empty window makes every store call
    // back so that the caller sees the failure.
    window_ = {buffer_, buffer_};
    return file_.error;
  }
  window_ = {buffer_, buffer_ + capacity_};
  if (tail_) tail_->writing_out(pending);
  // A write that fails loses its bytes, as the error says, from the tail too.
  const error_cause why = write_at_base(buffer_, pending);
  if (!why) base_ = cursor;
  start_tail_over(pending);
  if (why) return why;
  assert_invariant();
  return {};
}

step buffered_backend::make_room(char* put, std::size_t) noexcept {
  if (hands_over_when_full(put)) return {{}, step::then::hand_over_and_repeat};
  handover_.streams();
  return {write_out(put)};
}

step buffered_backend::write(char* put, const char* data, std::size_t size) noexcept {
  if (hands_over_when_full(put)) return {{}, step::then::hand_over_and_repeat};
  if (size <= static_cast<std::size_t>(window_.end - put) && !file_.error) {
    std::memcpy(put, data, size);
    leave_cursor(put + size);
    return {};
  }
  handover_.streams();
  if (error_cause why = write_out(put)) return {why};
  if (size >= capacity_) {
    const error_cause why = write_at_base(data, size);
    start_tail_over(0);
    return {why};
  }
  std::memcpy(buffer_, data, size);
  leave_cursor(buffer_ + size);
  return {};
}

std::int64_t buffered_backend::tell(const char* put) const noexcept {
  const auto buffered = static_cast<std::int64_t>(put - buffer_);
  if (positioned_) return static_cast<std::int64_t>(base_) + buffered;
  const off_t offset = sys().lseek(fd(), 0, SEEK_CUR);
  if (offset < 0) return -1;
  // A regular file here is appended to: the bytes buffered land at its end, wherever a seek left
  // the offset.
  struct stat st;
  if (buffered > 0 && sys().fstat(fd(), &st) == 0 && S_ISREG(st.st_mode)) {
    return static_cast<std::int64_t>(st.st_size) + buffered;
  }
  return offset + buffered;
}

step buffered_backend::seek(char* put, std::int64_t offset, std::ios_base::seekdir dir,
                            std::int64_t& position) noexcept {
  position = -1;
  if (!positioned_) {
    if (error_cause why = write_out(put)) return {why};
    const int whence = dir == std::ios_base::beg   ? SEEK_SET
                       : dir == std::ios_base::cur ? SEEK_CUR
                                                   : SEEK_END;
    position = sys().lseek(fd(), offset, whence);
    return {position < 0 ? errno_failure("lseek") : error_cause{}};
  }
  leave_cursor(put);
  const std::uint64_t from = dir == std::ios_base::beg ? 0
                             : dir == std::ios_base::cur
                                 ? base_ + static_cast<std::uint64_t>(put - buffer_)
                             : filled_ == 0 ? size_
                                            : std::max(size_, base_ + filled_);
  std::uint64_t target = 0;
  if (!seek_target(from, offset, target)) return {{EINVAL, "seek"}};
  if (!file_.error && target >= base_ && target - base_ <= filled_) {
    window_.begin = buffer_ + (target - base_);
    position = static_cast<std::int64_t>(target);
    return {};
  }
  const bool scattered = handover_.at_seek_out(filled_);
  if (error_cause why = write_out(put)) return {why};
  base_ = target;
  start_tail_over(0);
  position = static_cast<std::int64_t>(target);
  return {{}, scattered ? step::then::hand_over : step::then::done};
}

step buffered_backend::flush(char* put) noexcept {
  if (flushing_ == at_flush::keep) {
    leave_cursor(put);
    return {file_.error};
  }
  if (flushing_ != at_flush::map || file_.error) {
    if (flushing_ == at_flush::write_then_map) flushing_ = at_flush::map;
    return {write_out(put)};
  }
  // Where the mapping cannot take over after all, each flush writes from here on.
  flushing_ = at_flush::write;
  leave_cursor(put);
  return {{}, step::then::hand_over};
}

error_cause buffered_backend::publish(char* put) noexcept {
  return write_out(put);
}

error_cause buffered_backend::publish_at_flush(char* put) noexcept {
  if (tail_ && publish_every_ > 0 && !file_.error) {
    const std::int64_t now = platform::coarse_nanoseconds();
    if (now - last_publish_ < publish_every_) {
      // A store that a death keeps: the next open or mapout::recover() writes the bytes in.
      leave_cursor(put);
      tail_->commit(filled(put));
      return {};
    }
    last_publish_ = now;
  }
  return write_out(put);
}

error_cause buffered_backend::finish(char* put) noexcept {
  const error_cause why = write_out(put);
  if (tail_) tail_->remove();
  return why;
}

}  // namespace mapout::detail
