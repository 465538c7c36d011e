// mapout::window and mapout::seek_range: the memory a caller stores into and moves its cursor
// over, handed out by output_file.
#pragma once

#include <cstdint>

namespace mapout {

// The caller may store into [begin, end); begin is its cursor. It is empty before open, after
// close and after a seek out of the mapped range: output_file::make_room() then makes room.
//
// Handing memory out and taking its unused tail back (Protocol Buffers' ZeroCopyOutputStream:
// Next, then BackUp): hand out [begin, end) and move begin to end, all of it counted as written;
// to give back the last n bytes the writer did not fill, move begin back n. That is allowed
// until the next call, no further back than where the window began at the last call, and over
// bytes nothing was stored into: they still hold what they held (on a mapping, the file's
// bytes or zeros), and the next call takes begin as the end of what was written. Such bytes need
// no stored_end. mapout::cursor's next() and back_up() do this for an open mapout::ostream,
// streambuf or output_file (mapout/cursor.hpp).
struct window {
  char* begin = nullptr;
  char* end = nullptr;
  // For a caller that moved its cursor back into seekable() since the last call: the end of the
  // bytes it may have stored, seekable()'s end or further where it stored on from there. The
  // next call takes note of them. Null, or at most begin, for a caller that did not move back.
  char* stored_end = nullptr;
};

// Bytes written before the last call that the caller may move its cursor over without a call
// until its next one: [begin, end) holds the file's bytes from `offset` on, in the same memory
// as the window, and the cursor may also stand at `end`. A caller that stored on from `end`
// may move back too, and names the end of its stores in window::stored_end at its next call. On the
// buffer it is the stretch the buffer holds of a positioned file. Empty (both null) on a pipe,
// device or appended file, while a cursor holds the window, and with write_if_changed, where every
// byte stored must reach the comparison through a call.
struct seek_range {
  char* begin = nullptr;
  char* end = nullptr;
  std::int64_t offset = 0;
};

}  // namespace mapout
