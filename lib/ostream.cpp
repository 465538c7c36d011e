// mapout::ostream: std::ofstream's members over mapout::streambuf.
#include "mapout/ostream.hpp"

namespace mapout {

ostream::ostream() : std::ostream(nullptr) {
  init(&buf_);
}

ostream::ostream(const char* path, std::ios_base::openmode mode, const options& opts) : ostream() {
  open(path, mode, opts);
}

ostream::ostream(const std::string& path, std::ios_base::openmode mode, const options& opts)
    : ostream() {
  open(path, mode, opts);
}

ostream::ostream(const std::filesystem::path& path, std::ios_base::openmode mode,
                 const options& opts)
    : ostream() {
  open(path, mode, opts);
}

ostream::ostream(ostream&& other) : std::ostream(std::move(other)), buf_(std::move(other.buf_)) {
  set_rdbuf(&buf_);
}

ostream& ostream::operator=(ostream&& other) {
  std::ostream::operator=(std::move(other));
  buf_ = std::move(other.buf_);
  return *this;
}

void ostream::swap(ostream& other) {
  std::ostream::swap(other);
  buf_.swap(other.buf_);
}

void ostream::open(const char* path, std::ios_base::openmode mode, const options& opts) {
  open(std::filesystem::path(path), mode, opts);
}

void ostream::open(const std::string& path, std::ios_base::openmode mode, const options& opts) {
  open(std::filesystem::path(path), mode, opts);
}

void ostream::open(const std::filesystem::path& path, std::ios_base::openmode mode,
                   const options& opts) {
  if (buf_.open(path, mode | std::ios_base::out, opts)) {
    clear();
  } else {
    fail_with(failbit);
  }
}

void ostream::close() {
  if (!buf_.close()) fail_with(failbit);
}

ostream& ostream::publish() {
  if (!buf_.publish()) fail_with(badbit);
  return *this;
}

ostream& ostream::persist() {
  if (!buf_.persist()) fail_with(badbit);
  return *this;
}

void ostream::fail_with(iostate state) {
  try {
    setstate(state);
  } catch (const std::ios_base::failure&) {
    std::error_code code = buf_.error();
    std::string message = buf_.error_message();
    if (!code) {
      code = std::make_error_code(std::io_errc::stream);
      message = buf_.is_open() ? "mapout: open: already open" : "mapout: not open";
    }
    throw std::ios_base::failure(message, code);
  }
}

}  // namespace mapout
