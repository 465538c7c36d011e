// mapout::window: the stretch of memory a caller stores into, handed out by output_file.
#pragma once

namespace mapout {

// The caller may store into [begin, end); begin is its cursor. It is empty before open, after
// close and after a seek out of the mapped range: output_file::make_room() then makes room.
struct window {
  char* begin = nullptr;
  char* end = nullptr;
};

}  // namespace mapout
