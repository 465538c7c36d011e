// mapout::istream: std::ifstream's members over mapout::istreambuf.
#include "mapout/istream.hpp"

#include <utility>

#include "base/error_text.hpp"

namespace mapout {

istream::istream() : std::istream(nullptr) {
  init(&buf_);
}

istream::istream(const std::filesystem::path& path, std::ios_base::openmode mode, access advice)
    : istream() {
  open(path, mode, advice);
}

istream::istream(istream&& other) : std::istream(std::move(other)), buf_(std::move(other.buf_)) {
  set_rdbuf(&buf_);
}

istream& istream::operator=(istream&& other) {
  std::istream::operator=(std::move(other));
  buf_ = std::move(other.buf_);
  return *this;
}

void istream::swap(istream& other) {
  std::istream::swap(other);
  buf_.swap(other.buf_);
}

void istream::open(const std::filesystem::path& path, std::ios_base::openmode mode, access advice) {
  if (buf_.open(path, mode | std::ios_base::in, advice)) {
    clear();
  } else {
    fail_with(failbit);
  }
}

void istream::close() {
  if (!buf_.close()) fail_with(failbit);
}

void istream::fail_with(iostate state) {
  detail::fail_with(*this, state, buf_.is_open(), [this]() -> std::optional<failure> {
    if (buf_.error()) return buf_.input().error_exception();
    return std::nullopt;
  });
}

}  // namespace mapout
