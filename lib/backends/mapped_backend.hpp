// The mapped strategy: the window is a MAP_SHARED mapping of the file, extended ahead of the bytes
// written (or, in extension::on_fault mode, by the SIGBUS handler when a store passes the end of
// the file) and cut back to the bytes written on close.
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <memory>

#include "backends/backend.hpp"
#include "backends/mapped_cut.hpp"
#include "mapout/options.hpp"
#include "mapping/page_population.hpp"
#include "mapping/sigbus_guard.hpp"
#include "mapping/writer_presence.hpp"

namespace mapout::detail {

class mapped_backend final : public backend {
 public:
  // Maps the file, a regular file of `size` bytes open for reading and writing, at `position`
  // now, so that a file system that cannot map fails here, not at a store. Uses
  // opts.mapping_size, opts.extension and opts.guard_faults.
  static error_cause create(open_file& file, std::uint64_t size, std::uint64_t position,
                            const options& opts, std::unique_ptr<backend>& out) noexcept;
  ~mapped_backend() override;

  bool is_mapped() const noexcept override { return true; }
  // The bytes written so far that the mapping holds.
  seek_range seekable() const noexcept override;
  void keep_stored_up_to(const char* end) noexcept override {
    high_water_ = std::max(high_water_, map_offset_ + static_cast<std::uint64_t>(end - map_));
  }
  step make_room(char* put, std::size_t wanted) noexcept override;
  step write(char* put, const char* data, std::size_t size) noexcept override;
  std::int64_t tell(const char* put) const noexcept override;
  step seek(char* put, std::int64_t offset, std::ios_base::seekdir dir,
            std::int64_t& position) noexcept override;
  step flush(char* put) noexcept override;
  error_cause publish(char* put) noexcept override;
  error_cause finish(char* put) noexcept override;

 private:
  mapped_backend(open_file& file, std::uint64_t size, std::size_t mapping_size,
                 bool extend_on_fault) noexcept;
  // Takes note of the caller's cursor: in the window, the bytes up to it were stored; in
  // seekable(), the caller moved it there. The window begins there and high_water_ covers it.
  void follow_cursor(char* put) noexcept;
  // Makes the window at cursor_ hold at least one byte, moving the mapping and extending.
  error_cause open_window(std::size_t wanted) noexcept;
  // Sets the window for the cursor within the current mapping and extent; empty outside them.
  void set_window(std::uint64_t cursor) noexcept;
  // Maps the stretch the cursor at `position` needs: the moving window, or every byte laid out
  // so far once a seek jumps back into them.
  error_cause move_mapping(std::uint64_t position) noexcept;
  // Maps `length` bytes from `offset`, a page boundary; false (errno set) where mmap refuses.
  bool map_at(std::uint64_t offset, std::size_t length) noexcept;
  error_cause unmap() noexcept;
  // Grows the file so that the bytes up to `needed` fit, with blocks from the cursor's page on.
  error_cause extend(std::uint64_t needed) noexcept;
  mapped_stretch mapping() const noexcept { return {map_, map_offset_, map_length_}; }
  // Makes a store the SIGBUS handler could not serve the file's sticky failure.
  error_cause record_guard_failure() noexcept;
  // See mapped_cut.hpp; a failure is the file's.
  error_cause cut(std::uint64_t end, bool keep_bytes_past_end, bool closing) noexcept;
  // Tells the other writers what this one may store into now: its extent, or everything while it
  // runs free, where a store past the extent lands with no call to take the claim first.
  void claim_extent() noexcept;
  // See mapped_cut.hpp's decide_free_running; call with the sizes locked.
  void decide_free_running(bool others) noexcept;
  // At each call that takes the caller's cursor: a free-running writer that another writer joined
  // since it decided stops running free, so that the other's cuts need not spare everything.
  void stop_running_free_if_joined() noexcept;
  // Whether the byte before high_water_ is a zero, which a crash recovery would cut.
  bool last_byte_is_zero() const noexcept;
  void assert_invariant() const noexcept;

  // Invariant, between calls (assert_invariant):
  // - map_ is null, or maps map_length_ bytes of the file from map_offset_, a page boundary:
  //   mapping_size_ (the moving window), or at least every byte laid out (from offset 0);
  // - window_ is empty, or lies inside the mapping with cursor_ the file offset of window_.begin,
  //   and ends at or before the extent, or, running free, at the mapping's end only when the
  //   extent is a page boundary or behind the cursor's page (only whole pages past it fault).
  // The extent, guard_.extent() whether or not the guard is armed, is what this writer may store
  // into: the file is at least that long, and presence_ claims it (running free: everything).
  std::size_t mapping_size_;
  char* map_ = nullptr;
  std::uint64_t map_offset_ = 0;
  std::size_t map_length_ = 0;
  std::uint64_t cursor_ = 0;
  // At least every offset written, and the file's size at open unless another writer held the
  // file then (its extension may be part of that size): then the end of the non-zero bytes it had.
  std::uint64_t high_water_;
  // The end mark this writer set or raised (end_mark.hpp): what a recovery keeps, zeros included.
  std::uint64_t marked_end_ = 0;
  bool extend_on_fault_;       // extension::on_fault: the SIGBUS handler may extend the file
  bool free_running_ = false;  // on_fault and alone: the window spans the whole mapping
  // The window ends where the populated pages end while pages_.populates().
  page_population pages_;
  writer_presence presence_;
  sigbus_guard guard_;
};

}  // namespace mapout::detail
