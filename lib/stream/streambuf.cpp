// mapout::streambuf: the put area is the output file's window; the virtuals run only when it is
// used up, or to seek and flush.
#include "mapout/streambuf.hpp"

#include <sys/stat.h>

#include <utility>

#include "file/output_file_inline.hpp"
#include "platform/sys.hpp"

namespace mapout {

streambuf::streambuf(streambuf&& other) noexcept
    : std::streambuf(other),
      file_(std::move(other.file_)),
      seekable_(other.seekable_),
      positioned_(other.positioned_) {
  other.setp(nullptr, nullptr);
  other.seekable_ = {};
}

streambuf& streambuf::operator=(streambuf&& other) noexcept {
  // A cursor holds a window: each file stays where its cursor writes (see output_file's).
  if (file_.held_by_cursor()) return *this;
  window view = put_area();
  file_.close_at_destruction(view);
  if (other.file_.held_by_cursor()) {
    setp(nullptr, nullptr);
    seekable_ = {};
    file_ = std::move(other.file_);
    return *this;
  }
  std::streambuf::operator=(other);
  file_ = std::move(other.file_);
  seekable_ = other.seekable_;
  positioned_ = other.positioned_;
  other.setp(nullptr, nullptr);
  other.seekable_ = {};
  return *this;
}

streambuf::~streambuf() {
  if (!is_open()) return;
  window view = put_area();
  file_.close_at_destruction(view);
}

void streambuf::swap(streambuf& other) noexcept {
  if (file_.held_by_cursor() || other.file_.held_by_cursor()) return;
  std::streambuf::swap(other);
  file_.swap(other.file_);
  std::swap(seekable_, other.seekable_);
  std::swap(positioned_, other.positioned_);
}

streambuf* streambuf::open(const std::filesystem::path& path, std::ios_base::openmode mode,
                           const options& opts) {
  if (file_.is_open() || file_.open(path, mode, opts)) return nullptr;
  struct stat st;
  positioned_ = !(mode & std::ios_base::app) && detail::sys().fstat(native_handle(), &st) == 0 &&
                S_ISREG(st.st_mode);
  set_put_area(file_.current());
  return this;
}

streambuf* streambuf::open(output_file&& file) {
  if (file_.is_open()) return nullptr;
  file_ = std::move(file);
  if (!file_.is_open()) return nullptr;
  // Offsets are the backend's arithmetic on a regular file not opened for appending, and in
  // memory of the file's own, which has no descriptor.
  const int fd = native_handle();
  struct stat st;
  positioned_ = fd < 0 || (detail::sys().fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
                           (detail::sys().status_flags(fd, F_GETFL, 0) & O_APPEND) == 0);
  set_put_area(file_.current());
  return this;
}

streambuf* streambuf::close() {
  window view = put_area();
  const std::error_code ec = file_.close(view);
  set_put_area(view, {});
  return ec ? nullptr : this;
}

streambuf* streambuf::discard() {
  window view = put_area();
  const std::error_code ec = file_.discard(view);
  set_put_area(view, {});
  return ec ? nullptr : this;
}

bool streambuf::publish() noexcept {
  window view = put_area();
  seek_range range;
  const std::error_code ec = file_.publish(view, range);
  set_put_area(view, range);
  return !ec;
}

bool streambuf::persist() noexcept {
  window view = put_area();
  seek_range range;
  const std::error_code ec = file_.persist(view, range);
  set_put_area(view, range);
  return !ec;
}

streambuf::int_type streambuf::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) {
    return sync() == 0 ? traits_type::not_eof(c) : traits_type::eof();
  }
  window view = put_area();
  seek_range range;
  const std::error_code ec = file_.make_room(view, 1, range);
  set_put_area(view, range);
  if (ec) {
    refuse_stores();
    return traits_type::eof();
  }
  store(traits_type::to_char_type(c));  // make_room left room for at least one byte
  return c;
}

std::streamsize streambuf::xsputn(const char_type* data, std::streamsize size) {
  // Nothing to write is no failure, even when closed, as for std::filebuf; a negative size writes
  // nothing, and std::ostream::write then sets badbit.
  if (size <= 0) return 0;
  if (store(data, static_cast<std::size_t>(size))) return size;
  return write_through(data, static_cast<std::size_t>(size));
}

std::streamsize streambuf::write_through(const char* data, std::size_t size) {
  window view = put_area();
  const std::int64_t before = positioned_ ? file_.tell(view) : -1;
  seek_range range;
  const std::error_code ec = file_.write(view, data, size, range);
  set_put_area(view, range);
  if (!ec) return static_cast<std::streamsize>(size);
  // The cursor stops after the last byte the file or the window took. A failure found after
  // every byte was stored (a page lost under the mapping) counts none: which of them reached the
  // file is not known. Nor is it on a pipe, a device or an appended file.
  const std::int64_t after = before >= 0 ? file_.tell(view) : -1;
  refuse_stores();
  if (after <= before || static_cast<std::uint64_t>(after - before) >= size) return 0;
  return static_cast<std::streamsize>(after - before);
}

streambuf::pos_type streambuf::seekoff(off_type offset, std::ios_base::seekdir dir,
                                       std::ios_base::openmode which) {
  if (!(which & std::ios_base::out)) return pos_type(off_type(-1));
  if (dir == std::ios_base::beg && seek_inline(static_cast<std::uint64_t>(offset))) {
    return pos_type(offset);
  }
  if (dir == std::ios_base::cur) {
    const std::int64_t here = tell_inline();
    if (here >= 0 && offset == 0) return pos_type(here);
    const std::uint64_t target =
        static_cast<std::uint64_t>(here) + static_cast<std::uint64_t>(offset);
    if (here >= 0 && seek_inline(target)) return pos_type(static_cast<off_type>(target));
  }
  return seek_through(offset, dir);
}

streambuf::pos_type streambuf::seek_through(off_type offset, std::ios_base::seekdir dir) {
  if (!is_open()) return pos_type(off_type(-1));
  window view = put_area();
  if (dir == std::ios_base::cur && offset == 0) return pos_type(file_.tell(view));
  std::error_code ec;
  seek_range range;
  const std::int64_t position = file_.seek(view, offset, dir, ec, range);
  set_put_area(view, range);
  return ec ? pos_type(off_type(-1)) : pos_type(position);
}

streambuf::pos_type streambuf::seekpos(pos_type position, std::ios_base::openmode which) {
  return seekoff(off_type(position), std::ios_base::beg, which);
}

int streambuf::sync() {
  if (!is_open()) return 0;
  window view = put_area();
  seek_range range;
  const std::error_code ec = file_.flush(view, range);
  set_put_area(view, range);
  if (!ec) return 0;
  refuse_stores();
  return -1;
}

}  // namespace mapout
