// mapout::istreambuf: the get area is the mapping of the whole file, or a buffer for what cannot be
// mapped and for what the file grew by since; the virtuals run only at the end of either, to seek,
// and to put back what the get area does not hold.
#include <sys/stat.h>
#include <unistd.h>

#include <limits>
#include <new>
#include <utility>

#include "input/input_access.hpp"
#include "mapout/istream.hpp"
#include "platform/sys.hpp"

namespace mapout {

using detail::input_access;

namespace {

// What pread measured fastest into (docs/decisions.md, "reading").
constexpr std::size_t buffer_bytes = std::size_t{64} << 10;

}  // namespace

istreambuf::istreambuf(istreambuf&& other) noexcept
    : std::streambuf(other),
      input_(std::move(other.input_)),
      buffer_(std::move(other.buffer_)),
      buffered_(std::exchange(other.buffered_, false)),
      buffer_start_(std::exchange(other.buffer_start_, 0)),
      descriptor_offset_(std::exchange(other.descriptor_offset_, 0)),
      seekable_(std::exchange(other.seekable_, false)),
      cut_(std::exchange(other.cut_, false)) {
  other.setg(nullptr, nullptr, nullptr);
}

istreambuf& istreambuf::operator=(istreambuf&& other) noexcept {
  std::streambuf::operator=(other);
  input_ = std::move(other.input_);
  buffer_ = std::move(other.buffer_);
  buffered_ = std::exchange(other.buffered_, false);
  buffer_start_ = std::exchange(other.buffer_start_, 0);
  descriptor_offset_ = std::exchange(other.descriptor_offset_, 0);
  seekable_ = std::exchange(other.seekable_, false);
  cut_ = std::exchange(other.cut_, false);
  other.setg(nullptr, nullptr, nullptr);
  return *this;
}

void istreambuf::swap(istreambuf& other) noexcept {
  std::streambuf::swap(other);
  input_.swap(other.input_);
  buffer_.swap(other.buffer_);
  std::swap(buffered_, other.buffered_);
  std::swap(buffer_start_, other.buffer_start_);
  std::swap(descriptor_offset_, other.descriptor_offset_);
  std::swap(seekable_, other.seekable_);
  std::swap(cut_, other.cut_);
}

istreambuf* istreambuf::open(const std::filesystem::path& path, std::ios_base::openmode mode,
                             access advice) {
  if (input_.is_open() || input_access::open_unread(input_, path, advice)) return nullptr;
  const int fd = input_access::descriptor(input_);
  const off_t at = input_.is_mapped() ? 0 : detail::sys().lseek(fd, 0, SEEK_CUR);
  seekable_ = at >= 0;
  descriptor_offset_ = at;
  setg(nullptr, nullptr, nullptr);
  if (!(mode & std::ios_base::ate)) {
    set_position(0);
  } else if (input_.is_mapped()) {
    set_position(static_cast<std::int64_t>(input_.size()));
  } else {
    // As std::filebuf: a stream that cannot start at the end (a pipe) does not open.
    descriptor_offset_ = seekable_ ? detail::sys().lseek(fd, 0, SEEK_END) : -1;
    if (descriptor_offset_ < 0) {
      close();
      return nullptr;
    }
    set_position(descriptor_offset_);
  }
  return this;
}

istreambuf* istreambuf::close() {
  if (!input_.is_open()) return nullptr;
  setg(nullptr, nullptr, nullptr);
  buffered_ = false;
  buffer_start_ = 0;
  seekable_ = false;
  cut_ = false;
  return input_.close() ? nullptr : this;
}

void istreambuf::set_position(std::int64_t position) noexcept {
  // The mapping, empty when there is none: then only position 0 is in it, and underflow reads.
  const std::string_view mapped = input_.view();
  if (!cut_ && position <= static_cast<std::int64_t>(mapped.size())) {
    // The bytes are never written: every path that would store into the get area (pbackfail
    // with another character) fails instead.
    char* const first = const_cast<char*>(mapped.data());
    buffered_ = false;
    setg(first, first + position, first + mapped.size());
  } else {
    char* const first = buffer_.get();
    buffered_ = true;
    buffer_start_ = position;
    setg(first, first, first);
  }
}

std::int64_t istreambuf::position() const noexcept {
  return (buffered_ ? buffer_start_ : 0) + (gptr() - eback());
}

void istreambuf::throw_failure(int error, const char* operation) const {
  input_access::record_failure(input_, {error, operation});
  throw input_.error_exception();
}

void istreambuf::fill(std::int64_t position) {
  if (!buffer_) {
    buffer_.reset(new (std::nothrow) char[buffer_bytes + 1]);
    if (!buffer_) throw_failure(ENOMEM, "read");
  }
  const int fd = input_access::descriptor(input_);
  if (seekable_ && descriptor_offset_ != position) {
    descriptor_offset_ = detail::sys().lseek(fd, position, SEEK_SET);
    if (descriptor_offset_ < 0) throw_failure(errno, "seek");
  }
  // Called at the end of the get area, whose last byte is the one before `position`.
  const bool keep = egptr() > eback();
  char* const first = buffer_.get();
  if (keep) first[0] = egptr()[-1];
  char* const start = first + (keep ? 1 : 0);
  const ssize_t got = detail::retry_on_eintr(detail::sys().read, fd, start, buffer_bytes);
  if (got < 0) {
    const int error = errno;
    descriptor_offset_ = -1;
    throw_failure(error, "read");
  }
  if (seekable_) descriptor_offset_ += got;
  buffered_ = true;
  buffer_start_ = position - (keep ? 1 : 0);
  setg(first, start, start + got);
}

istreambuf::int_type istreambuf::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  if (!is_open()) return traits_type::eof();
  const std::int64_t at = position();
  if (input_.is_mapped() && !cut_) {
    // The end of the mapping: the file may have grown since (read on) or shrunk (an error).
    std::uint64_t size = 0;
    if (input_access::size_now(input_, size)) throw input_.error_exception();
    if (static_cast<std::uint64_t>(at) >= size) return traits_type::eof();
  }
  fill(at);
  if (gptr() == egptr()) return traits_type::eof();
  return traits_type::to_int_type(*gptr());
}

istreambuf::int_type istreambuf::pbackfail(int_type c) {
  // Inside the get area, sputbackc comes here only for a character other than the one before
  // the position: it cannot be put back into read-only bytes.
  if (gptr() > eback() || !is_open() || !seekable_) return traits_type::eof();
  const std::int64_t at = position();
  if (at == 0) return traits_type::eof();
  // As std::filebuf: seek back one byte and read what is there; at end of file the position stays
  // moved.
  set_position(at - 1);
  if (gptr() == egptr()) fill(at - 1);
  if (gptr() == egptr()) return traits_type::eof();
  const int_type there = traits_type::to_int_type(*gptr());
  if (traits_type::eq_int_type(c, traits_type::eof()) || traits_type::eq_int_type(c, there)) {
    return there;
  }
  set_position(at);
  return traits_type::eof();
}

istreambuf::pos_type istreambuf::seekoff(off_type offset, std::ios_base::seekdir dir,
                                         std::ios_base::openmode which) {
  const pos_type failed(off_type(-1));
  if (!(which & std::ios_base::in) || !is_open() || !seekable_) return failed;
  const int fd = input_access::descriptor(input_);
  std::int64_t base = 0;
  if (dir == std::ios_base::cur) {
    base = position();
  } else if (dir == std::ios_base::end) {
    if (!end_now(base)) return failed;
  } else if (dir != std::ios_base::beg) {
    return failed;
  }
  // lseek's limits: no position before the start, none past the largest offset.
  const std::int64_t largest = std::numeric_limits<std::int64_t>::max();
  if (offset < -base || (offset > 0 && base > largest - offset)) return failed;
  const std::int64_t target = base + offset;
  // tellg: the bytes consumed count, without a call, and the get area stays (std::filebuf's
  // answer on a device that ignores seeks, lseek's 0 less what its buffer holds, depends on the
  // buffer's size).
  if (dir == std::ios_base::cur && offset == 0) return pos_type(off_type(target));
  if (input_.is_mapped() && !cut_ && target <= static_cast<std::int64_t>(input_.size())) {
    set_position(target);
    return pos_type(off_type(target));
  }
  // Where the bytes come from the descriptor, it says where a seek lands, as for std::filebuf: a
  // device such as /dev/zero stays at 0, and a file system refuses offsets past its largest file.
  // A device may answer with the offset and stay where it was (NUL): where it is, is asked again.
  off_t landed = detail::sys().lseek(fd, target, SEEK_SET);
  if (landed >= 0) landed = detail::sys().lseek(fd, 0, SEEK_CUR);
  if (landed < 0) return failed;
  descriptor_offset_ = landed;
  if (!buffered_ || landed != position()) set_position(landed);
  return pos_type(off_type(landed));
}

bool istreambuf::end_now(std::int64_t& end) {
  const int fd = input_access::descriptor(input_);
  if (!input_.is_mapped()) {
    descriptor_offset_ = detail::sys().lseek(fd, 0, SEEK_END);
    end = descriptor_offset_;
    return end >= 0;
  }
  // The file's size now, which may be past the mapping or, cut by another process, short of it:
  // as std::ifstream, the stream then reads on from the new end, through the descriptor. Not
  // once a read met a lost page: its zeroes were taken for the file's bytes, badbit says so.
  if (input_access::faulted(input_)) throw input_.error_exception();
  struct stat st;
  if (detail::sys().fstat(fd, &st) != 0) return false;
  end = static_cast<std::int64_t>(st.st_size);
  if (end < static_cast<std::int64_t>(input_.size())) cut_ = true;
  return true;
}

istreambuf::pos_type istreambuf::seekpos(pos_type position, std::ios_base::openmode which) {
  return seekoff(off_type(position), std::ios_base::beg, which);
}

}  // namespace mapout
