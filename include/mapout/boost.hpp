// mapout::sink: a Boost.Iostreams device over mapout::output_file. The only mapout header that
// includes Boost; the mapout library itself does not depend on it.
#pragma once

#include <boost/iostreams/categories.hpp>
#include <boost/iostreams/positioning.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <ios>
#include <memory>
#include <string>
#include <system_error>

#include "mapout/options.hpp"
#include "mapout/output_file.hpp"

namespace mapout {

// A seekable, closable, flushable Boost.Iostreams Sink that writes through a mapping of the file.
//
//   boost::iostreams::stream<mapout::sink> out("out.bin");        // out|trunc, as std::ofstream
//   out << "hello\n";
//
//   boost::iostreams::filtering_ostream gz;                        // at the end of a chain
//   gz.push(boost::iostreams::gzip_compressor());
//   gz.push(mapout::sink("out.gz"));
//   gz << "compressed\n";
//   gz.reset();  // writes gzip's trailer and closes the file; throws if that fails
//
// Boost copies devices, so copies share one open file: closing any copy closes it for all. The
// last copy to go closes the file if nobody did; an error is lost then, so close to see it.
//
// Errors are thrown as std::ios_base::failure (a std::system_error carrying errno) whose what() is
// "mapout: <operation> '<path>': <reason>"; the stream turns it into badbit, and rethrows it where
// exceptions() asks for badbit. Opening throws from the constructor, like Boost's file devices.
// A failed seek returns -1 instead (failbit on the stream).
class sink {
 public:
  using char_type = char;
  // output_seekable rather than seekable_device_tag, which is also an input and would need read().
  struct category : boost::iostreams::output_seekable,
                    boost::iostreams::device_tag,
                    boost::iostreams::closable_tag,
                    boost::iostreams::flushable_tag,
                    boost::iostreams::optimally_buffered_tag {};

  // `out` is always added to `mode`, as Boost's file_descriptor_sink does; the rest of the mode
  // means what it means to std::ofstream (app, ate, trunc, and in to keep the file's bytes).
  explicit sink(const std::filesystem::path& path,
                std::ios_base::openmode mode = std::ios_base::out, const options& opts = {})
      : state_(std::make_shared<state>()) {
    state& s = *state_;
    if (const std::error_code ec = s.file.open(path, mode | std::ios_base::out, opts)) {
      s.fail("open", ec);
    }
    s.take_window();
  }
  sink(const std::filesystem::path& path, const options& opts)
      : sink(path, std::ios_base::out, opts) {}

  // Copies only, so that no sink is ever left without a file to share (a moved-from one would be).
  sink(const sink&) = default;
  sink& operator=(const sink&) = default;

  bool is_open() const noexcept { return state_->file.is_open(); }
  // The descriptor, borrowed (see output_file::native_handle), or -1 when closed.
  int native_handle() const noexcept { return state_->file.native_handle(); }

  // A copy into the mapping while the window has room; output_file::write when it does not.
  std::streamsize write(const char* data, std::streamsize size) {
    state& s = *state_;
    if (size > 0 && size <= s.end - s.put) {
      std::memcpy(s.put, data, static_cast<std::size_t>(size));
      s.put += size;
      return size;
    }
    const std::error_code ec = s.file.write(s.put, data, static_cast<std::size_t>(size));
    s.take_window();
    if (ec) s.fail("write", ec);
    return size;
  }

  // Moves the cursor like lseek(2); seeking past the end and writing leaves zeros between. A
  // failed seek returns -1, which the stream turns into failbit, and is not sticky. It does not
  // throw: std::ostream::seekp does not catch what the device throws.
  std::streampos seek(boost::iostreams::stream_offset offset, std::ios_base::seekdir dir) {
    state& s = *state_;
    if (dir == std::ios_base::cur && offset == 0) {
      return boost::iostreams::offset_to_position(s.file.tell(s.put));
    }
    std::error_code ignored;
    const std::int64_t position = s.file.seek(s.put, offset, dir, ignored);
    s.take_window();
    return boost::iostreams::offset_to_position(position);
  }

  // Free on a mapped file; hands the buffer to write(2) on a pipe, FIFO or other unmappable target,
  // so std::flush reaches the reader.
  bool flush() {
    state& s = *state_;
    if (!s.file.is_open()) return true;
    const std::error_code ec = s.file.sync(s.put);
    s.take_window();
    if (ec) s.fail("write", ec);
    return true;
  }

  // Cuts the file to the bytes written and closes it, for every copy. Closing a closed sink does
  // nothing, so Boost's own close after the user's is harmless.
  void close() {
    state& s = *state_;
    if (!s.file.is_open()) return;
    const std::error_code ec = s.file.close(s.put);
    s.put = s.end = nullptr;
    if (ec) s.fail("close", ec);
  }

  // Boost's buffer in front of the device (perf/boost_buffer, 256 MiB, ext4 and tmpfs). Without
  // one, Boost's streambuf hands the device one byte per call: 1.9-2.2x the CPU time of a 4 KiB
  // buffer for 1-10 byte tokens, 4.9-7.6x for 80-byte lines and 4 KiB blocks. Buffers from 1 KiB
  // to 64 KiB differed by no more than the noise (CPU medians within 10 %, no size ahead in every
  // cell), so one page: Boost's own default, the smallest that ties, and it stays in L1.
  std::streamsize optimal_buffer_size() const noexcept { return 4096; }

 private:
  struct state {
    output_file file;
    // The cursor in file.current() and that window's end, kept here so that write() makes no call
    // while the window has room.
    char* put = nullptr;
    char* end = nullptr;

    state() = default;
    state(const state&) = delete;
    state& operator=(const state&) = delete;
    ~state() {
      if (file.is_open()) file.close(put);
    }

    void take_window() noexcept {
      const output_file::window window = file.current();
      put = window.begin;
      end = window.end;
    }

    // Throws the failure whose what() is "mapout: <operation> '<path>': <reason>", naming the
    // system call that failed when `ec` is the file's sticky error.
    [[noreturn]] void fail(const char* operation, std::error_code ec) const {
      if (ec == file.error()) throw std::ios_base::failure(file.error_context(), ec);
      throw std::ios_base::failure(
          "mapout: " + std::string(operation) + " '" + file.path().string() + "'", ec);
    }
  };

  std::shared_ptr<state> state_;
};

}  // namespace mapout
