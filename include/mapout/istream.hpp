// mapout::istream: a drop-in for std::ifstream whose get area is a mapping of the whole file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <ios>
#include <istream>
#include <memory>
#include <streambuf>
#include <string>
#include <string_view>
#include <system_error>

#include "mapout/export.h"
#include "mapout/input.hpp"

namespace mapout {

// A read-only std::basic_filebuf whose get area is the whole file where it can be mapped
// (mapout::mapped_input): nothing is copied on the way in, underflow runs only at the end of the
// mapping, and a seek inside it moves a pointer. What cannot be mapped is read as it is consumed,
// through a buffer of 64 KiB, as std::filebuf reads: pipes, FIFOs, character devices (an endless
// one such as /dev/zero too), /proc files, and files larger than the free address space.
//
//   mapout::istreambuf buf;
//   if (!buf.open("in.txt")) return;
//   std::istream in(&buf);
//
// As with std::filebuf, a seek past the end succeeds and reads there find end of file; seeking
// fails on a pipe. Where the bytes are read as they are consumed, a seek lands where lseek(2)
// puts the descriptor, as std::filebuf's does: on /dev/zero, which ignores seeks, at 0. tellg()
// then counts the bytes consumed since, where std::ifstream reports lseek's 0 less what its
// buffer holds, a negative position that depends on the size of that buffer. putback of
// a character other than the one before the position fails, as on a std::stringbuf opened for
// reading only: the bytes are read-only.
//
// A file another process changes while it is read: at the end of the mapping, underflow asks the
// file's size (fstat). Bytes appended since open are read on, through the buffer, as
// std::ifstream reads them. A file found smaller than its mapping is an error: underflow throws
// std::ios_base::failure (EIO, "read from a file truncated by another process", the path), which
// std::istream turns into badbit. The bytes read before that from the part that was cut away read
// as zeroes (a cut inside the last page), or as zeroes after a SIGBUS the truncation guard caught
// (a cut to fewer pages); they are never reported as a good end of file. A file replaced by
// rename is not seen: the stream reads the file it opened, as std::ifstream does. A seek from the
// end asks the size too: a file cut since is then read from its new end on, through the buffer and
// no longer the mapping, as std::ifstream reads it, so that a follower that compares tellg() with
// where it was sees the cut; error() still reports it (EIO).
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

  // The mapping of the whole file, whatever has been read of it; empty (not is_mapped()) when the
  // input is read as it is consumed.
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

  // Moves the get pointer to `position`: into the mapping, or, past it, to an empty buffer that
  // the next underflow fills from there.
  void set_position(std::int64_t position) noexcept;
  std::int64_t position() const noexcept;
  // Where the file ends now, for a seek from the end; false when that cannot be known.
  bool end_now(std::int64_t& end);
  // Reads the bytes from `position` into the buffer, keeping the byte before it for unget.
  void fill(std::int64_t position);
  // Records the failure of a call on the descriptor, for error(), and throws it.
  [[noreturn]] void throw_failure(int error, const char* operation) const;

  mapped_input input_;
  // The get area is the mapping, or, when `buffered_`, the buffer: bytes read at `buffer_start_`
  // (the file offset of eback()). The buffer comes at the first underflow that needs it.
  std::unique_ptr<char[]> buffer_;
  bool buffered_ = false;
  std::int64_t buffer_start_ = 0;
  // Where the descriptor's own offset is, -1 when unknown; lseek fails on pipes (not seekable).
  std::int64_t descriptor_offset_ = 0;
  bool seekable_ = false;
  // A seek to the end found the file smaller than its mapping: from then on every byte is read
  // through the buffer, as std::filebuf reads, and nothing from the mapping.
  bool cut_ = false;
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
  // The whole file, without reading it through the stream, where it is mapped; empty where it is
  // read as it is consumed (a pipe, a device, a file larger than the free address space).
  std::string_view view() const noexcept { return buf_.input().view(); }
  // The last open's error, or EIO once the file was found smaller than its mapping, and its
  // message.
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
