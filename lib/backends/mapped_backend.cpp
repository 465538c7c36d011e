// The mapped strategy: stores land in a MAP_SHARED mapping; the file is extended ahead of them,
// or by the SIGBUS handler when they pass its end.
#include "backends/mapped_backend.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cassert>
#include <cstring>
#include <limits>
#include <new>

#include "mapping/end_mark.hpp"
#include "mapping/extent.hpp"
#include "mapping/pages.hpp"
#include "platform/platform.hpp"

namespace mapout::detail {
namespace {

// The mapping of all the bytes laid out stays within address space a 64-bit process has plenty
// of; past it, or where mmap refuses, the window moves as for a stream.
constexpr std::uint64_t largest_whole_mapping =
    std::min<std::uint64_t>(std::uint64_t{1} << 40, std::numeric_limits<std::size_t>::max() / 4);

const error_cause blocked_sigbus = {EINVAL, "map (SIGBUS is blocked in this thread)"};

}  // namespace

error_cause mapped_backend::create(open_file& file, std::uint64_t size, std::uint64_t position,
                                   const options& opts, std::unique_ptr<backend>& out) noexcept {
  const bool extend_on_fault = opts.extension == extension::on_fault;
  const bool guarded = extend_on_fault || opts.guard_faults;
  if (guarded && sigbus_blocked()) return blocked_sigbus;
  const std::size_t mapping_size =
      static_cast<std::size_t>(page_ceiling(std::max<std::size_t>(opts.mapping_size, 1)));
  std::unique_ptr<mapped_backend> mapped(
      new (std::nothrow) mapped_backend(file, size, mapping_size, extend_on_fault));
  if (!mapped) return {ENOMEM, "allocate"};
  if (opts.flush_publishes) mapped->pages_.stop();
  // So that no writer cuts what another may store into. Where locks are refused, a writer cuts
  // as if alone.
  const bool others = mapped->presence_.join(file.fd.get());
  struct stat st;
  if (sys().fstat(file.fd.get(), &st) == 0) size = static_cast<std::uint64_t>(st.st_size);
  mapped->decide_free_running(others);
  if (others) {
    // The size may hold another writer's extension past its bytes: only bytes are kept, and
    // only they are this writer's to store into until it extends.
    mapped->high_water_ = end_of_data(file.fd.get(), 0, size);
    mapped->guard_.set_extent(mapped->high_water_);
  } else {
    mapped->high_water_ = size;
    mapped->guard_.set_extent(size);
    // Alone: what closed writers of an earlier session noted is stale. The mark says the bytes
    // up to the size are output, should this writer die with its reserve in the file.
    if (sys().fstat(file.fd.get(), &st) == 0) restart_closed_end(file.fd.get(), st, size);
    mapped->marked_end_ = size;
  }
  mapped->claim_extent();
  mapped->presence_.unlock_sizes();
  if (guarded) {
    if (error_cause why = mapped->guard_.arm(file.fd.get(), extend_on_fault)) return why;
  }
  if (error_cause why = mapped->move_mapping(position)) return why;
  mapped->set_window(position);
  out = std::move(mapped);
  return {};
}

mapped_backend::mapped_backend(open_file& file, std::uint64_t size, std::size_t mapping_size,
                               bool extend_on_fault) noexcept
    : backend(file),
      mapping_size_(mapping_size),
      high_water_(size),
      extend_on_fault_(extend_on_fault),
      pages_(!extend_on_fault) {
  guard_.set_extent(size);
}

mapped_backend::~mapped_backend() {
  pages_.halt();
  guard_.uncover();
  if (map_) sys().munmap(map_, map_length_);
}

void mapped_backend::claim_extent() noexcept {
  presence_.claim(free_running_ ? writer_presence::everything : guard_.extent());
}

void mapped_backend::decide_free_running(bool others) noexcept {
  detail::decide_free_running(fd(), extend_on_fault_, high_water_, others, guard_, free_running_);
}

void mapped_backend::stop_running_free_if_joined() noexcept {
  // One lock query per call, none per store: the window is the caller's until its next call.
  if (!free_running_ || !presence_.others()) return;
  presence_.lock_sizes();
  decide_free_running(presence_.others());
  claim_extent();
  presence_.unlock_sizes();
  set_window(cursor_);
}

void mapped_backend::follow_cursor(char* put) noexcept {
  if (put == window_.begin) return;
  cursor_ = map_offset_ + static_cast<std::uint64_t>(put - map_);
  high_water_ = std::max(high_water_, cursor_);
  if (put > window_.begin && put <= window_.end) {
    window_.begin = put;
  } else {
    set_window(cursor_);
  }
}

seek_range mapped_backend::seekable() const noexcept {
  const std::uint64_t end = std::min(
      {high_water_, guard_.extent(), map_offset_ + static_cast<std::uint64_t>(map_length_)});
  if (!map_ || end <= map_offset_) return {};
  return {map_, map_ + (end - map_offset_), static_cast<std::int64_t>(map_offset_)};
}

error_cause mapped_backend::unmap() noexcept {
  pages_.halt();
  char* const map = map_;
  map_ = nullptr;
  window_ = {};
  guard_.uncover();
  return map && sys().munmap(map, map_length_) != 0 ? file_.fail("munmap") : error_cause{};
}

error_cause mapped_backend::move_mapping(std::uint64_t position) noexcept {
  if (guard_.armed() && sigbus_blocked()) return file_.fail(blocked_sigbus);
  // A jump into the bytes already laid out maps all of them, so that writes at random offsets
  // stop moving the mapping; a stream going on past the mapping's end, or out into new bytes,
  // keeps the moving window and its bound on resident pages (docs/decisions.md, "random").
  const bool streams_on = map_ && position == map_offset_ + map_length_;
  const std::uint64_t whole = page_ceiling(high_water_);
  const bool maps_whole =
      !streams_on && map_ && position < high_water_ && whole <= largest_whole_mapping;
  if (error_cause why = unmap()) return why;
  if (maps_whole && map_at(0, std::max(static_cast<std::size_t>(whole), mapping_size_))) return {};
  if (map_at(page_floor(position), mapping_size_)) return {};
  // Where a view reserves the file's blocks to its end (Windows), a nearly full disk still takes
  // a shorter one, and the full disk shows when no page fits.
  for (std::size_t length = mapping_size_ / 2; errno == ENOSPC && length >= page_size();
       length /= 2) {
    if (map_at(page_floor(position), static_cast<std::size_t>(page_ceiling(length)))) return {};
  }
  return file_.fail("mmap");
}

bool mapped_backend::map_at(std::uint64_t offset, std::size_t length) noexcept {
  void* const map = sys().mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd(),
                               static_cast<off_t>(offset));
  if (map == MAP_FAILED) return false;
  map_ = static_cast<char*>(map);
  map_offset_ = offset;
  map_length_ = length;
  pages_.mapped_at(offset);
  guard_.cover(map_, map_length_, offset);
  return true;
}

error_cause mapped_backend::record_guard_failure() noexcept {
  if (!file_.error) {
    if (error_cause why = guard_.failed()) file_.fail(why);
  }
  return file_.error;
}

void mapped_backend::set_window(std::uint64_t cursor) noexcept {
  cursor_ = cursor;
  const std::uint64_t map_end = map_offset_ + map_length_;
  if (!map_ || cursor < map_offset_ || cursor >= map_end) {
    window_ = {};
    return;
  }
  const std::uint64_t extent = guard_.extent();
  std::uint64_t limit = std::min(extent, map_end);
  if (free_running_) {
    // The stores past the file's end are what extends it, but only whole pages past it fault:
    // the rest of the page that holds an unaligned end takes stores silently, and the kernel
    // zeroes it when the file grows. There the window ends at the end, and open_window extends.
    if (extent % page_size() == 0 || cursor >= page_ceiling(extent)) limit = map_end;
  } else if (pages_.populates()) {
    // Inside what was written, the window ends with the cursor's page: a record stored there
    // faults it in itself, and a writer that streams on comes back to populate. Past what was
    // written it is empty: populate first.
    const bool populated = pages_.holds(cursor);
    const bool written = cursor < high_water_;
    limit = populated ? std::min(limit, pages_.end())
            : written ? std::min(limit, page_ceiling(cursor + 1))
                      : cursor;
  }
  char* const begin = map_ + (cursor - map_offset_);
  window_ = {begin, limit > cursor ? map_ + (limit - map_offset_) : begin};
}

error_cause mapped_backend::open_window(std::size_t wanted) noexcept {
  if (error_cause why = record_guard_failure()) return why;
  if (!map_ || cursor_ < map_offset_ || cursor_ >= map_offset_ + map_length_) {
    if (error_cause why = move_mapping(cursor_)) return why;
  }
  const std::uint64_t room = map_offset_ + map_length_ - cursor_;
  const std::uint64_t needed =
      cursor_ + std::min<std::uint64_t>(std::max<std::size_t>(wanted, 1), room);
  const std::uint64_t extent = guard_.extent();
  if (needed > extent && (!free_running_ || extent % page_size() != 0)) {
    if (error_cause why = extend(needed)) return why;
  }
  if (pages_.populates()) pages_.populate(mapping(), guard_.extent(), cursor_, high_water_, needed);
  set_window(cursor_);
  assert_invariant();
  pages_.assert_invariant(mapping());
  return {};
}

error_cause mapped_backend::extend(std::uint64_t needed) noexcept {
  presence_.lock_sizes();
  if (extend_on_fault_) decide_free_running(presence_.others());
  const std::uint64_t extent = guard_.extent();
  std::uint64_t target = std::min(next_extent(extent, needed), largest_offset);
  if (needed > target) {
    presence_.unlock_sizes();
    return file_.fail({EFBIG, "extend"});
  }
  const std::uint64_t minimal = std::min(page_ceiling(needed), target);
  // On the SIGBUS extension the file must end on a page boundary: see set_window.
  if (extend_on_fault_) target = page_ceiling(target);
  const extension_result result =
      extend_file(fd(), {extent, page_floor(cursor_), minimal, target, extend_on_fault_});
  // Where another writer made the file longer, only the bytes asked for are this one's.
  guard_.set_extent(std::min(result.extent, target));
  claim_extent();
  presence_.unlock_sizes();
  return result.why && result.extent <= cursor_ ? file_.fail(result.why) : error_cause{};
}

step mapped_backend::make_room(char* put, std::size_t wanted) noexcept {
  follow_cursor(put);
  stop_running_free_if_joined();
  return {open_window(wanted)};
}

step mapped_backend::write(char* put, const char* data, std::size_t size) noexcept {
  follow_cursor(put);
  stop_running_free_if_joined();
  while (size > 0) {
    if (window_.begin == window_.end) {
      if (error_cause why = open_window(size)) return {why};
    }
    const std::size_t chunk = std::min(size, static_cast<std::size_t>(window_.end - window_.begin));
    std::memcpy(window_.begin, data, chunk);
    follow_cursor(window_.begin + chunk);
    data += chunk;
    size -= chunk;
  }
  return {record_guard_failure()};
}

std::int64_t mapped_backend::tell(const char* put) const noexcept {
  if (put == window_.begin) return static_cast<std::int64_t>(cursor_);
  return static_cast<std::int64_t>(map_offset_ + static_cast<std::uint64_t>(put - map_));
}

step mapped_backend::seek(char* put, std::int64_t offset, std::ios_base::seekdir dir,
                          std::int64_t& position) noexcept {
  follow_cursor(put);
  stop_running_free_if_joined();
  position = -1;
  const std::uint64_t base = dir == std::ios_base::beg   ? 0
                             : dir == std::ios_base::cur ? cursor_
                                                         : high_water_;
  std::uint64_t target = 0;
  if (!seek_target(base, offset, target)) return {{EINVAL, "seek"}};
  pages_.seek(mapping(), target);
  set_window(target);
  position = static_cast<std::int64_t>(cursor_);
  return {};
}

step mapped_backend::flush(char* put) noexcept {
  follow_cursor(put);
  stop_running_free_if_joined();
  if (high_water_ > marked_end_ && last_byte_is_zero()) {
    // After a death the zeros past the last non-zero byte would be taken for the reserve.
    raise_end_mark(fd(), high_water_);
    marked_end_ = high_water_;
  }
  return {record_guard_failure()};
}

bool mapped_backend::last_byte_is_zero() const noexcept {
  const std::uint64_t last = high_water_ - 1;
  if (map_ && last >= map_offset_ && last < map_offset_ + map_length_ && last < guard_.extent()) {
    return map_[last - map_offset_] == 0;
  }
  char byte = 1;
  return sys().pread(fd(), &byte, 1, static_cast<off_t>(last)) == 1 && byte == 0;
}

error_cause mapped_backend::publish(char* put) noexcept {
  follow_cursor(put);
  stop_running_free_if_joined();
  if (error_cause why = record_guard_failure()) return why;
  if (!platform::cuts_under_mapped_views()) {
    if (error_cause why = unmap()) return why;
  }
  if (error_cause why = cut(high_water_, true, false)) return why;
  set_window(cursor_);
  return {};
}

error_cause mapped_backend::finish(char* put) noexcept {
  follow_cursor(put);
  record_guard_failure();
  std::uint64_t end = high_water_;
  const bool lost_stores = guard_.failed_at() < end;
  if (lost_stores) {
    // The bytes from the page the handler could not serve on went to scratch memory. Past the
    // file's end (a failed extension), write(2) takes what still fits of them; inside the file
    // they are lost, and the file ends there.
    end = guard_.failed_at();
    if (guard_.failed_past_the_end()) end += salvage(fd(), mapping(), end, high_water_);
  }
  unmap();
  // After a lost store, the bytes past it that did reach the file are this writer's own.
  cut(end, !lost_stores, true);
  presence_.leave();
  return file_.error;
}

error_cause mapped_backend::cut(std::uint64_t end, bool keep_bytes_past_end,
                                bool closing) noexcept {
  const error_cause why =
      cut_extension({fd(), presence_, guard_, pages_, extend_on_fault_, high_water_, free_running_},
                    end, keep_bytes_past_end, closing);
  return why ? file_.fail(why) : why;
}

void mapped_backend::assert_invariant() const noexcept {
  assert(map_offset_ % page_size() == 0);
  assert(window_.begin == window_.end ||
         (map_ && window_.begin >= map_ && window_.end <= map_ + map_length_ &&
          cursor_ == map_offset_ + static_cast<std::uint64_t>(window_.begin - map_)));
  assert(window_.begin == window_.end || free_running_ ||
         map_offset_ + static_cast<std::uint64_t>(window_.end - map_) <= guard_.extent());
}

}  // namespace mapout::detail
