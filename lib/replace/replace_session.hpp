// One replacement of a target, from open to close: the temporary that replaces it (replacement)
// and, with write_if_changed, the comparison with the old file, fed the caller's stores.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "backends/backend.hpp"
#include "mapout/options.hpp"
#include "replace/comparison.hpp"
#include "replace/replacement.hpp"

namespace mapout::detail {

class replace_session {
 public:
  // Opens a temporary for the target at `path` into file.fd and, with opts.write_if_changed, the
  // old file to compare with.
  static error_cause open(const char* path, const options& opts, open_file& file,
                          std::unique_ptr<replace_session>& out) noexcept;

  // Whether the bytes are compared: then every store must reach the session through a call.
  bool compares() const noexcept { return comparison_ != nullptr; }
  // `b` handed its window out: nothing in it is stored yet. The one cost on the caller's path is
  // a tell() per window, and only while comparing.
  void window_handed_out(const backend& b) noexcept {
    if (!comparing()) return;
    compared_from_ = b.current().begin;
    compared_offset_ = static_cast<std::uint64_t>(b.tell(compared_from_));
  }
  // The caller stored the window's bytes up to its cursor `put`.
  void stored_up_to(char* put) noexcept {
    if (!comparing() || put <= compared_from_) return;
    const auto size = static_cast<std::size_t>(put - compared_from_);
    comparison_->written(compared_offset_, compared_from_, size);
    compared_offset_ += size;
    compared_from_ = put;
  }
  // `size` bytes of `data` go in at the cursor, where stored_up_to() left it, past the window
  // perhaps.
  void writes(const char* data, std::size_t size) noexcept {
    if (comparing()) comparison_->written(compared_offset_, data, size);
  }
  // The output's bytes [offset, offset + size) are `data`: for a writer that stores into the
  // temporary without a window (parallel_output).
  void compare(std::uint64_t offset, const char* data, std::size_t size) noexcept {
    if (comparing()) comparison_->written(offset, data, size);
  }
  // Renames the temporary over the target, unless anything failed or the bytes are the old ones;
  // with `durable`, after fdatasync. Closes file.fd and ends the session either way.
  void commit(open_file& file, bool durable) noexcept;
  // Throws the bytes away: closes file.fd and removes a named temporary; ends the session.
  void drop(open_file& file) noexcept;

 private:
  replace_session() = default;
  bool comparing() const noexcept { return comparison_ && comparison_->comparing(); }

  std::unique_ptr<replacement> replacement_;
  std::unique_ptr<comparison> comparison_;  // with write_if_changed and an old file to read
  // The caller's stores from compared_from_ (at compared_offset_ in the file) on are compared when
  // the window comes back.
  char* compared_from_ = nullptr;
  std::uint64_t compared_offset_ = 0;
};

}  // namespace mapout::detail
