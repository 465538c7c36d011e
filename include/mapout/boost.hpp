// mapout::sink: a Boost.Iostreams device over mapout::streambuf. The only mapout header that
// includes Boost; the mapout library itself does not depend on it.
#pragma once

#include <boost/iostreams/categories.hpp>
#include <boost/iostreams/positioning.hpp>

#include <exception>
#include <filesystem>
#include <ios>
#include <memory>

#include "mapout/options.hpp"
#include "mapout/streambuf.hpp"

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
// With options.atomic, a close() while an exception unwinds (Boost's stream closes its device in
// its destructor) discards instead: half an output is never published.
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
      : buf_(std::make_shared<streambuf>()), atomic_(opts.atomic) {
    if (!buf_->open(path, mode | std::ios_base::out, opts)) throw buf_->file().error_exception();
  }
  sink(const std::filesystem::path& path, const options& opts)
      : sink(path, std::ios_base::out, opts) {}

  // Copies only, so that no sink is ever left without a file to share (a moved-from one would be).
  sink(const sink&) = default;
  sink& operator=(const sink&) = default;

  bool is_open() const noexcept { return buf_->is_open(); }
  // The descriptor, borrowed (see output_file::native_handle), or -1 when closed.
  int native_handle() const noexcept { return buf_->native_handle(); }

  // Into the window while it has room, through the file when it does not; throws on failure, as
  // a Boost device reports one (the buffer returns the short count).
  std::streamsize write(const char* data, std::streamsize size) {
    const std::streamsize written = buf_->sputn(data, size);
    if (written < size) throw buf_->file().error_exception();
    return written;
  }

  // Moves the cursor like lseek(2); seeking past the end and writing leaves zeros between. A
  // failed seek returns -1, which the stream turns into failbit, and is not sticky. It does not
  // throw: std::ostream::seekp does not catch what the device throws.
  std::streampos seek(boost::iostreams::stream_offset offset, std::ios_base::seekdir dir) {
    return buf_->pubseekoff(offset, dir, std::ios_base::out);
  }

  // Free on a regular file; hands the buffer to write(2) on a pipe, FIFO or other unmappable
  // target, so std::flush reaches the reader; with options.flush_publishes, a reader of a regular
  // file sees the bytes and its size too, as after publish().
  bool flush() {
    if (buf_->pubsync() != 0) throw buf_->file().error_exception();
    return true;
  }

  // Cuts the file to the bytes written and closes it, for every copy. Closing a closed sink does
  // nothing, so Boost's own close after the user's is harmless.
  void close() {
    if (atomic_ && std::uncaught_exceptions() > exceptions_at_open_) return discard();
    if (buf_->is_open() && !buf_->close()) throw buf_->file().error_exception();
  }

  // With options.atomic or write_if_changed, throws the bytes away for every copy and leaves the
  // target as it was; otherwise close().
  void discard() {
    if (buf_->is_open() && !buf_->discard()) throw buf_->file().error_exception();
  }

  // Boost's buffer in front of the device: one page, since Boost hands an unbuffered device one
  // byte per call, and 1 KiB to 64 KiB measured alike (docs/decisions.md, "Boost buffer").
  std::streamsize optimal_buffer_size() const noexcept { return 4096; }

 private:
  // Shared by the copies Boost makes; the last one to go closes the file if nobody did.
  std::shared_ptr<streambuf> buf_;
  bool atomic_;
  // Exceptions already in flight when the sink was made (one made inside a destructor).
  int exceptions_at_open_ = std::uncaught_exceptions();
};

}  // namespace mapout
