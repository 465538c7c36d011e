// mapout::mapped_input: a whole file as read-only bytes in memory, mapped where it can be.
#pragma once

#if __cplusplus < 201703L
#error "mapout's C++ API needs C++17 (-std=c++17 or later); older C++ can use mapout/mapout.h"
#endif

#include <cstddef>
#include <filesystem>
#include <ios>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>

#include "mapout/export.h"

namespace mapout {

namespace detail {
struct input_access;
}

// How the bytes will be read, given to the kernel as madvise(2) advice on a mapping. It changes
// how far the kernel reads ahead from the disk; for a file already in the page cache it made no
// difference measured (docs/decisions.md, "reading").
enum class access {
  normal,
  sequential,  // MADV_SEQUENTIAL: read far ahead
  random,      // MADV_RANDOM: read no more than each page asked for
};

// The bytes of a whole file, without copying them when the file can be mapped.
//
//   mapout::mapped_input in("table.bin");   // throws std::system_error on failure
//   std::string_view bytes = in.view();     // valid until close() or destruction
//   auto lines = std::count(bytes.begin(), bytes.end(), '\n');
//   if (in.error()) ...                     // another process truncated the file meanwhile
//
//   mapout::mapped_input maybe;
//   if (std::error_code ec = maybe.open("table.bin")) std::cerr << maybe.error_message() << '\n';
//
// Regular files on local file systems are mapped read-only: the bytes are the page cache's.
// Everything else is read into memory at open, to its end, behind the same interface: pipes,
// FIFOs, character devices and sockets, files whose size says nothing (empty files and /proc),
// files the file system will not map (sysfs), network and FUSE file systems (as the output side
// classifies them), and any file opened in a thread that blocks SIGBUS. An input that never ends
// (/dev/zero) fails when memory runs out, "read (no memory for the whole input)", and a file
// larger than the free address space fails to map, "map (the file is larger than the free address
// space)"; mapout::istream reads both as it consumes them.
//
// A file another process changes while it is mapped. What a reader can rely on:
// - size() and view() are the file as it was at open; bytes appended later are not in view()
//   (open again to see them; mapout::istream reads them on).
// - Bytes rewritten in place by another process show in view() as they land: the mapping is the
//   page cache, as read(2) is. A file replaced by rename is not seen: the mapping is the old file.
// - A file cut to fewer pages: a read from a lost page raises SIGBUS, which mapout's handler, the
//   one that guards output, catches: that read and every later one from the lost pages yield
//   zeroes, and error() becomes EIO, "read from a file truncated by another process" (an I/O
//   error under the mapping: EIO, "read"). The process is not killed, unless a SIGBUS handler
//   installed after mapout's replaces it, or the reading thread blocks SIGBUS (the kernel then
//   kills, as for any mapping).
// - A file cut inside its last page faults nowhere: the lost bytes read as zeroes. error() asks
//   the file's size (fstat) and reports the same EIO from then on.
// What it cannot rely on: bytes read before error() was asked are not known to be the file's. A
// reader that must know checks error() after reading, as it would check a stream's state.
class MAPOUT_API mapped_input {
 public:
  mapped_input() noexcept;
  // Opens `path`; throws std::system_error, whose what() is error_message(), when that fails.
  explicit mapped_input(const std::filesystem::path& path, access advice = access::normal);
  mapped_input(mapped_input&& other) noexcept;
  mapped_input& operator=(mapped_input&& other) noexcept;
  ~mapped_input();
  void swap(mapped_input& other) noexcept;

  // Opens `path`, closing what was open, and returns the error, which error() keeps too.
  std::error_code open(const std::filesystem::path& path, access advice = access::normal) noexcept;
  // Unmaps or frees the bytes and closes the file; every view of the bytes ends here. Returns a
  // failure of munmap or close.
  std::error_code close() noexcept;
  bool is_open() const noexcept;
  // True when the bytes are a mapping of the file, false when they were read into memory.
  bool is_mapped() const noexcept;

  // The bytes: size() of them from data(), which is never null (an empty string when closed).
  const char* data() const noexcept;
  std::size_t size() const noexcept;
  std::string_view view() const noexcept { return {data(), size()}; }
  bool empty() const noexcept { return size() == 0; }
  const char* begin() const noexcept { return data(); }
  const char* end() const noexcept { return data() + size(); }

  const std::filesystem::path& path() const noexcept;
  // The last open's or close's error, else EIO once a read from the mapping met a page the file
  // lost or the file is found smaller than the mapping (one fstat per call while mapped and
  // whole); nothing otherwise.
  std::error_code error() const noexcept;
  // "mapout: <operation> '<path>': <reason>" for error(), or "" when there is none.
  std::string error_message() const;
  // What mapout::istream throws for error(): what() is error_message(), code() is error().
  std::ios_base::failure error_exception() const;

 private:
  friend struct detail::input_access;  // mapout::istreambuf's way in
  struct state;
  std::unique_ptr<state> state_;
};

inline void swap(mapped_input& a, mapped_input& b) noexcept {
  a.swap(b);
}

}  // namespace mapout
