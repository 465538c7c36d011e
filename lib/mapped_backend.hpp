// The mapped strategy: the window is a MAP_SHARED mapping of the file, extended ahead of the bytes
// written (or, in extension::on_fault mode, by the SIGBUS handler when a store passes the end of
// the file) and cut back to the bytes written on close.
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <memory>

#include "backend.hpp"
#include "mapout/options.hpp"
#include "page_populator.hpp"
#include "sigbus_guard.hpp"
#include "writer_presence.hpp"

namespace mapout::detail {

class mapped_backend final : public backend {
 public:
  // Maps the file, a regular file of `size` bytes open for reading and writing, at `position`
  // now, so that a file system that cannot map fails here, not at a store. Uses
  // opts.mapping_size, opts.extension and opts.guard_faults.
  static failure create(open_file& file, std::uint64_t size, std::uint64_t position,
                        const options& opts, std::unique_ptr<backend>& out) noexcept;
  ~mapped_backend() override;

  bool is_mapped() const noexcept override { return true; }
  // The bytes written so far that the mapping holds.
  seek_range seekable() const noexcept override;
  void take_stored(const char* end) noexcept override {
    high_water_ = std::max(high_water_, map_offset_ + static_cast<std::uint64_t>(end - map_));
  }
  step make_room(char* put, std::size_t wanted) noexcept override;
  step write(char* put, const char* data, std::size_t size) noexcept override;
  std::int64_t tell(const char* put) const noexcept override;
  step seek(char* put, std::int64_t offset, std::ios_base::seekdir dir,
            std::int64_t& position) noexcept override;
  failure flush(char* put) noexcept override;
  failure publish(char* put) noexcept override;
  failure finish(char* put) noexcept override;

 private:
  mapped_backend(open_file& file, std::uint64_t size, std::size_t mapping_size,
                 bool extend_on_fault) noexcept;
  // Takes note of the caller's cursor: in the window, the bytes up to it were stored; in
  // seekable(), the caller moved it there. The window begins there and high_water_ covers it.
  void take_cursor(char* put) noexcept;
  // Makes the window at cursor_ hold at least one byte, moving the mapping and extending.
  failure open_window(std::size_t wanted) noexcept;
  // Sets the window for the cursor within the current mapping and extent; empty outside them.
  void set_window(std::uint64_t cursor) noexcept;
  // Maps the stretch the cursor at `position` needs: the moving window, or every byte laid out
  // so far once a seek jumps back into them.
  failure move_mapping(std::uint64_t position) noexcept;
  // Maps `length` bytes from `offset`, a page boundary; false (errno set) where mmap refuses.
  bool map_at(std::uint64_t offset, std::size_t length) noexcept;
  failure unmap() noexcept;
  // Grows the file so that the bytes up to `needed` fit, with blocks from the cursor's page on.
  failure extend(std::uint64_t needed) noexcept;
  // Populates the pages from the populated stretch's end on, so that the stores up to `needed`
  // (and a bounded step beyond) take no page fault.
  void populate(std::uint64_t needed) noexcept;
  // The populating thread once the file is large enough to be worth one, else null; never in a
  // forked child, which has no copy of the thread.
  page_populator* background(std::uint64_t needed) noexcept;
  // Stops the populating thread, before the mapping goes or the file is cut.
  void halt_background() noexcept;
  // Makes a store the SIGBUS handler could not serve the file's sticky failure.
  failure take_guard_failure() noexcept;
  // Cuts what the file holds past `end`, this writer's last byte, but never below what another
  // writer claims (or a forked copy of this one), nor below what writers of this process that
  // closed first wrote. With `keep_bytes_past_end`, non-zero bytes anyone stored past `end`
  // stay. Afterwards this writer claims no more than `end`, unless it is `closing`.
  failure cut_extension(std::uint64_t end, bool keep_bytes_past_end, bool closing) noexcept;
  failure cut_locked(std::uint64_t end, bool keep_bytes_past_end, bool closing) noexcept;
  // Tells the other writers what this one may store into now: its extent, or everything where a
  // store past the file's end extends it with no call to take the claim first.
  void claim_extent() noexcept;
  // The end of the last non-zero byte in [from, to) that is in the page cache, or `from`.
  std::uint64_t end_of_data(std::uint64_t from, std::uint64_t to) const noexcept;
  // Writes [from, to) from the mapping (scratch memory after a failed extension) with pwrite(2),
  // which writes every byte that fits. Returns how many it wrote.
  std::size_t salvage(std::uint64_t from, std::uint64_t to) noexcept;
  void assert_invariant() const noexcept;

  // Invariant, between calls (assert_invariant):
  // - map_ is null, or maps map_length_ bytes of the file from map_offset_, a page boundary:
  //   mapping_size_ (the moving window), or at least every byte laid out (from offset 0);
  // - window_ is empty, or lies inside the mapping with cursor_ the file offset of window_.begin,
  //   and ends at or before the extent (ahead), or at the mapping's end only when the extent is
  //   a page boundary or behind the cursor's page (on_fault: only whole pages past it fault);
  // - [populated_begin_, populated_end_) is a run of whole pages inside the mapping;
  // - high_water_ is at least every offset written, and the file's size at open unless another
  //   writer held the file then (its extension may be part of that size): then the end of the
  //   non-zero bytes it had.
  // The extent, guard_.extent() whether or not the guard is armed, is what this writer may store
  // into: the file is at least that long, and presence_ claims it (on_fault: everything).
  std::size_t mapping_size_;
  char* map_ = nullptr;
  std::uint64_t map_offset_ = 0;
  std::size_t map_length_ = 0;
  std::uint64_t cursor_ = 0;
  std::uint64_t high_water_;
  bool extend_on_fault_;  // extension::on_fault: the window spans the whole mapping
  // Pages populated with MADV_POPULATE_WRITE; the window ends where they end while populates_
  // holds (extension::ahead, until the kernel refuses once).
  std::uint64_t populated_begin_ = 0;
  std::uint64_t populated_end_ = 0;
  bool populates_;
  std::unique_ptr<page_populator> populator_;
  bool populator_tried_ = false;
  bool populator_halted_ = true;  // its next pages must be set from populated_end_
  pid_t owner_;                   // the process that opened the file: a forked child has no thread
  writer_presence presence_;
  sigbus_guard guard_;
};

}  // namespace mapout::detail
