// The mapped strategy: the window is a MAP_SHARED mapping of the file, extended ahead of the bytes
// written (or, in extension::on_sigbus mode, by the SIGBUS handler when a store passes the end of
// the file) and cut back to the largest offset written on close.
#pragma once

#include <sys/types.h>

#include <memory>

#include "backend.hpp"
#include "extension_policy.hpp"
#include "mapout/options.hpp"
#include "sigbus_guard.hpp"

namespace mapout::detail {

class mapped_backend final : public backend {
 public:
  // Maps fd, a regular file of `size` bytes open for reading and writing, at `position` now, so
  // that a file system that cannot map fails here, not at a store. Takes ownership of fd when it
  // succeeds; on failure the descriptor stays the caller's. Uses opts.reserve, opts.extension and
  // opts.guard_truncation.
  static failure create(int fd, std::uint64_t size, std::uint64_t position, const options& opts,
                        std::unique_ptr<backend>& out) noexcept;
  ~mapped_backend() override;

  bool is_mapped() const noexcept override { return true; }
  failure advance(char* put, std::size_t wanted) noexcept override;
  failure write(char* put, const char* data, std::size_t size) noexcept override;
  std::int64_t tell(const char* put) const noexcept override;
  std::int64_t seek(char* put, std::int64_t offset, std::ios_base::seekdir dir,
                    failure& why) noexcept override;
  failure sync(char* put) noexcept override;
  failure publish(char* put) noexcept override;
  failure close(char* put) noexcept override;

 private:
  mapped_backend(int fd, std::uint64_t size, std::size_t reserve, bool extends_on_fault) noexcept;
  // Takes note of the bytes stored up to put: the window begins there and high_water_ covers them.
  void record(char* put) noexcept;
  // Makes the window begin at `position` with room for at least one byte, mapping and extending.
  failure place(std::uint64_t position, std::size_t wanted) noexcept;
  // Moves the mapping so that it begins at the page holding `position`.
  failure map_at(std::uint64_t position) noexcept;
  // Points the window at `position` within the current mapping and extent; empty when outside.
  void point_window_at(std::uint64_t position) noexcept;
  failure unmap() noexcept;
  // Makes a store the SIGBUS handler could not serve this backend's sticky failure.
  failure take_guard_failure() noexcept;
  // The extent the file has now: the handler's in on_sigbus mode, ours otherwise.
  std::uint64_t current_extent() const noexcept;
  // Makes the file grow so that the bytes up to `needed` fit, with blocks for them from the page
  // that holds `position` on.
  failure extend(std::uint64_t position, std::uint64_t needed) noexcept;
  void set_extent(std::uint64_t extent) noexcept;
  // Sets the file's size to `size`.
  failure cut_to(std::uint64_t size) noexcept;
  // Cuts what the file holds past `end`, this writer's last byte, unless that could remove bytes
  // it did not put there: another mapped writer has the file open (the last one to close cuts),
  // or this is a forked child's copy of the stream. With `keep_bytes_past_end`, non-zero bytes
  // anyone stored past `end` stay.
  failure cut_extension(std::uint64_t end, bool keep_bytes_past_end) noexcept;
  bool shared_with_another_writer() const noexcept;
  // The end of the last non-zero byte in [from, to), or `from`; holes are skipped unread.
  std::uint64_t end_of_data(std::uint64_t from, std::uint64_t to) const noexcept;
  std::uint64_t end_of_nonzero(std::uint64_t begin, std::uint64_t end) const noexcept;
  // Writes [from, to) from the mapping (scratch memory after a failed extension) with pwrite(2),
  // which writes every byte that fits. Returns how many it wrote.
  std::size_t salvage(std::uint64_t from, std::uint64_t to) noexcept;
  // Populates the pages from the populated stretch's end on, so that the stores up to `needed`
  // (and a bounded step beyond) take no page fault.
  void populate(std::uint64_t position, std::uint64_t needed) noexcept;

  std::size_t reserve_;              // bytes of the mapping, a whole number of pages
  char* map_ = nullptr;              // the mapping, or null while there is none
  std::uint64_t map_offset_ = 0;     // the file offset at map_
  std::uint64_t extent_;             // the file's size as we last set it
  std::uint64_t high_water_;         // largest offset written, or the file's size at open
  std::uint64_t window_offset_ = 0;  // the file offset at window_.begin
  bool extends_on_fault_;            // extension::on_sigbus: the window spans the whole mapping
  // The file offsets [populated_begin_, populated_end_) of the current mapping whose pages were
  // populated; the window ends at populated_end_ while populates_ holds (extension::ahead, until
  // MADV_POPULATE_WRITE fails once).
  std::uint64_t populated_begin_ = 0;
  std::uint64_t populated_end_ = 0;
  bool populates_;
  pid_t owner_;         // the process that opened the file: a forked child never cuts it
  sigbus_guard guard_;  // armed in on_sigbus mode and with guard_truncation
};

}  // namespace mapout::detail
