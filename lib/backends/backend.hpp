// The interface output_file drives, and the state of an open file that its implementations
// borrow: one stores into a mapping of the file (mapped_backend.cpp), one buffers for write(2)
// (buffered_backend.cpp), and one stores a parallel output's part into memory of its own
// (memory_backend.cpp).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <ios>
#include <limits>

#include "mapout/window.hpp"
#include "platform/sys.hpp"

namespace mapout::detail {

// What output_file keeps of an open file, whichever backend writes it.
struct open_file {
  descriptor fd;
  // The first failure that lost bytes, or of a failed open. Sticky: nothing is written after it.
  error_cause error;

  error_cause fail(error_cause why) noexcept {
    if (!error) error = why;
    return why;
  }
  error_cause fail(const char* operation) noexcept { return fail(errno_failure(operation)); }
};

// The largest offset a file can have: where a seek or a write must stop, as on a file of its own.
constexpr std::uint64_t largest_offset = std::numeric_limits<off_t>::max();

// Where a seek by `offset` from `from` lands, in `target`; false (EINVAL) where it would land
// before the start or past the largest offset.
inline bool seek_target(std::uint64_t from, std::int64_t offset, std::uint64_t& target) noexcept {
  const bool out_of_range = offset < 0 ? static_cast<std::uint64_t>(-(offset + 1)) >= from
                                       : static_cast<std::uint64_t>(offset) > largest_offset - from;
  target = from + static_cast<std::uint64_t>(offset);
  return !out_of_range;
}

// What a call that may hand the file over did: `next` says whether the caller carries on, or
// the strategy hands the file over to the mapping at the cursor current() begins with
// (strategy.hpp), before the call, which was not made and is to be made on the mapping, or after
// it.
struct step {
  enum class then : unsigned char { done, hand_over_and_repeat, hand_over };
  error_cause why;
  then next = then::done;
};

// `put` is the caller's cursor in current(): the bytes from current().begin up to it were
// written. Or, after the caller moved its cursor itself, anywhere in seekable() or at its end:
// then the bytes it wrote since the last call lie inside seekable(), or up to the end
// keep_stored_up_to() was given first. Each call leaves current().begin at the new cursor;
// output_file hands the new window back to its caller.
class backend {
 public:
  explicit backend(open_file& file) noexcept : file_(file) {}
  backend(const backend&) = delete;
  backend& operator=(const backend&) = delete;
  virtual ~backend() = default;

  const window& current() const noexcept { return window_; }
  // See output_file::seekable: where the caller may move its cursor with no call.
  virtual seek_range seekable() const noexcept { return {}; }
  // Before the call: the caller stored up to `end`, in current() from seekable()'s end on, and
  // moved its cursor back. Only a backend with a seekable() ever sees it.
  virtual void keep_stored_up_to(const char* end) noexcept { static_cast<void>(end); }
  virtual bool is_mapped() const noexcept = 0;

  // Makes the window hold at least one byte at the cursor; `wanted` says how many would help.
  virtual step make_room(char* put, std::size_t wanted) noexcept = 0;
  // Writes `size` bytes at the cursor, through as many windows as it takes.
  virtual step write(char* put, const char* data, std::size_t size) noexcept = 0;
  virtual std::int64_t tell(const char* put) const noexcept = 0;
  // Sets `position` to the new offset, or -1 when it fails; a failed seek is not sticky.
  virtual step seek(char* put, std::int64_t offset, std::ios_base::seekdir dir,
                    std::int64_t& position) noexcept = 0;
  // May hand the file over: the buffer's bytes go to a mapping, where a death loses none.
  virtual step flush(char* put) noexcept = 0;
  virtual error_cause publish(char* put) noexcept = 0;
  // A flush under options.flush_publishes: publish(), where a backend spaces its publishes no
  // further (buffered_backend's tail).
  virtual error_cause publish_at_flush(char* put) noexcept { return publish(put); }
  virtual error_cause persist(char* put) noexcept {
    if (error_cause why = publish(put)) return why;
    return retry_on_eintr(sys().fsync, fd()) == 0 ? error_cause{} : file_.fail("fsync");
  }
  // Leaves the file as close() must, whatever failed before; the owner closes the descriptor.
  virtual error_cause finish(char* put) noexcept = 0;

 protected:
  int fd() const noexcept { return file_.fd.get(); }

  open_file& file_;
  window window_;
};

}  // namespace mapout::detail
