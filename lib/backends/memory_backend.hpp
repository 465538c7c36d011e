// The memory strategy, for a part of a parallel output that runs ahead of its place: the window
// is memory of the part's own, which grows (moving where its reservation runs out: the window
// follows it), and the join copies it into the file once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "backends/backend.hpp"
#include "backends/growing_memory.hpp"

namespace mapout::detail {

// A part's bytes, held until the join: the memory_backend that writes them stores them here, and
// they outlive its stream's close().
class memory_region {
 public:
  memory_region() noexcept = default;
  memory_region(const memory_region&) = delete;
  memory_region& operator=(const memory_region&) = delete;
  ~memory_region() { release(); }

  // Takes the address space; nothing is usable until the stream stores.
  error_cause reserve() noexcept { return reserve_memory(space_); }
  explicit operator bool() const noexcept { return space_.base != nullptr; }
  const char* data() const noexcept { return space_.base; }
  // The bytes written, as a file's size: up to the furthest byte stored, holes zero-filled.
  std::uint64_t size() const noexcept { return stored_; }
  error_cause release() noexcept {
    stored_ = 0;
    return release_memory(space_);
  }

 private:
  friend class memory_backend;
  growing_memory space_;
  std::uint64_t stored_ = 0;
};

// Stores go straight into the region: no buffer and no system call until the usable memory is
// used up, then one that makes more of it usable (docs/parallel.md, "Memory").
class memory_backend final : public backend {
 public:
  // Fails only when the backend cannot be allocated.
  static error_cause create(open_file& file, memory_region& memory,
                            std::unique_ptr<backend>& out) noexcept;

  // Every byte written: patching a length behind a record is a move of the cursor.
  seek_range seekable() const noexcept override;
  void keep_stored_up_to(const char* end) noexcept override { note_stored(offset_of(end)); }
  bool is_mapped() const noexcept override { return false; }
  step make_room(char* put, std::size_t wanted) noexcept override;
  step write(char* put, const char* data, std::size_t size) noexcept override;
  std::int64_t tell(const char* put) const noexcept override;
  step seek(char* put, std::int64_t offset, std::ios_base::seekdir dir,
            std::int64_t& position) noexcept override;
  // Nothing to show or sync before the join: the file holds none of the part yet.
  step flush(char* put) noexcept override;
  error_cause publish(char* put) noexcept override { return flush(put).why; }
  error_cause persist(char* put) noexcept override { return flush(put).why; }
  error_cause finish(char* put) noexcept override { return flush(put).why; }

 private:
  memory_backend(open_file& file, memory_region& memory) noexcept
      : backend(file), memory_(memory) {}
  std::uint64_t offset_of(const char* at) const noexcept {
    return static_cast<std::uint64_t>(at - memory_.space_.base);
  }
  void note_stored(std::uint64_t end) noexcept {
    if (end > memory_.stored_) memory_.stored_ = end;
  }
  // Takes note of the caller's cursor: the bytes up to it were stored.
  void follow_cursor(char* put) noexcept;
  // The window from the cursor to the end of the usable memory; empty past it or after a failure.
  void set_window() noexcept;
  // Makes the bytes up to `end` usable, and more ahead of them; a failure is the part's.
  error_cause make_usable(std::uint64_t end) noexcept;
  // Has the pages from the populated end up to `end`, and a step past it, made in one call, so
  // that stores do not fault them in one at a time; stops for good at a refusal or once the
  // cursor is past the populated pages.
  void populate_up_to(std::uint64_t end) noexcept;
  // The end of the memory the window may reach: the populated pages' while populating.
  std::uint64_t window_limit() const noexcept;
  void assert_invariant() const noexcept;

  // Invariant, between calls (assert_invariant): cursor_ is where the caller writes next;
  // window_ begins there and ends at window_limit(), or is empty when the cursor is past it or
  // the part failed; the region's stored_ is at most its usable size, and populated_ too.
  memory_region& memory_;
  std::uint64_t cursor_ = 0;
  std::uint64_t populated_ = 0;  // [0, populated_) populated ahead of the stores
  bool populates_ = true;
};

}  // namespace mapout::detail
