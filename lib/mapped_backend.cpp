// The mapped strategy: stores land in a MAP_SHARED mapping; the file is extended ahead of them,
// or by the SIGBUS handler when they pass its end.
#include "mapped_backend.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <new>

#include "file_extension.hpp"
#include "sys.hpp"

namespace mapout::detail {
namespace {

std::uint64_t page_size() noexcept {
  static const std::uint64_t size = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

std::size_t whole_pages(std::size_t bytes) noexcept {
  const std::size_t page = page_size();
  const std::size_t pages = bytes / page + (bytes % page != 0);
  return pages == 0 ? page : pages * page;
}

std::uint64_t page_floor(std::uint64_t offset) noexcept {
  return offset - offset % page_size();
}

std::uint64_t page_ceiling(std::uint64_t offset) noexcept {
  return page_floor(offset + page_size() - 1);
}

constexpr std::uint64_t largest_offset = std::numeric_limits<off_t>::max();

const failure blocked_sigbus = {std::make_error_code(std::errc::invalid_argument),
                                "map (SIGBUS is blocked in this thread)"};

// A page of zeros, to compare what lies past this writer's bytes against.
const char zero_page[4096] = {};

// How far ahead of the stores the mapping is populated, with one MADV_POPULATE_WRITE. A page that
// a store faults in costs a trip into a cold kernel per page; populating a stretch costs one.
// 256 MiB of header tokens through a mapping on ext4 (scratch program, medians of 5): faulting
// 0.33 GB/s with 414 ms of system time, populating 256 KiB ahead 0.43, 1 MiB 0.46 (123 ms),
// 4 MiB 0.47, a 64 KiB buffer and write(2) 0.41 (170 ms). Bounded, because populated pages past
// the final size make the closing ftruncate slower.
constexpr std::uint64_t populate_step = std::uint64_t{1} << 20;

}  // namespace

failure mapped_backend::create(int fd, std::uint64_t size, std::uint64_t position,
                               const options& opts, std::unique_ptr<backend>& out) noexcept {
  const bool extends_on_fault = opts.extension == extension::on_sigbus;
  const bool guarded = extends_on_fault || opts.guard_truncation;
  if (guarded && sigbus_blocked()) return blocked_sigbus;
  std::unique_ptr<mapped_backend> file(
      new (std::nothrow) mapped_backend(fd, size, whole_pages(opts.reserve), extends_on_fault));
  if (!file) return {std::make_error_code(std::errc::not_enough_memory), "allocate"};
  // A shared lock that every mapped writer of the file holds, so that a close can tell whether
  // another one still writes (cut_extension). Where locks are refused, a close cuts as if alone.
  struct flock shared = {};
  shared.l_type = F_RDLCK;
  shared.l_whence = SEEK_SET;
  sys().lock(fd, F_OFD_SETLK, &shared);
  failure why;
  if (guarded) why = file->guard_.arm(fd, size, extends_on_fault);
  if (!why) why = file->map_at(position);
  if (why) {
    file->fd_ = -1;
    return why;
  }
  file->point_window_at(position);
  out = std::move(file);
  return {};
}

mapped_backend::mapped_backend(int fd, std::uint64_t size, std::size_t reserve,
                               bool extends_on_fault) noexcept
    : backend(fd),
      reserve_(reserve),
      extent_(size),
      high_water_(size),
      extends_on_fault_(extends_on_fault),
      populates_(!extends_on_fault),
      owner_(::getpid()) {}

mapped_backend::~mapped_backend() {
  guard_.uncover();
  if (map_) sys().munmap(map_, reserve_);
  if (fd_ >= 0) sys().close(fd_);
}

void mapped_backend::record(char* put) noexcept {
  if (put <= window_.begin) return;
  window_offset_ += static_cast<std::uint64_t>(put - window_.begin);
  window_.begin = put;
  if (window_offset_ > high_water_) high_water_ = window_offset_;
}

failure mapped_backend::unmap() noexcept {
  char* const map = map_;
  map_ = nullptr;
  guard_.uncover();
  if (map && sys().munmap(map, reserve_) != 0) return fail("munmap");
  return {};
}

failure mapped_backend::map_at(std::uint64_t position) noexcept {
  if (guard_.armed() && sigbus_blocked()) return fail(blocked_sigbus);
  if (failure why = unmap()) return why;
  const std::uint64_t offset = position - position % page_size();
  void* const map = sys().mmap(nullptr, reserve_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_,
                               static_cast<off_t>(offset));
  if (map == MAP_FAILED) return fail("mmap");
  map_ = static_cast<char*>(map);
  map_offset_ = offset;
  populated_begin_ = populated_end_ = offset;
  guard_.cover(map_, reserve_, offset);
  return {};
}

failure mapped_backend::take_guard_failure() noexcept {
  if (!error_) {
    if (failure why = guard_.failed()) fail(why);
  }
  return error_;
}

std::uint64_t mapped_backend::current_extent() const noexcept {
  return extends_on_fault_ ? guard_.extent() : extent_;
}

failure mapped_backend::cut_to(std::uint64_t size) noexcept {
  if (sys().ftruncate(fd_, static_cast<off_t>(size)) != 0) return fail("ftruncate");
  extent_ = size;
  guard_.set_extent(size);
  // Truncating unmapped the pages past the end.
  populated_end_ = std::min(populated_end_, page_floor(size));
  populated_begin_ = std::min(populated_begin_, populated_end_);
  return {};
}

void mapped_backend::set_extent(std::uint64_t extent) noexcept {
  extent_ = extent;
  guard_.set_extent(extent);
}

failure mapped_backend::cut_extension(std::uint64_t end, bool keep_bytes_past_end) noexcept {
  struct stat st;
  if (sys().fstat(fd_, &st) != 0) return fail("fstat");
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size <= end || ::getpid() != owner_ || shared_with_another_writer()) return {};
  const std::uint64_t keep = keep_bytes_past_end ? end_of_data(end, size) : end;
  return keep < size ? cut_to(keep) : failure{};
}

bool mapped_backend::shared_with_another_writer() const noexcept {
  struct flock probe = {};
  probe.l_type = F_WRLCK;
  probe.l_whence = SEEK_SET;
  return sys().lock(fd_, F_OFD_GETLK, &probe) == 0 && probe.l_type != F_UNLCK;
}

std::uint64_t mapped_backend::end_of_data(std::uint64_t from, std::uint64_t to) const noexcept {
  std::uint64_t end = from;
  for (std::uint64_t offset = from; offset < to;) {
    off_t data = sys().lseek(fd_, static_cast<off_t>(offset), SEEK_DATA);
    if (data < 0 && errno == ENXIO) break;
    if (data < 0) data = static_cast<off_t>(offset);  // no SEEK_DATA: every byte is data
    if (static_cast<std::uint64_t>(data) >= to) break;
    const off_t hole = sys().lseek(fd_, data, SEEK_HOLE);
    const std::uint64_t stop = hole < 0 ? to : std::min(static_cast<std::uint64_t>(hole), to);
    end = std::max(end, end_of_nonzero(static_cast<std::uint64_t>(data), stop));
    offset = stop;
  }
  return end;
}

std::uint64_t mapped_backend::end_of_nonzero(std::uint64_t begin,
                                             std::uint64_t end) const noexcept {
  char chunk[sizeof zero_page];
  while (end > begin) {
    const std::size_t size =
        static_cast<std::size_t>(std::min<std::uint64_t>(end - begin, sizeof chunk));
    const std::uint64_t start = end - size;
    // Read through the descriptor, not the mapping: after a failed store part of the mapping is
    // scratch memory, not the file.
    if (sys().pread(fd_, chunk, size, static_cast<off_t>(start)) != static_cast<ssize_t>(size)) {
      return end;  // unreadable: keep it
    }
    if (std::memcmp(chunk, zero_page, size) != 0) {
      std::size_t last = size;
      while (chunk[last - 1] == 0) --last;
      return start + last;
    }
    end = start;
  }
  return begin;
}

std::size_t mapped_backend::salvage(std::uint64_t from, std::uint64_t to) noexcept {
  to = std::min(to, map_offset_ + reserve_);
  if (!map_ || from < map_offset_ || to <= from) return 0;
  std::size_t written = 0;
  while (from + written < to) {
    const ssize_t done = sys().pwrite(fd_, map_ + (from + written - map_offset_),
                                      to - from - written, static_cast<off_t>(from + written));
    if (done <= 0) break;
    written += static_cast<std::size_t>(done);
  }
  return written;
}

void mapped_backend::populate(std::uint64_t position, std::uint64_t needed) noexcept {
  if (position < populated_begin_ || position > populated_end_) {
    populated_begin_ = populated_end_ = page_floor(position);
  }
  if (needed <= populated_end_) return;
  // Never past the page that holds the end of the file: populating beyond it fails like a store.
  const std::uint64_t limit = std::min(page_ceiling(extent_), map_offset_ + reserve_);
  const std::uint64_t end =
      std::min(limit, page_ceiling(std::max(needed, populated_end_ + populate_step)));
  if (end <= populated_end_) return;
  if (sys().madvise(map_ + (populated_end_ - map_offset_), end - populated_end_,
                    MADV_POPULATE_WRITE) != 0) {
    // Before Linux 5.14 (EINVAL), or a page that cannot be had: the stores fault the pages in
    // one at a time, as without populating, and a failure shows where a store meets it.
    populates_ = false;
    return;
  }
  populated_end_ = end;
}

void mapped_backend::point_window_at(std::uint64_t position) noexcept {
  window_offset_ = position;
  const std::uint64_t map_end = map_offset_ + reserve_;
  if (!map_ || position < map_offset_ || position >= map_end) {
    window_ = {};
    return;
  }
  char* const begin = map_ + (position - map_offset_);
  std::uint64_t limit = std::min(extent_, map_end);
  if (extends_on_fault_) {
    // The stores past the file's end are what extends it, but only whole pages past it fault:
    // the rest of the page that holds an unaligned end takes stores silently, and the kernel
    // zeroes it when the file grows. There the window ends at the end, and place() extends.
    const std::uint64_t extent = guard_.extent();
    const bool faults_past_end = extent % page_size() == 0 || position >= page_ceiling(extent);
    limit = faults_past_end ? map_end : std::min(extent, map_end);
  } else if (populates_) {
    const bool populated = position >= populated_begin_ && position < populated_end_;
    limit = populated ? std::min(limit, populated_end_) : position;
  }
  window_ = {begin, limit > position ? map_ + (limit - map_offset_) : begin};
}

failure mapped_backend::place(std::uint64_t position, std::size_t wanted) noexcept {
  if (failure why = take_guard_failure()) return why;
  if (!map_ || position < map_offset_ || position >= map_offset_ + reserve_) {
    if (failure why = map_at(position)) return why;
  }
  const std::uint64_t map_end = map_offset_ + reserve_;
  const std::uint64_t needed =
      position + std::min<std::uint64_t>(std::max<std::size_t>(wanted, 1), map_end - position);
  const std::uint64_t extent = current_extent();
  if (needed > extent && (!extends_on_fault_ || extent % page_size() != 0)) {
    if (failure why = extend(position, needed)) return why;
  }
  if (populates_) populate(position, needed);
  point_window_at(position);
  return {};
}

failure mapped_backend::extend(std::uint64_t position, std::uint64_t needed) noexcept {
  const std::uint64_t extent = current_extent();
  std::uint64_t target = std::min(next_extent(extent, needed), largest_offset);
  if (needed > target) return fail({std::make_error_code(std::errc::file_too_large), "extend"});
  std::uint64_t minimal = std::min(page_ceiling(needed), target);
  // On the SIGBUS extension the file must end on a page boundary: see point_window_at.
  if (extends_on_fault_) target = page_ceiling(target);
  const extension_result result =
      extend_file(fd_, {extent, page_floor(position), minimal, target, extends_on_fault_});
  set_extent(result.extent);
  // A partial extension (up to RLIMIT_FSIZE, or a fallocate that ran out of room on the way)
  // still takes the bytes that fit; the call that needs more reports the failure.
  if (result.error != 0 && result.extent <= position) {
    return fail({std::error_code(result.error, std::system_category()), result.operation});
  }
  return {};
}

failure mapped_backend::advance(char* put, std::size_t wanted) noexcept {
  record(put);
  return place(window_offset_, wanted);
}

failure mapped_backend::write(char* put, const char* data, std::size_t size) noexcept {
  record(put);
  while (size > 0) {
    if (window_.begin == window_.end) {
      if (failure why = place(window_offset_, size)) return why;
    }
    const std::size_t chunk = std::min(size, static_cast<std::size_t>(window_.end - window_.begin));
    std::memcpy(window_.begin, data, chunk);
    record(window_.begin + chunk);
    data += chunk;
    size -= chunk;
  }
  return take_guard_failure();
}

std::int64_t mapped_backend::tell(const char* put) const noexcept {
  return static_cast<std::int64_t>(window_offset_ +
                                   static_cast<std::uint64_t>(put - window_.begin));
}

std::int64_t mapped_backend::seek(char* put, std::int64_t offset, std::ios_base::seekdir dir,
                                  failure& why) noexcept {
  record(put);
  const std::uint64_t base = dir == std::ios_base::beg   ? 0
                             : dir == std::ios_base::cur ? window_offset_
                                                         : high_water_;
  const bool out_of_range = offset < 0 ? static_cast<std::uint64_t>(-(offset + 1)) >= base
                                       : static_cast<std::uint64_t>(offset) > largest_offset - base;
  if (out_of_range) {
    why = {std::make_error_code(std::errc::invalid_argument), "seek"};
    return -1;
  }
  const std::uint64_t target = base + static_cast<std::uint64_t>(offset);
  point_window_at(target);
  return static_cast<std::int64_t>(target);
}

failure mapped_backend::sync(char* put) noexcept {
  record(put);
  return take_guard_failure();
}

failure mapped_backend::publish(char* put) noexcept {
  record(put);
  if (failure why = take_guard_failure()) return why;
  if (failure why = cut_extension(high_water_, true)) return why;
  point_window_at(window_offset_);
  return {};
}

failure mapped_backend::close(char* put) noexcept {
  record(put);
  take_guard_failure();
  std::uint64_t end = high_water_;
  const bool lost_stores = guard_.failed_at() < end;
  if (lost_stores) {
    // The bytes from the page the handler could not serve on went to scratch memory. Past the
    // file's end (a failed extension), write(2) takes what still fits of them; inside the file
    // they are lost, and the file ends there.
    end = guard_.failed_at();
    if (guard_.failed_past_the_end()) end += salvage(end, high_water_);
  }
  unmap();
  window_ = {};
  // After a lost store, the bytes past it that did reach the file are this writer's, not another's.
  cut_extension(end, !lost_stores);
  return close_descriptor();
}

}  // namespace mapout::detail
