// mapout::output_file: the descriptor, the mapping or buffer, and the file's extent, with a
// non-throwing std::error_code API. The streambuf and every adapter are thin layers over it.
#pragma once

#if __cplusplus < 201703L
#error "mapout's C++ API needs C++17 (-std=c++17 or later); older C++ can use mapout/mapout.h"
#endif

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <ios>
#include <memory>
#include <string>
#include <system_error>

#include "mapout/export.h"
#include "mapout/options.hpp"
#include "mapout/window.hpp"

namespace mapout {

namespace detail {
struct file_access;
}  // namespace detail

// An output file written through a window of memory: the caller stores bytes straight into the
// window and calls back only when it is used up, or to seek, flush or close.
//
//   mapout::output_file file;
//   if (auto ec = file.open("out.txt")) return ec;
//   mapout::window view = file.current();
//   // ... store into [view.begin, view.end), advancing view.begin ...
//   if (auto ec = file.make_room(view, 1)) return ec;  // used up: view is the next window
//   if (auto ec = file.close(view)) return ec;         // the file holds exactly what was written
//
// Every call that takes a window is told the caller's cursor by its begin (the bytes up to it
// were written) and hands the new window back in it. Errors from writing are sticky: once one
// happened, error() keeps it and every later write fails. While a mapout::cursor holds the window,
// every call that takes one fails with EBUSY and changes nothing.
class MAPOUT_API output_file {
 public:
  // The caller's window and where it may seek inline (mapout/window.hpp); the first by its name
  // of 0.3 and before.
  using window = mapout::window;

  using seek_range = mapout::seek_range;

  output_file() noexcept;
  // While a mapout::cursor holds other's window the file stays with other, where the cursor
  // writes on: this one is left not open, with error() EBUSY and a message that says why.
  output_file(output_file&& other) noexcept;
  // Closes this one's file and takes other's, or as the move above while a cursor holds other's
  // window; changes nothing while a cursor holds this one's.
  output_file& operator=(output_file&& other) noexcept;
  // Closes the file at current().begin (discards it with options.atomic); an error is lost, so
  // call close() to see it.
  ~output_file();
  // Changes nothing while a cursor holds either window.
  void swap(output_file& other) noexcept;

  // Opens like std::basic_filebuf::open for every mode that contains out or app. `in` adds no
  // reading: it only keeps the file from being truncated or created, as in the table.
  std::error_code open(const std::filesystem::path& path,
                       std::ios_base::openmode mode = std::ios_base::out,
                       const options& opts = {}) noexcept;
  // Takes over `fd`, open for writing, as fdopen(3) does: writing starts at its offset and keeps
  // the bytes around it, goes to the end where it has O_APPEND, and close() closes it. Only an
  // O_RDWR regular file can be mapped; on the buffer, flush() writes it out, as fflush does, for
  // the others that share the open file (a shell, a child). EBADF for a descriptor not open for
  // writing, EINVAL with options.atomic or write_if_changed (they need a path). A failed open
  // leaves fd the caller's.
  std::error_code open(int fd, const options& opts = {}) noexcept;
  bool is_open() const noexcept;
  // True when the window is a mapping of the file, false on the buffered strategy.
  bool is_mapped() const noexcept;
  // The window after open, with nothing written in it yet.
  window current() const noexcept;
  // Where the caller may seek by moving its cursor, as of the last call (see seek_range). A
  // caller that stored past its end and moves the cursor back names its stores' end in the
  // window's `stored` at its next call.
  seek_range seekable() const noexcept;

  // Makes the window hold at least one byte at the cursor; `wanted` says how many would help.
  std::error_code make_room(window& view, std::size_t wanted) noexcept;
  // Writes size bytes at the cursor, however large, through as many windows as it takes.
  std::error_code write(window& view, const char* data, std::size_t size) noexcept;
  // The cursor's offset in the file, or -1 where the target cannot seek.
  std::int64_t tell(const window& view) const noexcept;
  // Moves the cursor like lseek(2) and returns the new offset, or -1 with ec set. A failed seek is
  // not sticky: writing goes on where it was. Seeking past the end and writing leaves a hole that
  // reads as zeros.
  std::int64_t seek(window& view, std::int64_t offset, std::ios_base::seekdir dir,
                    std::error_code& ec) noexcept;
  // What std::ostream::flush asks for: the bytes go to write(2) on a pipe, a terminal, a socket,
  // an appended file or a descriptor taken over on the buffer, where another waits for them; on
  // a regular file opened by path nothing happens (the bytes are in the page cache already, or
  // wait in the buffer for publish or close), unless options.flush_publishes asks for publish().
  std::error_code flush(window& view) noexcept;
  // Makes the file's size and bytes what close() would leave, for a reader in another process,
  // while writing goes on.
  std::error_code publish(window& view) noexcept;
  // publish(), then fsync(2): the bytes are on the disk when it returns.
  std::error_code persist(window& view) noexcept;
  // Cuts the file to the bytes written, unmaps and closes, and empties view. The first error of
  // the file's life is returned, and kept in error() after the file is closed. With
  // options.atomic or write_if_changed, the temporary replaces the target only when nothing
  // failed (and, with write_if_changed, the bytes changed); otherwise it is dropped.
  std::error_code close(window& view) noexcept;
  // With options.atomic or write_if_changed: throws the bytes away, the target stays as it was,
  // and empties view; returns only the failure to remove a named temporary. Without them the
  // bytes may be in the file already and opening truncated it, so it is close().
  std::error_code discard(window& view) noexcept;
  [[deprecated("destroy the file, or call close() or discard()")]] void close_or_discard(
      window& view) noexcept {
    close_at_destruction(view);
  }

  // The file's descriptor, borrowed: mapout still owns and closes it. For fstat, fchmod, flock,
  // fdatasync and the like; bytes written through it bypass the window, and close() still cuts the
  // file to the largest offset written through mapout. -1 when no file is open. With
  // options.atomic or write_if_changed it is the temporary's.
  int native_handle() const noexcept;

  const std::filesystem::path& path() const noexcept;
  // The first write, extension or close error, the error of the last failed open, or EBADF for a
  // call made while not open.
  std::error_code error() const noexcept;
  // "mapout: <operation> '<path>': <reason>" for error(); while a mapout::cursor holds the window,
  // "mapout: <operation> '<path>': held by a mapout::cursor" for a call it refused; otherwise "".
  std::string error_message() const;
  // What the streams throw for error(): what() is error_message(), code() is error().
  std::ios_base::failure error_exception() const;
  // What the streams throw for a call that returned `ec`: error_exception() when error() is set,
  // otherwise a failure that says why `ec` came without one (EBUSY: a cursor holds the window).
  std::ios_base::failure exception_for(std::error_code ec) const;
  // Whether a mapout::cursor holds the window (see mapout/cursor.hpp).
  bool held_by_cursor() const noexcept;
  [[deprecated("use held_by_cursor()")]] bool lent() const noexcept { return held_by_cursor(); }

 private:
  friend class cursor;
  friend class streambuf;
  // The library's own faces: a name of their own, a backend of their own, a wrapper over it.
  friend struct detail::file_access;
  // What the destructors do: discard() with options.atomic, close() otherwise.
  void close_at_destruction(window& view) noexcept;
  // Set and cleared only by the cursor that holds the window; taking it, with the owner's view,
  // whose window::stored_end the cursor's own calls do not carry.
  void set_held_by_cursor(bool held, const window& owner_view = {}) noexcept;
  // The calls that hand the window back, as mapout::streambuf makes them: with where the caller
  // may move its cursor with no call as the call leaves it (seekable()), from the one call.
  std::error_code make_room(window& view, std::size_t wanted, seek_range& range) noexcept;
  std::error_code write(window& view, const char* data, std::size_t size,
                        seek_range& range) noexcept;
  std::int64_t seek(window& view, std::int64_t offset, std::ios_base::seekdir dir,
                    std::error_code& ec, seek_range& range) noexcept;
  std::error_code flush(window& view, seek_range& range) noexcept;
  std::error_code publish(window& view, seek_range& range) noexcept;
  std::error_code persist(window& view, seek_range& range) noexcept;
  // write() and make_room() for the cursor that holds the window.
  std::error_code write_from_cursor(window& view, const char* data, std::size_t size) noexcept;
  std::error_code make_room_from_cursor(window& view) noexcept;

  struct state;
  // Both opens: `fd` taken over when it is not -1, otherwise `path` opened in `mode`.
  std::error_code open(const std::filesystem::path& path, int fd, std::ios_base::openmode mode,
                       const options& opts) noexcept;
  // Takes other's state, or, while a cursor holds other's window, a state that says so.
  void move_from_unless_held(output_file& other) noexcept;
  // Returns EBUSY for a call made while a cursor holds the window; error_message() names it.
  std::error_code refuse(const char* operation) noexcept;
  std::string held_message() const;
  // Records EBADF for `operation` unless an earlier failure is kept, and returns it.
  std::error_code not_open(const char* operation) noexcept;
  // Why a call cannot be made now (a cursor holds the window, or no file is open), recorded as
  // refuse() or not_open() do; nothing when it can.
  std::error_code unavailable(const char* operation) noexcept;

  std::unique_ptr<state> state_;
};

inline void swap(output_file& a, output_file& b) noexcept {
  a.swap(b);
}

// For a tool that reads a log whose writer died (docs/logs.md): cuts the zeros of the reserve a
// mapped writer had extended the file by, keeping every byte up to its last non-zero byte and up
// to its last flush, and writes in the lines a writer with options.publish_every had flushed and
// not yet published, from its tail file, which goes (docs/live-readers.md). Opening the file for
// writing again does the same. A file that no writer left that way, or one that a writer holds
// now, stays as it is. ENOTRECOVERABLE where a tail does not fit the file any more (another file
// has its name, or another writer changed its size): the tail stays beside it.
MAPOUT_API std::error_code recover(const std::filesystem::path& path) noexcept;

}  // namespace mapout
