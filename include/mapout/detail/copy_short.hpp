// The copy behind mapout::ostream's inline write: short pieces without a call to memcpy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace mapout::detail {

// Copies `size` bytes, sizeof(Word) <= size <= 2 * sizeof(Word), as two words that overlap in
// the middle: two loads and two stores whatever the size. Fixed-size memcpy compiles to one move.
template <typename Word>
inline void copy_overlapping(char* to, const char* from, std::size_t size) noexcept {
  Word head;
  Word tail;
  std::memcpy(&head, from, sizeof(Word));
  std::memcpy(&tail, from + size - sizeof(Word), sizeof(Word));
  std::memcpy(to, &head, sizeof(Word));
  std::memcpy(to + size - sizeof(Word), &tail, sizeof(Word));
}

// Copies `size` bytes from `from` to `to` (no overlap). A preprocessor's tokens are mostly 1 to 16
// bytes, most of them a single byte; for those a call to memcpy costs more than the copy
// (docs/decisions.md, "The inline copy"). Each size class is what memcpy's own short-size code
// does, but inline.
inline void copy_short(char* to, const char* from, std::size_t size) noexcept {
  if (size >= 8) {
    if (size > 16) {
#if defined(__GNUC__)
      // Where the caller's sizes have a known bound, GCC expands a memcpy into rep movsq, which
      // costs records of 17 to 200 bytes twice the call's time (docs/decisions.md, "rep movsq").
      asm("" : "+r"(size));
#endif
      std::memcpy(to, from, size);
      return;
    }
    copy_overlapping<std::uint64_t>(to, from, size);
  } else if (size >= 4) {
    copy_overlapping<std::uint32_t>(to, from, size);
  } else if (size > 0) {
    // 1, 2 or 3 bytes: first, middle and last cover each.
    const char first = from[0];
    const char middle = from[size / 2];
    const char last = from[size - 1];
    to[0] = first;
    to[size / 2] = middle;
    to[size - 1] = last;
  }
}

}  // namespace mapout::detail
