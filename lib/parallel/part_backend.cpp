// A part's positions counted from its start, and its close seen by the other threads.
#include "parallel/part_backend.hpp"

#include <limits>
#include <utility>

#include "backends/strategy.hpp"

namespace mapout::detail {

part_backend::part_backend(open_file& file, std::unique_ptr<backend> inner, std::int64_t origin,
                           const options& opts, std::atomic<bool>& closed) noexcept
    : backend(file), inner_(std::move(inner)), origin_(origin), opts_(opts), closed_(closed) {
  window_ = inner_->current();
}

template <class... Parameters, class... Arguments>
step part_backend::run(char* put, step (backend::*call)(char*, Parameters...) noexcept,
                       Arguments&&... arguments) noexcept {
  const error_cause why = call_handing_over(
      file_, opts_, inner_, put, [] {}, call, std::forward<Arguments>(arguments)...);
  window_ = inner_->current();
  return {why};
}

seek_range part_backend::seekable() const noexcept {
  seek_range range = inner_->seekable();
  if (origin_ == 0 || !range.begin) return range;
  // Bytes before the origin are another part's: the caller may not move over them.
  if (range.offset < origin_) {
    if (range.end - range.begin <= origin_ - range.offset) return {};
    range.begin += origin_ - range.offset;
    range.offset = origin_;
  }
  range.offset -= origin_;
  return range;
}

step part_backend::make_room(char* put, std::size_t wanted) noexcept {
  return run(put, &backend::make_room, wanted);
}

step part_backend::write(char* put, const char* data, std::size_t size) noexcept {
  return run(put, &backend::write, data, size);
}

std::int64_t part_backend::tell(const char* put) const noexcept {
  const std::int64_t position = inner_->tell(put);
  return position >= 0 ? position - origin_ : position;
}

step part_backend::seek(char* put, std::int64_t offset, std::ios_base::seekdir dir,
                        std::int64_t& position) noexcept {
  position = -1;
  const bool from_start = dir == std::ios_base::beg && offset >= 0;
  if (from_start && offset > std::numeric_limits<std::int64_t>::max() - origin_) {
    return {{EINVAL, "seek"}};
  }
  const std::int64_t before = origin_ > 0 ? inner_->tell(put) : -1;
  step done = run(put, &backend::seek, from_start ? offset + origin_ : offset, dir, position);
  if (!done.why && position < origin_) {
    // Before the origin: another part's bytes, as before the start of a file of its own.
    std::int64_t back = -1;
    run(window_.begin, &backend::seek, before, std::ios_base::beg, back);
    position = -1;
    return {{EINVAL, "seek"}};
  }
  if (position >= 0) position -= origin_;
  return done;
}

step part_backend::flush(char* put) noexcept {
  return run(put, &backend::flush);
}

error_cause part_backend::finish(char* put) noexcept {
  const error_cause why = after(inner_->finish(put));
  // The part's bytes are final: a later part may take its place after them.
  closed_.store(true, std::memory_order_release);
  return why;
}

}  // namespace mapout::detail
