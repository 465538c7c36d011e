// The attribute mapout.end of a file: the end below which the bytes belong to its mapped writers,
// zeros included. A mapped writer sets it when it maps the file and raises it when a flush leaves a
// zero byte last; the last writer to close removes it. A file that keeps it after its writers are
// gone lost one of them: the zeros past the mark and past the last non-zero byte are the
// mapping's reserve, not output (crash_recovery.hpp).
#pragma once

#include <cstdint>

namespace mapout::detail {

// Whether fd's file has the mark, and its end in `end`. The calls leave errno as they found it:
// none of their failures is the stream's.
bool read_end_mark(int fd, std::uint64_t& end) noexcept;
// Sets the mark to `end`, whatever it held.
void set_end_mark(int fd, std::uint64_t end) noexcept;
// Raises the mark to `end` where it is lower or missing.
void raise_end_mark(int fd, std::uint64_t end) noexcept;
void remove_end_mark(int fd) noexcept;

}  // namespace mapout::detail
