// The memory strategy: stores land in memory of the part's own, made usable ahead of them.
#include "backends/memory_backend.hpp"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <limits>
#include <new>

#include "platform/platform.hpp"

namespace mapout::detail {
namespace {

// Memory is made usable ahead of the bytes by as much as is usable already, from 64 KiB up to
// 64 MiB: a few calls for a part, and little committed past its end. Past 2 MiB it grows by whole
// 2 MiB steps, which keep the calls few.
constexpr std::uint64_t least_step = std::uint64_t{64} << 10;
constexpr std::uint64_t largest_step = std::uint64_t{64} << 20;
constexpr std::uint64_t large_granule = std::uint64_t{2} << 20;
// Pages are populated ahead of the stores 256 KiB at a time: one call per 64 pages, and what is
// populated but not yet written stays this small (docs/decisions.md).
constexpr std::uint64_t populate_step = std::uint64_t{256} << 10;

std::uint64_t usable_target(std::uint64_t usable, std::uint64_t end) noexcept {
  const std::uint64_t ahead = std::clamp(usable, least_step, largest_step);
  const std::uint64_t target = std::max(end, usable + ahead);
  const std::uint64_t granule = usable >= large_granule ? large_granule : least_step;
  return (target + granule - 1) / granule * granule;
}

}  // namespace

error_cause memory_backend::create(open_file& file, memory_region& memory,
                                   std::unique_ptr<backend>& out) noexcept {
  std::unique_ptr<memory_backend> created(new (std::nothrow) memory_backend(file, memory));
  if (!created) return {ENOMEM, "allocate"};
  created->set_window();
  out = std::move(created);
  return {};
}

std::uint64_t memory_backend::window_limit() const noexcept {
  const std::uint64_t usable = memory_.space_.usable;
  return populates_ ? std::min(usable, populated_) : usable;
}

void memory_backend::set_window() noexcept {
  const std::uint64_t limit = window_limit();
  if (file_.error || cursor_ >= limit) {
    window_ = {};
    return;
  }
  char* const base = memory_.space_.base;
  window_ = {base + cursor_, base + limit};
}

void memory_backend::follow_cursor(char* put) noexcept {
  if (put == window_.begin) return;
  cursor_ = offset_of(put);
  note_stored(cursor_);
  set_window();
}

void memory_backend::assert_invariant() const noexcept {
  const growing_memory& space = memory_.space_;
  assert(memory_.stored_ <= space.usable);
  assert(populated_ <= space.usable);
  assert(window_.begin == window_.end ||
         (window_.begin == space.base + cursor_ && window_.end == space.base + window_limit()));
  (void)space;
}

error_cause memory_backend::make_usable(std::uint64_t end) noexcept {
  if (file_.error) return file_.error;
  growing_memory& space = memory_.space_;
  if (end <= space.usable) return {};
  const std::uint64_t target = usable_target(space.usable, end);
  if (target > std::numeric_limits<std::size_t>::max()) {
    return file_.fail({ENOMEM, "commit memory"});
  }
  // Where the memory moves by copying, the bytes stored go along; the rest of it is zeros.
  return file_.fail(commit_memory(space, static_cast<std::size_t>(target), memory_.stored_));
}

void memory_backend::populate_up_to(std::uint64_t end) noexcept {
  if (!populates_ || file_.error) return;
  // A seek past the populated pages: stores there fault as they come, as past a failure.
  if (cursor_ > populated_) {
    populates_ = false;
    return;
  }
  const growing_memory& space = memory_.space_;
  const std::uint64_t wanted = std::max(end, populated_ + populate_step);
  const std::uint64_t target =
      std::min<std::uint64_t>(space.usable, (wanted + least_step - 1) / least_step * least_step);
  if (target <= populated_) return;
  if (!platform::populate_for_writing(space.base + populated_,
                                      static_cast<std::size_t>(target - populated_))) {
    populates_ = false;
    return;
  }
  populated_ = target;
}

seek_range memory_backend::seekable() const noexcept {
  if (memory_.stored_ == 0 || file_.error) return {};
  char* const base = memory_.space_.base;
  return {base, base + memory_.stored_, 0};
}

step memory_backend::make_room(char* put, std::size_t wanted) noexcept {
  follow_cursor(put);
  const std::uint64_t end = cursor_ + std::max<std::size_t>(wanted, 1);
  const error_cause why = make_usable(end);
  if (!why) populate_up_to(end);
  set_window();
  assert_invariant();
  return {why};
}

step memory_backend::write(char* put, const char* data, std::size_t size) noexcept {
  follow_cursor(put);
  if (size > largest_offset - cursor_) return {file_.fail({EFBIG, "write"})};
  const error_cause why = make_usable(cursor_ + size);
  if (!why) {
    populate_up_to(cursor_ + size);
    std::memcpy(memory_.space_.base + cursor_, data, size);
    cursor_ += size;
    note_stored(cursor_);
  }
  set_window();
  assert_invariant();
  return {why};
}

std::int64_t memory_backend::tell(const char* put) const noexcept {
  return static_cast<std::int64_t>(put == window_.begin ? cursor_ : offset_of(put));
}

step memory_backend::seek(char* put, std::int64_t offset, std::ios_base::seekdir dir,
                          std::int64_t& position) noexcept {
  follow_cursor(put);
  position = -1;
  if (file_.error) return {file_.error};
  const std::uint64_t from = dir == std::ios_base::beg   ? 0
                             : dir == std::ios_base::cur ? cursor_
                                                         : memory_.stored_;
  std::uint64_t target = 0;
  if (!seek_target(from, offset, target)) return {{EINVAL, "seek"}};
  cursor_ = target;
  position = static_cast<std::int64_t>(cursor_);
  set_window();
  assert_invariant();
  return {};
}

step memory_backend::flush(char* put) noexcept {
  follow_cursor(put);
  return {file_.error};
}

}  // namespace mapout::detail
