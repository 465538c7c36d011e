// mapout::window and mapout::seek_range: the memory a caller stores into and moves its cursor
// over, handed out by output_file.
#pragma once

#include <cstdint>

namespace mapout {

// The caller may store into [begin, end); begin is its cursor. It is empty before open, after
// close and after a seek out of the mapped range: output_file::make_room() then makes room.
struct window {
  char* begin = nullptr;
  char* end = nullptr;
};

// Bytes written before the last call that the caller may move its cursor over without a call
// until its next one: [begin, end) holds the file's bytes from `offset` on, in the same memory
// as the window. Empty on the buffer, while a cursor holds the window, and with
// write_if_changed, where every byte stored must reach the comparison through a call.
struct seek_range {
  char* begin = nullptr;
  char* end = nullptr;
  std::int64_t offset = 0;
};

}  // namespace mapout
