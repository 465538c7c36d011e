// What a mapped writer that died leaves behind: its bytes, then the zeros of the reserve it had
// extended the file by. Opening the file again, or mapout::recover(), cuts those zeros.
#pragma once

#include "platform/sys.hpp"

namespace mapout::detail {

// Where fd's file still has its end mark (end_mark.hpp) and no writer holds it, cuts the file to
// the last non-zero byte, or to the mark where that is further, and removes the mark. A file with
// a live writer, or without the mark, is left as it is.
error_cause recover_after_crash(int fd) noexcept;

}  // namespace mapout::detail
