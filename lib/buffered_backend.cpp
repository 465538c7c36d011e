// The buffered strategy: bytes gather in a buffer and reach the descriptor through write(2).
#include "buffered_backend.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

namespace mapout::detail {

failure buffered_backend::create(open_file& file, std::size_t capacity, bool write_on_flush,
                                 std::unique_ptr<backend>& out) noexcept {
  if (capacity == 0) capacity = 1;
  std::unique_ptr<char[]> buffer(new (std::nothrow) char[capacity]);
  if (buffer) {
    out.reset(new (std::nothrow)
                  buffered_backend(file, std::move(buffer), capacity, write_on_flush));
  }
  return out ? failure{} : failure{ENOMEM, "allocate buffer"};
}

buffered_backend::buffered_backend(open_file& file, std::unique_ptr<char[]> buffer,
                                   std::size_t capacity, bool write_on_flush) noexcept
    : backend(file),
      buffer_(std::move(buffer)),
      capacity_(capacity),
      write_on_flush_(write_on_flush) {
  window_ = {buffer_.get(), buffer_.get() + capacity_};
}

failure buffered_backend::write_all(const char* data, std::size_t size) noexcept {
  while (size > 0) {
    const ssize_t written = retry_on_eintr(sys().write, fd(), data, size);
    if (written < 0) return file_.fail("write");
    if (written == 0) return file_.fail({EIO, "write"});
    data += written;
    size -= static_cast<std::size_t>(written);
  }
  return {};
}

failure buffered_backend::write_out(char* put) noexcept {
  if (file_.error) {
    // Nothing more reaches the file after a lost write; an empty window makes every store call
    // back so that the caller sees the failure.
    window_ = {buffer_.get(), buffer_.get()};
    return file_.error;
  }
  const std::size_t pending = static_cast<std::size_t>(put - buffer_.get());
  window_ = {buffer_.get(), buffer_.get() + capacity_};
  return write_all(buffer_.get(), pending);
}

failure buffered_backend::make_room(char* put, std::size_t) noexcept {
  return write_out(put);
}

failure buffered_backend::write(char* put, const char* data, std::size_t size) noexcept {
  if (size <= static_cast<std::size_t>(window_.end - put) && !file_.error) {
    std::memcpy(put, data, size);
    window_.begin = put + size;
    return {};
  }
  if (failure why = write_out(put)) return why;
  if (size >= capacity_) return write_all(data, size);
  std::memcpy(buffer_.get(), data, size);
  window_.begin = buffer_.get() + size;
  return {};
}

std::int64_t buffered_backend::tell(const char* put) const noexcept {
  const off_t offset = sys().lseek(fd(), 0, SEEK_CUR);
  return offset < 0 ? -1 : offset + (put - buffer_.get());
}

std::int64_t buffered_backend::seek(char* put, std::int64_t offset, std::ios_base::seekdir dir,
                                    failure& why) noexcept {
  if ((why = write_out(put))) return -1;
  const int whence = dir == std::ios_base::beg   ? SEEK_SET
                     : dir == std::ios_base::cur ? SEEK_CUR
                                                 : SEEK_END;
  const off_t result = sys().lseek(fd(), offset, whence);
  if (result < 0) why = errno_failure("lseek");
  return result;
}

failure buffered_backend::flush(char* put) noexcept {
  if (write_on_flush_) return write_out(put);
  window_.begin = put;
  return file_.error;
}

failure buffered_backend::publish(char* put) noexcept {
  return write_out(put);
}

failure buffered_backend::finish(char* put) noexcept {
  return write_out(put);
}

}  // namespace mapout::detail
