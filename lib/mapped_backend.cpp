// The mapped strategy: stores land in a MAP_SHARED mapping; the file is extended ahead of them.
#include "mapped_backend.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <new>

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

constexpr std::uint64_t largest_offset = std::numeric_limits<off_t>::max();

}  // namespace

failure mapped_backend::create(int fd, std::uint64_t size, std::uint64_t position,
                               std::size_t reserve, std::unique_ptr<backend>& out) noexcept {
  std::unique_ptr<mapped_backend> file(new (std::nothrow)
                                           mapped_backend(fd, size, whole_pages(reserve)));
  if (!file) {
    sys().close(fd);
    return {std::make_error_code(std::errc::not_enough_memory), "allocate"};
  }
  if (failure why = file->map_at(position)) return why;
  file->point_window_at(position);
  out = std::move(file);
  return {};
}

mapped_backend::mapped_backend(int fd, std::uint64_t size, std::size_t reserve) noexcept
    : backend(fd), reserve_(reserve), extent_(size), high_water_(size) {}

mapped_backend::~mapped_backend() {
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
  if (map && sys().munmap(map, reserve_) != 0) return fail("munmap");
  return {};
}

failure mapped_backend::map_at(std::uint64_t position) noexcept {
  if (failure why = unmap()) return why;
  const std::uint64_t offset = position - position % page_size();
  void* const map = sys().mmap(nullptr, reserve_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_,
                               static_cast<off_t>(offset));
  if (map == MAP_FAILED) return fail("mmap");
  map_ = static_cast<char*>(map);
  map_offset_ = offset;
  return {};
}

void mapped_backend::point_window_at(std::uint64_t position) noexcept {
  window_offset_ = position;
  const std::uint64_t map_end = map_offset_ + reserve_;
  if (!map_ || position < map_offset_ || position >= map_end) {
    window_ = {};
    return;
  }
  char* const begin = map_ + (position - map_offset_);
  const std::uint64_t limit = std::min(extent_, map_end);
  window_ = {begin, limit > position ? map_ + (limit - map_offset_) : begin};
}

failure mapped_backend::place(std::uint64_t position, std::size_t wanted) noexcept {
  if (error_) return error_;
  if (!map_ || position < map_offset_ || position >= map_offset_ + reserve_) {
    if (failure why = map_at(position)) return why;
  }
  const std::uint64_t map_end = map_offset_ + reserve_;
  const std::uint64_t needed =
      position + std::min<std::uint64_t>(std::max<std::size_t>(wanted, 1), map_end - position);
  if (needed > extent_) {
    const std::uint64_t extent = std::min(extension_.next_extent(extent_, needed), largest_offset);
    if (needed > extent) {
      errno = EFBIG;
      return fail("ftruncate");
    }
    if (sys().ftruncate(fd_, static_cast<off_t>(extent)) != 0) return fail("ftruncate");
    extent_ = extent;
  }
  point_window_at(position);
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
  return error_;
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
  return error_;
}

failure mapped_backend::publish(char* put) noexcept {
  record(put);
  if (error_) return error_;
  if (extent_ != high_water_) {
    if (sys().ftruncate(fd_, static_cast<off_t>(high_water_)) != 0) return fail("ftruncate");
    extent_ = high_water_;
    point_window_at(window_offset_);
  }
  return {};
}

failure mapped_backend::close(char* put) noexcept {
  record(put);
  unmap();
  window_ = {};
  if (extent_ != high_water_ && sys().ftruncate(fd_, static_cast<off_t>(high_water_)) != 0) {
    fail("ftruncate");
  }
  return close_descriptor();
}

}  // namespace mapout::detail
