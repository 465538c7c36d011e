// A plain 64 KiB buffer handed to write(2) when full: what a careful program writes by hand; and
// for the seeking workloads the same buffer handed to pwrite(2), patches going into the buffer
// while their bytes are still there and through pwrite(2) once they are not.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

#include "writers.hpp"

namespace perf {
namespace {

// write(2) until every byte is taken, across short and interrupted writes.
void write_fully(int fd, const char* data, std::size_t size, const std::string& path) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_errno("write", path);
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

// pwrite(2) until every byte is taken, at `offset`.
void pwrite_fully(int fd, const char* data, std::size_t size, std::uint64_t offset,
                  const std::string& path) {
  while (size > 0) {
    const ssize_t n = ::pwrite(fd, data, size, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_errno("pwrite", path);
    }
    data += n;
    size -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
}

class write_buffer_sink {
 public:
  explicit write_buffer_sink(const std::string& path, bool positioned = false)
      : path_(path),
        fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)),
        positioned_(positioned) {
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
    copy_bytes(put_, data, size);
    put_ += size;
  }
  void close() {
    flush();
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throw_errno("close", path_);
  }

 protected:
  static constexpr std::size_t capacity = std::size_t{64} << 10;

  char* end() { return buffer_ + capacity; }
  void flush() {
    write_all(buffer_, static_cast<std::size_t>(put_ - buffer_));
    put_ = buffer_;
  }
  void write_all(const char* data, std::size_t size) {
    if (positioned_) {
      write_around(written_, data, size);
      written_ += size;
      return;
    }
    write_fully(fd_, data, size, path_);
  }
  // pwrite(2) at `offset`, whatever the buffer holds.
  void write_around(std::uint64_t offset, const char* data, std::size_t size) {
    pwrite_fully(fd_, data, size, offset, path_);
  }

  std::string path_;
  int fd_;
  // Whether the buffer goes to the file at written_ by pwrite(2) rather than at the descriptor's
  // offset by write(2).
  bool positioned_;
  // Where the buffer's first byte goes in the file, when positioned_.
  std::uint64_t written_ = 0;
  char buffer_[capacity];
  char* put_ = buffer_;
};

class pwrite_buffer_sink : public write_buffer_sink {
 public:
  explicit pwrite_buffer_sink(const std::string& path) : write_buffer_sink(path, true) {}

  std::uint64_t tell() const { return written_ + static_cast<std::uint64_t>(put_ - buffer_); }
  void seek(std::uint64_t offset) {
    flush();
    written_ = offset;
  }
  // The part still in the buffer is patched there, so the flush cannot overwrite it.
  void write_at(std::uint64_t offset, const char* data, std::size_t size) {
    const std::uint64_t stop = offset + size;
    if (stop > written_) {
      const std::uint64_t from = std::max(offset, written_);
      std::memcpy(buffer_ + (from - written_), data + (from - offset), stop - from);
    }
    if (offset < written_) {
      write_around(offset, data, static_cast<std::size_t>(std::min(stop, written_) - offset));
    }
  }
};

// The same 64 KiB buffer with its cursor in a sink that lives in the emitting frame, the buffer and
// the descriptor in another object: the index stays in a register around every byte, as in a
// careful C loop, instead of going through memory (a char store may alias the object holding it).
class buffer_file {
 public:
  static constexpr std::size_t capacity = std::size_t{64} << 10;

  explicit buffer_file(const std::string& path)
      : path_(path),
        fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)),
        buffer_(new char[capacity]) {
    if (fd_ < 0) throw_errno("open", path);
  }
  buffer_file(const buffer_file&) = delete;
  buffer_file& operator=(const buffer_file&) = delete;
  ~buffer_file() {
    if (fd_ >= 0) ::close(fd_);
  }

  char* begin() const { return buffer_.get(); }
  char* end() const { return buffer_.get() + capacity; }
  // Writes the buffer up to `put`; returns where the next byte goes.
  char* flush(const char* put) {
    write_all(begin(), static_cast<std::size_t>(put - begin()));
    return begin();
  }
  void write_all(const char* data, std::size_t size) { write_fully(fd_, data, size, path_); }
  void close(const char* put) {
    flush(put);
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throw_errno("close", path_);
  }

 private:
  std::string path_;
  int fd_;
  std::unique_ptr<char[]> buffer_;
};

class local_buffer_sink {
 public:
  explicit local_buffer_sink(buffer_file& file)
      : file_(file), put_(file.begin()), end_(file.end()) {}

  void byte(char c) {
    if (put_ == end_) put_ = file_.flush(put_);
    *put_++ = c;
  }
  void token(std::string_view text) { block(text.data(), text.size()); }
  void line(std::uint32_t i, std::uint32_t) {
    if (static_cast<std::size_t>(end_ - put_) < max_line_size) put_ = file_.flush(put_);
    put_ = format_line(put_, i);
  }
  void block(const char* data, std::size_t size) {
    if (size > static_cast<std::size_t>(end_ - put_)) {
      put_ = file_.flush(put_);
      if (size >= buffer_file::capacity) {
        file_.write_all(data, size);
        return;
      }
    }
    copy_bytes(put_, data, size);
    put_ += size;
  }
  const char* position() const { return put_; }

 private:
  buffer_file& file_;
  char* put_;
  char* end_;
};

void run_local_buffer(const workload& work, const std::string& path) {
  buffer_file file(path);
  local_buffer_sink sink(file);
  emit(work, sink);
  file.close(sink.position());
}

// parallel's hand-written limit: each thread gathers its blocks in a 64 KiB buffer of its own
// and hands it to pwrite(2) on a descriptor of its own, as the mapout::ostream row does.
void pwrite_blocks(const workload& work, const std::string& path, std::uint64_t first,
                   std::uint64_t last) {
  const std::size_t block = block_size(work.kind);
  const std::string& random = work.input->random;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw_errno("open", path);
  const std::unique_ptr<char[]> buffer(new char[buffer_file::capacity]);
  std::size_t filled = 0;
  std::uint64_t offset = first * block;
  for (std::uint64_t k = first; k < last; ++k) {
    const char* data = random.data() + k * block % random.size();
    if (block >= buffer_file::capacity) {
      pwrite_fully(fd, data, block, offset, path);
      offset += block;
      continue;
    }
    if (filled + block > buffer_file::capacity) {
      pwrite_fully(fd, buffer.get(), filled, offset, path);
      offset += filled;
      filled = 0;
    }
    copy_bytes(buffer.get() + filled, data, block);
    filled += block;
  }
  pwrite_fully(fd, buffer.get(), filled, offset, path);
  if (::close(fd) != 0) throw_errno("close", path);
}

}  // namespace

void add_syscall_writers(std::vector<writer>& list) {
  writer buffer;
  buffer.id = "write64k";
  buffer.label = "64 KiB buffer + write(2)";
  buffer.apis = {"store", "copy_short", "to_chars", "copy_short", "copy_short"};
  buffer.run = run_sink<write_buffer_sink>;
  list.push_back(buffer);

  writer local;
  local.id = "write64k-local";
  local.label = "64 KiB buffer, local cursor";
  local.apis = {"store", "copy_short", "to_chars", "copy_short", "copy_short"};
  local.run = run_local_buffer;
  list.push_back(local);

  writer positioned;
  positioned.id = "pwrite";
  positioned.label = "64 KiB buffer + pwrite(2)";
  positioned.apis = {nullptr,  nullptr,  nullptr,  nullptr,  nullptr,
                     "pwrite", "pwrite", "pwrite", "pwrite", "pwrite"};
  positioned.run = run_sink<pwrite_buffer_sink>;
  list.push_back(positioned);

  list.push_back(two_halves_writer<pwrite_blocks>(
      "pwrite-parallel", "64 KiB buffers + pwrite(2), 2 threads", "2 threads: pwrite"));
}

}  // namespace perf
