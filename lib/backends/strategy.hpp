// The strategy, decided here and nowhere else: which file systems are mapped, buffered or only
// buffered; the backend chosen at open; when the buffer hands the file over to a mapping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "backends/backend.hpp"
#include "mapout/options.hpp"

namespace mapout::detail {

enum class target_kind {
  // Not a regular file on a local file system: only the buffer can write it. Network and FUSE
  // file systems are among these: their mapped pages reach the server late, and errors surface
  // as SIGBUS.
  unmappable,
  // A file that can be mapped, where write(2) from a buffer measured faster: tmpfs and ext4.
  buffer_wins,
  // A file on a local file system where the mapping is kept.
  mapping_wins,
};

target_kind kind_of(int fd) noexcept;

// Whether a file opened with `opts` may be mapped at all. Appending maps only when crash_safe
// asks: every write must land at the end, wherever other writers left it.
inline bool may_map(const options& opts, bool append) noexcept {
  return opts.strategy != strategy::buffered && (!append || opts.crash_safe);
}

// How a file was opened, for open_backend: `may_map` says whether the mode, the strategy and the
// access allow a mapping. Writing starts at the end with `at_end`, else at `position`.
struct opening {
  bool may_map = false;
  bool append = false;
  bool at_end = false;
  std::uint64_t position = 0;
  // A descriptor taken over, which others may share: each flush writes the buffer out, as fflush.
  bool flush_writes = false;
  // A temporary that replaces the target at close: a flush keeps the bytes in the buffer.
  bool replaces = false;
  // The name the file was opened by, beside which its tail goes (tail_file.hpp); null for a
  // descriptor taken over.
  const char* path = nullptr;
};

// Both opens end here, with file.fd open: the backend the strategy picks for the target.
error_cause open_backend(open_file& file, const opening& how, const options& opts,
                         std::unique_ptr<backend>& out) noexcept;

// On strategy::automatic, when the buffer hands the file over to a mapping. The buffer tells it
// what happened; it answers whether the mapping takes over now. Each reason hands over once.
class handover {
 public:
  handover() noexcept = default;
  handover(bool when_full, bool when_scattered) noexcept
      : when_full_(when_full), when_scattered_(when_scattered) {}

  // A call finds the buffer used up: at the first, so that small files never pay for a mapping
  // (docs/decisions.md, "first buffer").
  bool at_full_buffer() noexcept {
    if (!when_full_) return false;
    when_full_ = false;
    return true;
  }
  // A stretch filled the buffer: the writer streams.
  void streams() noexcept { short_stretches_ = 0; }
  // A seek leaves the buffer after a stretch of `stretch` bytes: a jump after fewer than a page
  // is one small record at a time, which a mapping stores for a page fault where each stretch
  // costs the buffer a pwrite(2). True once the writer stores small records at scattered
  // offsets (docs/decisions.md, "random").
  bool at_seek_out(std::size_t stretch) noexcept {
    short_stretches_ = stretch < short_stretch ? short_stretches_ + 1 : 0;
    if (!when_scattered_ || short_stretches_ < scattered_after) return false;
    when_full_ = when_scattered_ = false;
    return true;
  }

 private:
  static constexpr std::size_t short_stretch = 4096;
  static constexpr std::uint64_t scattered_after = 64;

  bool when_full_ = false;
  bool when_scattered_ = false;
  // Seeks out of the buffer in a row, each after a short stretch, with no full buffer between.
  std::uint64_t short_stretches_ = 0;
};

// The hand-over that a call's step asked for: the buffer's bytes go out and a mapping takes over
// at the cursor the buffer's window begins with. Where the file cannot be mapped after all,
// writing goes on through the buffer. `in_use` is the backend either way.
void hand_over(open_file& file, const options& opts, std::unique_ptr<backend>& in_use) noexcept;

// Makes `call` on `in_use` at `put` and acts on the step it returns: the one place that does. After
// a hand-over `handed_over` runs, then the call is made again on the mapping where the step says.
// Inlined, so that the call costs no frame of its own.
template <class HandedOver, class... Parameters, class... Arguments>
[[gnu::always_inline]] inline error_cause call_handing_over(
    open_file& file, const options& opts, std::unique_ptr<backend>& in_use, char* put,
    HandedOver handed_over, step (backend::*call)(char*, Parameters...) noexcept,
    Arguments&&... arguments) noexcept {
  step done = (*in_use.*call)(put, arguments...);
  if (done.next != step::then::done) {
    hand_over(file, opts, in_use);
    handed_over();
    if (done.next == step::then::hand_over_and_repeat) {
      done = (*in_use.*call)(in_use->current().begin, arguments...);
    }
  }
  return done.why;
}

}  // namespace mapout::detail
