// mapout::streambuf: the put area is the output file's window; the virtuals run only when it is
// used up, or to seek and flush.
#include "mapout/streambuf.hpp"

namespace mapout {

streambuf::streambuf(streambuf&& other) noexcept
    : std::streambuf(other), file_(std::move(other.file_)) {
  other.setp(nullptr, nullptr);
}

streambuf& streambuf::operator=(streambuf&& other) noexcept {
  close();
  std::streambuf::operator=(other);
  file_ = std::move(other.file_);
  other.setp(nullptr, nullptr);
  return *this;
}

streambuf::~streambuf() {
  if (is_open()) file_.close(pptr());
}

void streambuf::swap(streambuf& other) noexcept {
  std::streambuf::swap(other);
  file_.swap(other.file_);
}

streambuf* streambuf::open(const char* path, std::ios_base::openmode mode, const options& opts) {
  return open(std::filesystem::path(path), mode, opts);
}

streambuf* streambuf::open(const std::string& path, std::ios_base::openmode mode,
                           const options& opts) {
  return open(std::filesystem::path(path), mode, opts);
}

streambuf* streambuf::open(const std::filesystem::path& path, std::ios_base::openmode mode,
                           const options& opts) {
  if (file_.is_open() || file_.open(path, mode, opts)) return nullptr;
  take_window();
  return this;
}

streambuf* streambuf::close() {
  const std::error_code ec = file_.close(pptr());
  setp(nullptr, nullptr);
  return ec ? nullptr : this;
}

bool streambuf::publish() noexcept {
  if (!is_open()) return false;
  const std::error_code ec = file_.publish(pptr());
  take_window();
  return !ec;
}

bool streambuf::persist() noexcept {
  if (!is_open()) return false;
  const std::error_code ec = file_.persist(pptr());
  take_window();
  return !ec;
}

void streambuf::take_window() noexcept {
  const output_file::window window = file_.current();
  setp(window.begin, window.end);
}

void streambuf::throw_failure(std::error_code code) const {
  if (!is_open()) {
    throw std::ios_base::failure("mapout: write '" + file_.path().string() + "' (not open)", code);
  }
  throw std::ios_base::failure(file_.error_context(), code);
}

streambuf::int_type streambuf::overflow(int_type c) {
  if (!is_open()) throw_failure(std::make_error_code(std::errc::bad_file_descriptor));
  if (traits_type::eq_int_type(c, traits_type::eof())) {
    return sync() == 0 ? traits_type::not_eof(c) : traits_type::eof();
  }
  const std::error_code ec = file_.advance(pptr(), 1);
  take_window();
  if (ec) throw_failure(ec);
  store(traits_type::to_char_type(c));  // advance left room for at least one byte
  return c;
}

std::streamsize streambuf::xsputn(const char_type* data, std::streamsize size) {
  // Nothing to write is no failure, even when closed, as for std::filebuf; a negative size writes
  // nothing, and std::ostream::write then sets badbit.
  if (size <= 0) return 0;
  if (store(data, static_cast<std::size_t>(size))) return size;
  if (!is_open()) throw_failure(std::make_error_code(std::errc::bad_file_descriptor));
  const std::error_code ec = file_.write(pptr(), data, static_cast<std::size_t>(size));
  take_window();
  if (ec) throw_failure(ec);
  return size;
}

streambuf::pos_type streambuf::seekoff(off_type offset, std::ios_base::seekdir dir,
                                       std::ios_base::openmode which) {
  const pos_type failed(off_type(-1));
  if (!(which & std::ios_base::out) || !is_open()) return failed;
  if (dir == std::ios_base::cur && offset == 0) return pos_type(file_.tell(pptr()));
  std::error_code ec;
  const std::int64_t position = file_.seek(pptr(), offset, dir, ec);
  take_window();
  return ec ? failed : pos_type(position);
}

streambuf::pos_type streambuf::seekpos(pos_type position, std::ios_base::openmode which) {
  return seekoff(off_type(position), std::ios_base::beg, which);
}

int streambuf::sync() {
  if (!is_open()) return 0;
  const std::error_code ec = file_.sync(pptr());
  take_window();
  if (!ec) return 0;
  // std::ostream::flush turns -1 into a failure that names neither the call nor errno; thrown,
  // this one reaches the caller instead. Never under unitbuf: the sentry's destructor syncs.
  if (owner_ && (owner_->exceptions() & std::ios_base::badbit) &&
      !(owner_->flags() & std::ios_base::unitbuf)) {
    throw_failure(ec);
  }
  return -1;
}

}  // namespace mapout
