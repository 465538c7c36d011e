// One Sink for every stream with std::ostream's members (std::ofstream, mapout::ostream, Boost
// streams): put per byte, write per token and block, << per line, per number and per log line.
#pragma once

#include <ios>
#include <ostream>
#include <string>
#include <system_error>

#include "writers.hpp"

namespace perf {

// How a log line ends: '\n', or std::endl, which flushes the stream after each line.
enum class line_end { newline, endl };

// `Opener` names the stream type it opens (file_type), the type the calls are made through
// (stream_type: the file's own type, or std::ostream for generic code), and opens it:
//   static void open(file_type& file, const std::string& path);
template <class Opener, line_end End = line_end::newline>
class ostream_sink {
 public:
  using file_type = typename Opener::file_type;
  using stream_type = typename Opener::stream_type;

  explicit ostream_sink(const std::string& path) : path_(path) {
    Opener::open(file_, path);
    if (!file_.is_open() || !file_) throw_errno("open", path);
  }

  void byte(char c) { stream().put(c); }
  void token(std::string_view text) {
    stream().write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  void line(std::uint32_t i, std::uint32_t value) {
    stream() << "    { \"field_" << i << "\", " << i << ", " << value << " },\n";
  }
  void block(const char* data, std::size_t size) {
    stream().write(data, static_cast<std::streamsize>(size));
  }
  void row(long id, double x, double y) { stream() << id << ',' << x << ',' << y << '\n'; }
  void number(double x) { stream() << x << '\n'; }
  void log(const log_entry& entry) {
    stream() << entry.clock << '.' << entry.micros << " [info] worker " << entry.worker
             << " handled request " << entry.request << " in " << entry.elapsed << " us, status "
             << entry.status;
    if constexpr (End == line_end::endl) {
      stream() << std::endl;
    } else {
      stream() << '\n';
    }
  }
#ifdef PERF_HAVE_BOOST_SERIALIZATION
  void archive(const workload& work) {
    write_text_archive(work, stream());
  }
#endif
  std::uint64_t tell() {
    return static_cast<std::uint64_t>(std::streamoff(stream().tellp()));
  }
  void seek(std::uint64_t offset) {
    stream().seekp(static_cast<std::streamoff>(offset));
  }
  void write_at(std::uint64_t offset, const char* data, std::size_t size) {
    const auto end = stream().tellp();
    stream().seekp(static_cast<std::streamoff>(offset));
    stream().write(data, static_cast<std::streamsize>(size));
    stream().seekp(end);
  }
  void close() {
    const bool failed = !file_;
    file_.close();
    if (failed || !file_) {
      throw std::system_error(std::make_error_code(std::errc::io_error), "write " + path_);
    }
  }

 private:
  stream_type& stream() {
    return file_;
  }

  std::string path_;
  file_type file_;
};

}  // namespace perf
