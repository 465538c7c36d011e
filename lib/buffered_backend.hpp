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
  // Takes ownership of fd when it succeeds; on failure the descriptor stays the caller's, as with
  // mapped_backend::create. `write_on_sync`: sync() writes the buffer out, as std::filebuf does; a
  // reader at the other end of a pipe or terminal waits for it. For a regular file, sync() costs
  // nothing, as on the mapping, and publish() is the call that writes. Fails only when the buffer
  // cannot be allocated.
  static failure create(int fd, std::size_t capacity, bool write_on_sync,
                        std::unique_ptr<backend>& out) noexcept;
  ~buffered_backend() override;

  // Writes [buffer, put) and makes the whole buffer the window again.
  failure flush(char* put) noexcept;
  // For the mapping that takes over from the first buffer (output_file.cpp): giving the
  // descriptor up once the mapping has it.
  void release_descriptor() noexcept { fd_ = -1; }

  bool is_mapped() const noexcept override { return false; }
  failure advance(char* put, std::size_t wanted) noexcept override;
  failure write(char* put, const char* data, std::size_t size) noexcept override;
  std::int64_t tell(const char* put) const noexcept override;
  std::int64_t seek(char* put, std::int64_t offset, std::ios_base::seekdir dir,
                    failure& why) noexcept override;
  failure sync(char* put) noexcept override;
  failure publish(char* put) noexcept override;
  failure close(char* put) noexcept override;

 private:
  buffered_backend(int fd, std::unique_ptr<char[]> buffer, std::size_t capacity,
                   bool write_on_sync) noexcept;
  // write(2) until every byte is taken, across short writes.
  failure write_all(const char* data, std::size_t size) noexcept;

  std::unique_ptr<char[]> buffer_;
  std::size_t capacity_;
  bool write_on_sync_;
};

}  // namespace mapout::detail
