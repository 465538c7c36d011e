// A plain 64 KiB buffer handed to write(2) when full: what a careful program writes by hand.
#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#include "writers.hpp"

namespace perf {
namespace {

class write_buffer_sink {
 public:
  explicit write_buffer_sink(const std::string& path)
      : path_(path), fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) {
    if (fd_ < 0) throw_errno("open", path);
  }
  write_buffer_sink(const write_buffer_sink&) = delete;
  write_buffer_sink& operator=(const write_buffer_sink&) = delete;
  ~write_buffer_sink() {
    if (fd_ >= 0) ::close(fd_);
  }

  void byte(char c) {
    if (put_ == end()) flush();
    *put_++ = c;
  }
  void token(std::string_view text) { block(text.data(), text.size()); }
  void line(std::uint32_t i, std::uint32_t) {
    if (static_cast<std::size_t>(end() - put_) < max_line_size) flush();
    put_ = format_line(put_, i);
  }
  void block(const char* data, std::size_t size) {
    if (size > static_cast<std::size_t>(end() - put_)) {
      flush();
      // As large as the buffer: copying it first would only add a memcpy.
      if (size >= capacity) {
        write_all(data, size);
        return;
      }
    }
    std::memcpy(put_, data, size);
    put_ += size;
  }
  void close() {
    flush();
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throw_errno("close", path_);
  }

 private:
  static constexpr std::size_t capacity = std::size_t{64} << 10;

  char* end() { return buffer_ + capacity; }
  void flush() {
    write_all(buffer_, static_cast<std::size_t>(put_ - buffer_));
    put_ = buffer_;
  }
  void write_all(const char* data, std::size_t size) {
    while (size > 0) {
      const ssize_t n = ::write(fd_, data, size);
      if (n < 0) {
        if (errno == EINTR) continue;
        throw_errno("write", path_);
      }
      data += n;
      size -= static_cast<std::size_t>(n);
    }
  }

  std::string path_;
  int fd_;
  char buffer_[capacity];
  char* put_ = buffer_;
};

}  // namespace

void add_syscall_writers(std::vector<writer>& list) {
  writer buffer;
  buffer.id = "write64k";
  buffer.label = "64 KiB buffer + write(2)";
  buffer.apis = {"store", "memcpy", "to_chars", "memcpy", "memcpy"};
  buffer.run = run_sink<write_buffer_sink>;
  list.push_back(buffer);
}

}  // namespace perf
