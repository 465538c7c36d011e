// The buffered strategy: a buffer handed to write(2), for targets that cannot or should not be
// mapped (pipes, FIFOs, character devices, sockets, network and FUSE file systems, O_APPEND).
#pragma once

#include <memory>

#include "backend.hpp"

namespace mapout::detail {

// Writes go through the descriptor's own offset, as with std::filebuf: a seek is an lseek(2) after
// the buffer is written out, and append mode lets the kernel put every write at the end.
class buffered_backend final : public backend {
 public:
  // `write_on_flush`: flush() writes the buffer out, as std::filebuf's does, for a reader at the
  // other end of a pipe or terminal. On a regular file flush() costs nothing, as on the mapping,
  // and publish() is the call that writes. Fails only when the buffer cannot be allocated.
  static failure create(open_file& file, std::size_t capacity, bool write_on_flush,
                        std::unique_ptr<backend>& out) noexcept;

  bool is_mapped() const noexcept override { return false; }
  failure make_room(char* put, std::size_t wanted) noexcept override;
  failure write(char* put, const char* data, std::size_t size) noexcept override;
  std::int64_t tell(const char* put) const noexcept override;
  std::int64_t seek(char* put, std::int64_t offset, std::ios_base::seekdir dir,
                    failure& why) noexcept override;
  failure flush(char* put) noexcept override;
  failure publish(char* put) noexcept override;
  failure finish(char* put) noexcept override;

 private:
  buffered_backend(open_file& file, std::unique_ptr<char[]> buffer, std::size_t capacity,
                   bool write_on_flush) noexcept;
  // Writes [buffer, put) and makes the whole buffer the window again.
  failure write_out(char* put) noexcept;
  // write(2) until every byte is taken, across short writes.
  failure write_all(const char* data, std::size_t size) noexcept;

  std::unique_ptr<char[]> buffer_;
  std::size_t capacity_;
  bool write_on_flush_;
};

}  // namespace mapout::detail
