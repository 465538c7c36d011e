// mapout::istream: a drop-in for std::ifstream whose get area is a mapping of the whole file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <ios>
#include <istream>
#include <streambuf>
#include <string>
#include <string_view>
#include <system_error>

#include "mapout/export.h"
#include "mapout/input.hpp"

namespace mapout {

// A read-only std::basic_filebuf whose get area is the whole file (mapout::mapped_input: the
// mapping, or the bytes read into memory where the file cannot be mapped). Nothing is copied on
// the way in, underflow runs only at the end of the file, and a seek moves a pointer.
//
//   mapout::istreambuf buf;
//   if (!buf.open("in.txt")) return;
//   std::istream in(&buf);
//
// As with std::filebuf, a seek past the end succeeds and reads there find end of file. putback of
// a character other than the one before the position fails, as on a std::stringbuf opened for
// reading only: the bytes are read-only. When another process truncates the file under the
// mapping, the lost bytes read as zeroes and underflow throws std::ios_base::failure (EIO, the
// path) at the end, which std::istream turns into badbit.
class MAPOUT_API istreambuf : public std::streambuf {
 public:
  istreambuf() = default;
  istreambuf(istreambuf&& other) noexcept;
  istreambuf& operator=(istreambuf&& other) noexcept;
  ~istreambuf() override = default;
  void swap(istreambuf& other) noexcept;

  // As std::basic_filebuf::open with `in`: `this`, or nullptr when the file could not be opened or
  // this buffer is open already; error_message() says why. Of the mode only ate counts (start at
  // the end); out, trunc and app are ignored, since nothing is written.
  istreambuf* open(const std::filesystem::path& path,
                   std::ios_base::openmode mode = std::ios_base::in,
                   access advice = access::normal);
  // As std::basic_filebuf::close: `this`, or nullptr when no file was open or closing failed.
  istreambuf* close();
  bool is_open() const noexcept { return input_.is_open(); }

  // The whole file, whatever has been read of it.
  const mapped_input& input() const noexcept { return input_; }
  std::error_code error() const noexcept { return input_.error(); }
  std::string error_message() const { return input_.error_message(); }

 protected:
  int_type underflow() override;
  int_type pbackfail(int_type c) override;
  pos_type seekoff(off_type offset, std::ios_base::seekdir dir,
                   std::ios_base::openmode which) override;
  pos_type seekpos(pos_type position, std::ios_base::openmode which) override;

 private:
  friend class istream;

  // Moves the get pointer to `position`, or past the end where lseek would go.
  void set_position(std::int64_t position) noexcept;
  std::int64_t position() const noexcept;
  // Throws the failure error() describes, when there is one.
  void throw_if_failed() const;

  mapped_input input_;
  // After a seek past the end, where the stream is; -1 when inside the file.
  std::int64_t past_end_ = -1;
};

inline void swap(istreambuf& a, istreambuf& b) noexcept {
  a.swap(b);
}

// std::ifstream's interface over mapout::istreambuf: change the type, keep the code.
//
//   mapout::istream in("words.txt");
//   for (std::string line; std::getline(in, line);) ...
//   in.seekg(0);
//
// Errors follow iostream rules: failbit when open fails; with exceptions() set, the
// std::ios_base::failure thrown names the operation and the path and carries errno as code().
class MAPOUT_API istream : public std::istream {
 public:
  istream();
  explicit istream(const std::filesystem::path& path,
                   std::ios_base::openmode mode = std::ios_base::in,
                   access advice = access::normal);
  istream(istream&& other);
  istream& operator=(istream&& other);
  void swap(istream& other);

  void open(const std::filesystem::path& path, std::ios_base::openmode mode = std::ios_base::in,
            access advice = access::normal);
  bool is_open() const noexcept { return buf_.is_open(); }
  void close();

  istreambuf* rdbuf() const noexcept { return const_cast<istreambuf*>(&buf_); }
  // The whole file, without reading it through the stream.
  std::string_view view() const noexcept { return buf_.input().view(); }
  // The last open's error, or EIO once the file lost bytes under the mapping, and its message.
  std::error_code error() const noexcept { return buf_.error(); }
  std::string error_message() const { return buf_.error_message(); }

 private:
  // Sets `state`; with exceptions() asking for it, throws a failure that carries the buffer's
  // error message and code instead of the standard library's generic one.
  void fail_with(iostate state);

  istreambuf buf_;
};

inline void swap(istream& a, istream& b) {
  a.swap(b);
}

}  // namespace mapout
