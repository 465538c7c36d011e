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

namespace mapout {

// An output file written through a window of memory: the caller stores bytes straight into the
// window and calls back only when it is used up, or to seek, flush or close.
//
//   mapout::output_file file;
//   if (auto ec = file.open("out.txt")) return ec;
//   char* put = file.current().begin;
//   // ... store into [put, file.current().end), advancing put ...
//   if (auto ec = file.advance(put, 1)) return ec;  // window used up: get the next one
//   put = file.current().begin;
//   if (auto ec = file.close(put)) return ec;       // the file now holds exactly what was written
//
// Every call that takes `put` is told the caller's cursor in the current window (the bytes from
// current().begin up to put were written) and leaves current().begin at the new cursor. Errors
// from writing are sticky: once one happened, error() keeps it and every later write fails.
class MAPOUT_API output_file {
 public:
  // The caller may store into [begin, end). It is empty before open, after close and after a seek
  // out of the mapped range: advance() then makes room.
  struct window {
    char* begin = nullptr;
    char* end = nullptr;
  };

  output_file() noexcept;
  output_file(output_file&& other) noexcept;
  output_file& operator=(output_file&& other) noexcept;
  // Closes the file; an error is lost, so call close() to see it.
  ~output_file();
  void swap(output_file& other) noexcept;

  // Opens like std::basic_filebuf::open for every mode that contains out or app. `in` adds no
  // reading: it only keeps the file from being truncated or created, as in the table.
  std::error_code open(const std::filesystem::path& path,
                       std::ios_base::openmode mode = std::ios_base::out,
                       const options& opts = {}) noexcept;
  bool is_open() const noexcept;
  // True when the window is a mapping of the file, false on the buffered strategy.
  bool is_mapped() const noexcept;
  window current() const noexcept;

  // Makes current() hold at least one byte at the cursor; `wanted` says how many would help.
  std::error_code advance(char* put, std::size_t wanted) noexcept;
  // Writes size bytes at the cursor, however large, through as many windows as it takes.
  std::error_code write(char* put, const char* data, std::size_t size) noexcept;
  // The cursor's offset in the file, or -1 where the target cannot seek.
  std::int64_t tell(const char* put) const noexcept;
  // Moves the cursor like lseek(2) and returns the new offset, or -1 with ec set. A failed seek is
  // not sticky: writing goes on where it was. Seeking past the end and writing leaves zeros
  // between.
  std::int64_t seek(char* put, std::int64_t offset, std::ios_base::seekdir dir,
                    std::error_code& ec) noexcept;
  // Cheap enough for every line: hands the buffer to write(2) on the buffered strategy and does
  // nothing else (no system call at all on the mapping).
  std::error_code sync(char* put) noexcept;
  // Makes the file's size and bytes what close() would leave, for a reader in another process,
  // while writing goes on: the extent ahead of the bytes written is cut back (one ftruncate).
  std::error_code publish(char* put) noexcept;
  // publish(), then fsync(2): the bytes are on the disk when it returns.
  std::error_code persist(char* put) noexcept;
  // Cuts the file to the largest offset ever written, unmaps and closes. The first error of the
  // file's life is returned, and kept in error() after the file is closed.
  std::error_code close(char* put) noexcept;

  // The file's descriptor, borrowed: mapout still owns and closes it. For fstat, fchmod, flock,
  // fdatasync and the like; bytes written through it bypass the window, and close() still cuts the
  // file to the largest offset written through mapout. -1 when no file is open.
  int native_handle() const noexcept;

  const std::filesystem::path& path() const noexcept;
  // The first write, extension or close error, or the error of the last failed open.
  std::error_code error() const noexcept;
  // "mapout: <operation> '<path>': <reason>" for error(), or "" when there is none.
  std::string error_message() const;
  // error_message() without ": <reason>", for std::system_error and std::ios_base::failure, whose
  // what() appends the reason of their code() themselves.
  std::string error_context() const;

 private:
  struct state;
  std::unique_ptr<state> state_;
};

inline void swap(output_file& a, output_file& b) noexcept {
  a.swap(b);
}

}  // namespace mapout
