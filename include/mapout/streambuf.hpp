// mapout::streambuf: a std::streambuf whose put area is the output file's window.
#pragma once

#include <climits>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <ios>
#include <streambuf>
#include <string>
#include <system_error>

#include "mapout/detail/copy_short.hpp"
#include "mapout/export.h"
#include "mapout/options.hpp"
#include "mapout/output_file.hpp"

namespace mapout {

namespace detail {
struct print_window;
}  // namespace detail

// A write-only std::basic_filebuf whose put area is a mapping of the file (or, for targets that
// cannot be mapped, a buffer for write(2)): sputc and short sputn stay inline until the window is
// used up, and nothing is copied on the way to the file.
//
//   mapout::streambuf buf;
//   if (!buf.open("out.txt", std::ios::out)) return;
//   std::ostream out(&buf);
//   out << "hello\n";
//   buf.close();
//
// Failures are reported as std::filebuf reports them, never thrown: overflow (and so sputc)
// returns eof, xsputn (sputn) the count of bytes that reached the file or the window, sync
// (pubsync) -1, seekoff and seekpos pos_type(-1). error() and error_message() keep the first
// failure (errno, the operation and the path); std::ostream turns it into badbit, and
// mapout::ostream's own members throw it where exceptions() ask. Stream iterators, std::format_to
// and Boost devices over this buffer see a failed iterator or a short count, as over std::filebuf.
// Reading is not supported: underflow always reports end of file.
class MAPOUT_API streambuf : public std::streambuf {
 public:
  streambuf() = default;
  streambuf(streambuf&& other) noexcept;
  streambuf& operator=(streambuf&& other) noexcept;
  // Closes the file (discards it with options.atomic); an error is lost, so call close() to see
  // it.
  ~streambuf() override;
  void swap(streambuf& other) noexcept;

  // As std::basic_filebuf::open: `this`, or nullptr when the file could not be opened or this
  // buffer is open already; error_message() says why.
  streambuf* open(const std::filesystem::path& path, std::ios_base::openmode mode,
                  const options& opts = {});
  // Takes `file`, opened through output_file's own API, and writes on at its window: `this`, or
  // nullptr when this buffer is open already (file is left as it was) or file is not open (its
  // error() becomes this buffer's).
  streambuf* open(output_file&& file);
  // As std::basic_filebuf::close: `this`, or nullptr when the buffer was not open or anything in
  // the file's life failed, the final truncate and close included.
  streambuf* close();
  // With options.atomic or write_if_changed, throws the bytes away and leaves the target as it
  // was; otherwise close() (see output_file::discard). `this`, or nullptr on failure.
  streambuf* discard();
  bool is_open() const noexcept { return file_.is_open(); }

  // The file's size and bytes as close() would leave them, for a reader in another process.
  bool publish() noexcept;
  // publish(), then the bytes are on the disk (fsync).
  bool persist() noexcept;

  std::error_code error() const noexcept { return file_.error(); }
  std::string error_message() const { return file_.error_message(); }
  const output_file& file() const noexcept { return file_; }
  // The descriptor, borrowed (see output_file::native_handle), or -1 when closed. Call publish()
  // first when something reads the file through it.
  int native_handle() const noexcept { return file_.native_handle(); }

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char_type* data, std::streamsize size) override;
  pos_type seekoff(off_type offset, std::ios_base::seekdir dir,
                   std::ios_base::openmode which) override;
  pos_type seekpos(pos_type position, std::ios_base::openmode which) override;
  int sync() override;

 private:
  friend class ostream;
  friend class cursor;
  friend struct detail::print_window;

  // mapout::ostream's inline path: stores the bytes and returns true when they fit before the
  // window's end. Strictly before, so that an empty window (closed file) never reaches memcpy with
  // a null pointer; pbump takes an int, hence the second bound. pbump comes before the copy: after
  // it, the copied chars (which may alias anything) would make pbump load pptr again, a second
  // trip through memory on the chain that runs from one write to the next.
  bool store(const char* data, std::size_t size) noexcept {
    char* const put = pptr();
    if (size >= static_cast<std::size_t>(epptr() - put) || size > INT_MAX) return false;
    pbump(static_cast<int>(size));
    detail::copy_short(put, data, size);
    return true;
  }
  bool store(char c) noexcept {
    char* const put = pptr();
    if (put == epptr()) return false;
    pbump(1);
    *put = c;
    return true;
  }

  // mapout::ostream's inline seek: moves the cursor to `position` and returns true when it lies
  // in seekable() or at its end. Bytes stored on from seekable()'s end since the last call
  // become part of it, and the next call takes note of them (window::stored_end); not those stored
  // after a gap, where the window began past seekable(). The window then reaches at least to
  // seekable()'s end. Unsigned: a negative or overflowed position wraps to one far outside.
  bool seek_inline(std::uint64_t position) noexcept {
    char* const put = pptr();
    seek_range& range = seekable_;
    if (!range.begin || put < range.begin) return false;
    if (put > range.end) {
      if (pbase() > range.end) return false;
      range.end = put;
    }
    const std::uint64_t from = position - static_cast<std::uint64_t>(range.offset);
    if (from > static_cast<std::uint64_t>(range.end - range.begin)) return false;
    setp(range.begin + from, epptr() > range.end ? epptr() : range.end);
    return true;
  }
  // The cursor's offset when it lies in seekable() or in the window after it, else -1.
  std::int64_t tell_inline() const noexcept {
    char* const put = pptr();
    const seek_range& range = seekable_;
    if (range.begin == range.end || put < range.begin || put > epptr()) return -1;
    return range.offset + (put - range.begin);
  }

  // seekoff's way once seek_inline or tell_inline cannot serve it: a call into the file. For
  // mapout::ostream, which tried them inline already.
  pos_type seek_through(off_type offset, std::ios_base::seekdir dir);

  // xsputn's way when the bytes do not fit: the count of them that reached the file or the
  // window. Out of line: inlined, it lets the compiler load pptr and epptr as one 16-byte word,
  // which waits for the previous call's store to pptr each time (docs/decisions.md, "xsputn").
#if defined(__GNUC__)
  [[gnu::noinline]]
#endif
  std::streamsize
  write_through(const char* data, std::size_t size);

  // The put area as output_file's window (the cursor at pptr), and back: every call into the file
  // takes the one and hands back the window and seekable_ together.
  window put_area() const noexcept {
    return {pptr(), epptr(), seekable_.end};
  }
  void set_put_area(const window& view, const seek_range& range) noexcept {
    setp(view.begin, view.end);
    seekable_ = range;
  }
  // After an open, or a cursor handing the window back: no call handed out where to seek.
  void set_put_area(const window& view) noexcept {
    set_put_area(view, file_.seekable());
  }

  // After a failed write or flush nothing more reaches the file (output_file's errors are sticky):
  // an empty put area makes the next store call back and fail, where a buffer with room would
  // take bytes that are then dropped.
  void refuse_stores() noexcept {
    setp(pptr(), pptr());
  }

  output_file file_;
  seek_range seekable_;
  // A regular file not opened for appending: its offsets are the backend's arithmetic, so a
  // failed write can tell how many of its bytes reached the file.
  bool positioned_ = false;
};

inline void swap(streambuf& a, streambuf& b) noexcept {
  a.swap(b);
}

}  // namespace mapout
