// Whether an output's bytes equal the file it would replace, found while they are written: each
// stretch is compared with the old file at the same offsets as the window it was stored in is
// handed back, so the old file is read once at most and never after close.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>

#include "platform/sys.hpp"

namespace mapout::detail {

class comparison {
 public:
  // Compares with the file at `path`, which must be the one `expected` describes (device and
  // inode). Where it cannot be opened for reading, or is another, `out` stays empty and the output
  // counts as changed: writing it is always correct, only not free.
  static void create(const char* path, const struct stat& expected,
                     std::unique_ptr<comparison>& out) noexcept;
  comparison(const comparison&) = delete;
  comparison& operator=(const comparison&) = delete;

  // False once the output is known to differ for good: nothing more needs comparing.
  bool comparing() const noexcept { return comparing_; }
  // The output's bytes [offset, offset + size) are now `data`. A stretch that skips past the
  // highest byte written leaves zeros between, and they are compared too.
  void written(std::uint64_t offset, const char* data, std::size_t size) noexcept;
  // True when the output, `size` bytes in all, equals the old file byte for byte.
  bool unchanged(std::uint64_t size) noexcept;

 private:
  comparison() = default;
  void compare(std::uint64_t offset, const char* data, std::size_t size) noexcept;
  // Compares with zeros: what a hole in the output reads as.
  void compare_zeros(std::uint64_t from, std::uint64_t to) noexcept;
  void forget(std::uint64_t from, std::uint64_t to);
  void remember(std::uint64_t from, std::uint64_t to);
  void give_up() noexcept;

  descriptor old_;
  std::uint64_t old_size_ = 0;
  std::unique_ptr<char[]> scratch_;  // the old file's bytes, a stretch at a time
  bool comparing_ = true;
  std::uint64_t high_water_ = 0;  // the end of the highest byte written
  // The stretches, written or left as zeros, that differ from the old file, and their total: a
  // later write over them (a patched header) may still make them equal.
  std::map<std::uint64_t, std::uint64_t> differing_;
  std::uint64_t differing_bytes_ = 0;
};

}  // namespace mapout::detail
