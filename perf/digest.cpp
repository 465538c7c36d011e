// Fingerprints of the expected output and of the files the writers left.
#include "digest.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <ostream>
#include <streambuf>
#include <system_error>
#include <utility>
#include <vector>

namespace perf {
namespace {

// A sink that hashes what it is given through a buffer (one update per byte would take seconds
// per GiB), formatting lines and log lines with std::to_chars, and doubles as %g or, when
// `shortest`, as fmt's "{}" (fmt::format_to with the format parsed at run time, not the compiled
// code print takes).
class digest_sink {
 public:
  explicit digest_sink(bool shortest = false) : shortest_(shortest) {}

  void byte(char c) {
    if (used_ == sizeof buffer_) drain();
    buffer_[used_++] = c;
  }
  void token(std::string_view text) { block(text.data(), text.size()); }
  void line(std::uint32_t i, std::uint32_t) {
    if (sizeof buffer_ - used_ < max_line_size) drain();
    used_ = static_cast<std::size_t>(format_line(buffer_ + used_, i) - buffer_);
  }
  void block(const char* data, std::size_t size) {
    drain();
    result_.update(data, size);
  }
  void table_line(std::uint32_t i) {
    if (sizeof buffer_ - used_ < max_line_size) drain();
    used_ = static_cast<std::size_t>(format_table_line(buffer_ + used_, i) - buffer_);
  }
  void row(long id, double x, double y) {
    if (sizeof buffer_ - used_ < longest_row) drain();
    char* const put = buffer_ + used_;
    used_ = static_cast<std::size_t>((shortest_ ? fmt::format_to(put, "{},{},{}\n", id, x, y)
                                                : format_number_row(put, id, x, y)) -
                                     buffer_);
  }
  void printf_row(const printf_row_values& v) {
    if (sizeof buffer_ - used_ < max_printf_row) drain();
    used_ += static_cast<std::size_t>(std::snprintf(
        buffer_ + used_, max_printf_row, printf_row_format, v.id, v.name, v.value, v.total));
  }
  void log(const log_entry& entry) {
    if (sizeof buffer_ - used_ < max_log_line) drain();
    used_ = static_cast<std::size_t>(format_log_line(buffer_ + used_, entry) - buffer_);
  }
  void number(double x) {
    if (sizeof buffer_ - used_ < longest_row) drain();
    char* const put = buffer_ + used_;
    used_ = static_cast<std::size_t>(
        (shortest_ ? fmt::format_to(put, "{}\n", x) : format_number_line(put, x)) - buffer_);
  }
#ifdef PERF_HAVE_BOOST_SERIALIZATION
  // The archive through std::ostream in the classic locale: std::ofstream's bytes.
  void archive(const workload& work) {
    drain();
    struct hashing_buf : std::streambuf {
      digest* result;
      std::streamsize xsputn(const char* data, std::streamsize n) override {
        result->update(data, static_cast<std::size_t>(n));
        return n;
      }
      int_type overflow(int_type c) override {
        const char byte = traits_type::to_char_type(c);
        result->update(&byte, 1);
        return traits_type::not_eof(c);
      }
    } hashing;
    hashing.result = &result_;
    std::ostream out(&hashing);
    write_text_archive(work, out);
  }
#endif
  digest finish() {
    drain();
    return result_;
  }

 private:
  void drain() {
    result_.update(buffer_, used_);
    used_ = 0;
  }

  // A long, two doubles of up to 24 characters each (fmt's shortest) and three separators.
  static constexpr std::size_t longest_row = 80;

  bool shortest_ = false;
  char buffer_[std::size_t{64} << 10];
  std::size_t used_ = 0;
  digest result_;
};

// random's file front to back: the last record stored at each slot, zeros between, from a list
// of (slot, record) sorted by slot rather than an image of the file.
digest expected_random_digest(const workload& work) {
  const std::size_t record = record_size(work.kind);
  const std::uint64_t slots = work.bytes / record;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> stored(work.count);
  for (std::uint32_t i = 0; i < work.count; ++i) stored[i] = {random_slot(i, slots), i};
  std::sort(stored.begin(), stored.end());
  static const std::vector<char> zeros(std::size_t{1} << 20);
  digest result;
  std::uint64_t at = 0;
  auto zeros_up_to = [&](std::uint64_t end) {
    while (at < end) {
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(end - at, zeros.size()));
      result.update(zeros.data(), n);
      at += n;
    }
  };
  for (std::size_t k = 0; k < stored.size(); ++k) {
    if (k + 1 < stored.size() && stored[k + 1].first == stored[k].first) continue;
    zeros_up_to(stored[k].first * record);
    result.update(work.input->random.data() + record_source(*work.input, stored[k].second, record),
                  record);
    at += record;
  }
  zeros_up_to(work.bytes);
  return result;
}

// The final bytes of a seeking workload, front to back: what the patches and seeks must leave.
digest expected_seeking_digest(const workload& work) {
  const corpus& input = *work.input;
  digest result;
  std::size_t at = 0;
  switch (work.kind) {
    case workload_kind::patch:
      for (std::uint32_t i = 0; i < work.count; ++i) {
        const std::uint32_t size = body_size(i);
        result.update(reinterpret_cast<const char*>(&size), length_size);
        result.update(input.random.data() + at, size);
        at = next_body(input, at, size);
      }
      break;
    case workload_kind::toc: {
      std::uint64_t offset = work.count * offset_size;
      for (std::uint32_t i = 0; i < work.count; ++i) {
        result.update(reinterpret_cast<const char*>(&offset), offset_size);
        offset += body_size(i);
      }
      for (std::uint32_t i = 0; i < work.count; ++i) {
        const std::uint32_t size = body_size(i);
        result.update(input.random.data() + at, size);
        at = next_body(input, at, size);
      }
      break;
    }
    case workload_kind::random_16:
    case workload_kind::random_64:
      return expected_random_digest(work);
    default:
      for (std::uint64_t block = 0; block < work.count; ++block) {
        result.update(input.random.data() + block * scatter_block % input.random.size(),
                      scatter_block);
      }
      break;
  }
  return result;
}

}  // namespace

digest expected_digest(const workload& work) {
  if (is_seeking(work.kind)) return expected_seeking_digest(work);
  digest_sink sink;
  emit(work, sink);
  return sink.finish();
}

digest shortest_digest(const workload& work) {
  if (!is_numbers(work.kind)) return expected_digest(work);
  digest_sink sink(true);
  emit(work, sink);
  return sink.finish();
}

#ifdef _WIN32
// The bytes as they are (the C runtime translates line ends without O_BINARY), not inherited.
constexpr int unshared = O_BINARY | O_NOINHERIT;
#else
constexpr int unshared = O_CLOEXEC;
#endif

digest file_digest(const std::string& path, digest before) {
  const int fd = ::open(path.c_str(), O_RDONLY | unshared);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "open " + path);
  std::vector<char> buffer(std::size_t{1} << 20);
  digest result = before;
  for (;;) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      throw std::system_error(error, std::generic_category(), "read " + path);
    }
    if (n == 0) break;
    result.update(buffer.data(), static_cast<std::size_t>(n));
  }
  ::close(fd);
  return result;
}

}  // namespace perf
