// The buffered strategy: a buffer handed to write(2), for targets that cannot or should not be
// mapped (pipes, FIFOs, character devices, sockets, network and FUSE file systems, O_APPEND).
#pragma once

#include <cstdint>
#include <limits>
#include <memory>

#include "backends/backend.hpp"
#include "backends/strategy.hpp"
#include "backends/tail_file.hpp"

namespace mapout::detail {

// On a regular file not opened for appending, the buffer holds the bytes of one stretch of the
// file, [base_, base_ + filled): a seek that lands inside it moves the cursor with no system
// call, so that a length patched behind a record costs a store (docs/decisions.md, "The
// buffer follows seeks"). A stretch that starts where the descriptor's offset stands goes out with
// write(2), any other with pwrite(2). Elsewhere (pipes, devices, append mode) writes go through the
// descriptor's own offset, as with std::filebuf: a seek is an lseek(2) after the buffer is out.
// What it sees is told to the strategy's handover, which says when a mapping takes over.
// With a tail (tail_file.hpp) the buffer is the tail's mapping: a flush under flush_publishes
// commits its bytes there, and writes them out only every `publish_every`.
class buffered_backend final : public backend {
 public:
  // What flush() does with the bytes buffered.
  enum class at_flush : unsigned char {
    // Writes them out, as std::filebuf does: a pipe, a terminal, a shared log, what cannot map.
    write,
    // The second flush hands the file over to a mapping, where a later flush is a store; the
    // first writes, so that a file flushed once before its close pays nothing more.
    write_then_map,
    // write_then_map after its first flush: the next one hands the file over.
    map,
    // Keeps them: a temporary that replaces its target at close, which a death discards anyway.
    keep,
  };
  // `positioned`: the file keeps its positions (a regular file not opened for appending) and is
  // `size` bytes long, with the descriptor at `position`. The buffer is `tail`'s where there is
  // one, which a flush under flush_publishes writes out once `publish_every` nanoseconds have
  // passed since the last. Fails only when the buffer cannot be allocated.
  static error_cause create(open_file& file, std::size_t capacity, at_flush flushing,
                            bool positioned, std::uint64_t size, std::uint64_t position,
                            handover when, std::unique_ptr<tail_file> tail,
                            std::int64_t publish_every, std::unique_ptr<backend>& out) noexcept;

  // On a positioned file, the buffer's filled stretch: patching a length behind a record and
  // going back to the end become moves of the cursor (docs/decisions.md, "The buffer follows
  // seeks").
  seek_range seekable() const noexcept override;
  void keep_stored_up_to(const char* end) noexcept override { filled_ = filled(end); }
  bool is_mapped() const noexcept override { return false; }
  // Flattened: from a full buffer to write(2) in one frame (docs/decisions.md, "slow path").
  [[gnu::flatten]] step make_room(char* put, std::size_t wanted) noexcept override;
  [[gnu::flatten]] step write(char* put, const char* data, std::size_t size) noexcept override;
  std::int64_t tell(const char* put) const noexcept override;
  step seek(char* put, std::int64_t offset, std::ios_base::seekdir dir,
            std::int64_t& position) noexcept override;
  step flush(char* put) noexcept override;
  error_cause publish(char* put) noexcept override;
  error_cause publish_at_flush(char* put) noexcept override;
  error_cause finish(char* put) noexcept override;

 private:
  buffered_backend(open_file& file, char* buffer, std::size_t capacity, at_flush flushing) noexcept;
  // The bytes of the buffer that hold output: up to the cursor, or further after a seek back.
  std::size_t filled(const char* put) const noexcept;
  // Ends a call with the window at `put`, and filled_ covering it.
  void leave_cursor(char* put) noexcept;
  // Writes the buffer's stretch out and makes the whole buffer the window again, at the cursor.
  // Inlined, with write_at_base: from a full buffer to write(2) in one frame at any -O.
  [[gnu::always_inline]] inline error_cause write_out(char* put) noexcept;
  // Declines the call at `put` when the mapping takes over now that the buffer is used up.
  bool hands_over_when_full(char* put) noexcept;
  // The tail's buffer starts over at base_, empty; its first `used` bytes went out.
  void start_tail_over(std::size_t used) noexcept {
    if (tail_) tail_->start_over(base_, size_, used);
  }
  void assert_invariant() const noexcept;
  // Writes `size` bytes at base_ (at the descriptor's offset unless positioned_), across short
  // writes, and moves base_ past them.
  [[gnu::always_inline]] inline error_cause write_at_base(const char* data,
                                                          std::size_t size) noexcept;

  // Invariant, between calls (assert_invariant):
  // - window_ lies in the buffer and ends at its end, or is empty at its start after a lost write;
  // - filled_ counts bytes of the buffer, and is 0 unless positioned_; it covers the cursor a
  //   call leaves, so that seekable() holds every byte written before it;
  // - while positioned_, base_ + the bytes filled is at most size_ only after a seek back, and
  //   descriptor_offset_ is where the last write(2) ended.
  // The buffer: memory of its own, or the tail's mapping.
  std::unique_ptr<char[]> own_buffer_;
  std::unique_ptr<tail_file> tail_;
  char* buffer_;
  std::size_t capacity_;
  // With a tail: the least time between publishes at a flush, and the last one's, in the coarse
  // clock's nanoseconds (platform::coarse_nanoseconds).
  std::int64_t publish_every_ = 0;
  std::int64_t last_publish_ = std::numeric_limits<std::int64_t>::min() / 2;
  at_flush flushing_;
  bool positioned_ = false;
  // Only while positioned_: the file offset of buffer_[0], the descriptor's offset, and the
  // file's size as far as this writer made it (what a seek from the end counts from).
  std::uint64_t base_ = 0;
  std::uint64_t descriptor_offset_ = 0;
  std::uint64_t size_ = 0;
  // The bytes behind the cursor that still hold output after a seek back inside the buffer.
  std::size_t filled_ = 0;
  handover handover_;
};

}  // namespace mapout::detail
