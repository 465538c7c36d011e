// What a writer that died leaves behind. A mapped one: its bytes, then the zeros of the reserve
// it had extended the file by. A buffer with a tail (tail_file.hpp): the tail, holding the bytes
// flushed since its last publish. Opening the file again, or mapout::recover(), cuts the zeros and
// writes the tail's bytes in.
#pragma once

#include "platform/sys.hpp"

namespace mapout::detail {

// Where fd's file still has its end mark (end_mark.hpp) and no writer holds it, cuts the file to
// the last non-zero byte, or to the mark where that is further, and removes the mark. A file with
// a live writer, or without the mark, is left as it is.
error_cause recover_after_crash(int fd) noexcept;

// Where the output `path`, open as `fd`, has a tail whose writer is gone, and the tail is one this
// process may trust (a regular file of one link, its user's or the output's owner's, naming the
// output), writes the tail's bytes where they belong with `keep_bytes` (the output was not just
// truncated), then removes it. A live writer's tail, a link, a file of another user's, or a tail
// of another mapout version stays as it is. ENOTRECOVERABLE, the tail left in place, where the
// output was changed since (another file has its name, or another writer changed its size).
error_cause recover_tail(const char* path, int fd, bool keep_bytes) noexcept;

}  // namespace mapout::detail
