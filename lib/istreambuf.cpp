// mapout::istreambuf: the get area is the whole file; the virtuals run only at its end, to seek,
// and to put back what the file does not hold.
#include "mapout/istream.hpp"

#include <limits>
#include <utility>

namespace mapout {

istreambuf::istreambuf(istreambuf&& other) noexcept
    : std::streambuf(other), input_(std::move(other.input_)), past_end_(other.past_end_) {
  other.setg(nullptr, nullptr, nullptr);
  other.past_end_ = -1;
}

istreambuf& istreambuf::operator=(istreambuf&& other) noexcept {
  std::streambuf::operator=(other);
  input_ = std::move(other.input_);
  past_end_ = std::exchange(other.past_end_, -1);
  other.setg(nullptr, nullptr, nullptr);
  return *this;
}

void istreambuf::swap(istreambuf& other) noexcept {
  std::streambuf::swap(other);
  input_.swap(other.input_);
  std::swap(past_end_, other.past_end_);
}

istreambuf* istreambuf::open(const std::filesystem::path& path, std::ios_base::openmode mode,
                             access advice) {
  if (input_.is_open() || input_.open(path, advice)) return nullptr;
  set_position((mode & std::ios_base::ate) ? static_cast<std::int64_t>(input_.size()) : 0);
  return this;
}

istreambuf* istreambuf::close() {
  if (!input_.is_open()) return nullptr;
  setg(nullptr, nullptr, nullptr);
  past_end_ = -1;
  return input_.close() ? nullptr : this;
}

void istreambuf::set_position(std::int64_t position) noexcept {
  // The bytes are never written: every path that would store into the get area (pbackfail with
  // another character) fails instead.
  char* const first = const_cast<char*>(input_.data());
  char* const last = first + input_.size();
  if (position > static_cast<std::int64_t>(input_.size())) {
    past_end_ = position;
    setg(last, last, last);
  } else {
    past_end_ = -1;
    setg(first, first + position, last);
  }
}

std::int64_t istreambuf::position() const noexcept {
  return past_end_ >= 0 ? past_end_ : gptr() - eback();
}

void istreambuf::throw_if_failed() const {
  if (input_.error()) throw input_.error_exception();
}

istreambuf::int_type istreambuf::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  throw_if_failed();
  return traits_type::eof();
}

istreambuf::int_type istreambuf::pbackfail(int_type c) {
  // Inside the file, sputbackc comes here only for a character other than the one before the
  // position, or at the very start: neither can be put back into read-only bytes.
  if (past_end_ < 0 || !is_open()) return traits_type::eof();
  // Past the end, std::filebuf seeks back one byte and reads what is there.
  set_position(past_end_ - 1);
  if (gptr() == egptr()) return traits_type::eof();
  const int_type there = traits_type::to_int_type(*gptr());
  if (traits_type::eq_int_type(c, traits_type::eof()) || traits_type::eq_int_type(c, there)) {
    return there;
  }
  return traits_type::eof();
}

istreambuf::pos_type istreambuf::seekoff(off_type offset, std::ios_base::seekdir dir,
                                         std::ios_base::openmode which) {
  const pos_type failed(off_type(-1));
  if (!(which & std::ios_base::in) || !is_open()) return failed;
  std::int64_t base = 0;
  if (dir == std::ios_base::cur) {
    base = position();
  } else if (dir == std::ios_base::end) {
    base = static_cast<std::int64_t>(input_.size());
  } else if (dir != std::ios_base::beg) {
    return failed;
  }
  // lseek's limits: no position before the start, none past the largest offset.
  const std::int64_t largest = std::numeric_limits<std::int64_t>::max();
  if (offset < -base || (offset > 0 && base > largest - offset)) return failed;
  const std::int64_t target = base + offset;
  set_position(target);
  return pos_type(off_type(target));
}

istreambuf::pos_type istreambuf::seekpos(pos_type position, std::ios_base::openmode which) {
  return seekoff(off_type(position), std::ios_base::beg, which);
}

}  // namespace mapout
