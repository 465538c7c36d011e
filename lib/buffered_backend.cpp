// The buffered strategy: bytes gather in a buffer and reach the descriptor through write(2).
#include "buffered_backend.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

#include "sys.hpp"

namespace mapout::detail {

failure buffered_backend::create(int fd, std::size_t capacity, bool write_on_sync,
                                 std::unique_ptr<backend>& out) noexcept {
  if (capacity == 0) capacity = 1;
  std::unique_ptr<char[]> buffer(new (std::nothrow) char[capacity]);
  std::unique_ptr<backend> file;
  if (buffer) {
    file.reset(new (std::nothrow) buffered_backend(fd, std::move(buffer), capacity, write_on_sync));
  }
  if (!file) return {std::make_error_code(std::errc::not_enough_memory), "allocate buffer"};
  out = std::move(file);
  return {};
}

buffered_backend::buffered_backend(int fd, std::unique_ptr<char[]> buffer, std::size_t capacity,
                                   bool write_on_sync) noexcept
    : backend(fd), buffer_(std::move(buffer)), capacity_(capacity), write_on_sync_(write_on_sync) {
  window_ = {buffer_.get(), buffer_.get() + capacity_};
}

buffered_backend::~buffered_backend() {
  if (fd_ >= 0) sys().close(fd_);
}

failure buffered_backend::write_all(const char* data, std::size_t size) noexcept {
  while (size > 0) {
    const ssize_t written = sys().write(fd_, data, size);
    if (written < 0) return fail("write");
    if (written == 0) {
      errno = EIO;
      return fail("write");
    }
    data += written;
    size -= static_cast<std::size_t>(written);
  }
  return {};
}

failure buffered_backend::flush(char* put) noexcept {
  if (error_) {
    // Nothing more reaches the file after a lost write; an empty window makes every store call
    // back so that the caller sees the failure.
    window_ = {buffer_.get(), buffer_.get()};
    return error_;
  }
  const std::size_t pending = static_cast<std::size_t>(put - buffer_.get());
  window_ = {buffer_.get(), buffer_.get() + capacity_};
  return write_all(buffer_.get(), pending);
}

failure buffered_backend::advance(char* put, std::size_t) noexcept {
  return flush(put);
}

failure buffered_backend::write(char* put, const char* data, std::size_t size) noexcept {
  if (size <= static_cast<std::size_t>(window_.end - put) && !error_) {
    std::memcpy(put, data, size);
    window_.begin = put + size;
    return {};
  }
  if (failure why = flush(put)) return why;
  if (size >= capacity_) return write_all(data, size);
  std::memcpy(buffer_.get(), data, size);
  window_.begin = buffer_.get() + size;
  return {};
}

std::int64_t buffered_backend::tell(const char* put) const noexcept {
  const off_t offset = sys().lseek(fd_, 0, SEEK_CUR);
  if (offset < 0) return -1;
  return offset + (put - buffer_.get());
}

std::int64_t buffered_backend::seek(char* put, std::int64_t offset, std::ios_base::seekdir dir,
                                    failure& why) noexcept {
  if ((why = flush(put))) return -1;
  const int whence = dir == std::ios_base::beg   ? SEEK_SET
                     : dir == std::ios_base::cur ? SEEK_CUR
                                                 : SEEK_END;
  const off_t result = sys().lseek(fd_, offset, whence);
  if (result < 0) why = errno_failure("lseek");
  return result;
}

failure buffered_backend::sync(char* put) noexcept {
  if (!write_on_sync_) {
    window_.begin = put;
    return error_;
  }
  return flush(put);
}

failure buffered_backend::publish(char* put) noexcept {
  return flush(put);
}

failure buffered_backend::close(char* put) noexcept {
  flush(put);
  return close_descriptor();
}

}  // namespace mapout::detail
