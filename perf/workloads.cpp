// Making the shared input (random bytes, header tokens) and sizing each workload from it.
#include "workloads.hpp"

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <random>
#include <stdexcept>
#include <streambuf>

namespace perf {
namespace {

constexpr const char* workload_names[] = {
    "bytes", "tokens",     "lines",         "blocks-4k",    "blocks-1m",       "patch",
    "toc",   "scatter",    "random-16",     "random-64",    "numbers",         "doubles",
    "table", "printf-row", "boost-archive", "parallel-csv", "parallel-tokens", "log-lines"};

// 32 MiB: larger than the caches, so the bytes workload reads its input from memory as a real
// producer would, and small enough to make in a fraction of a second.
constexpr std::size_t random_size = std::size_t{32} << 20;

std::string random_bytes() {
  std::string bytes(random_size, '\0');
  std::mt19937_64 engine(20260101);
  for (std::size_t i = 0; i < bytes.size(); i += 8) {
    const std::uint64_t word = engine();
    for (std::size_t k = 0; k < 8; ++k) bytes[i + k] = static_cast<char>(word >> (8 * k));
  }
  return bytes;
}

bool is_header(const std::filesystem::path& path) {
  const std::string extension = path.extension().string();
  if (extension == ".h" || extension == ".hpp" || extension == ".hh" || extension == ".tcc") {
    return true;
  }
  // The C++ standard library's headers have no extension.
  return extension.empty() && path.string().find("/c++/") != std::string::npos;
}

std::string read_headers(const std::string& include_dir, std::size_t text_cap) {
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(
           include_dir, std::filesystem::directory_options::skip_permission_denied)) {
    if (entry.is_regular_file() && is_header(entry.path())) paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  std::string text;
  for (const auto& path : paths) {
    if (text.size() >= text_cap) break;
    std::ifstream in(path, std::ios::binary);
    text.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (text.size() > text_cap) text.resize(text_cap);
  if (text.empty()) throw std::runtime_error("no headers under " + include_dir);
  return text;
}

bool is_identifier_char(unsigned char c) {
  return std::isalnum(c) || c == '_';
}

// Splits like a preprocessor's output loop sees its input: identifiers, numbers (with their
// suffixes), runs of whitespace, and single punctuation characters.
std::size_t token_length(const std::string& text, std::size_t at) {
  const auto c = static_cast<unsigned char>(text[at]);
  std::size_t end = at + 1;
  if (std::isalpha(c) || c == '_') {
    while (end < text.size() && is_identifier_char(static_cast<unsigned char>(text[end]))) ++end;
  } else if (std::isdigit(c)) {
    while (end < text.size() &&
           (is_identifier_char(static_cast<unsigned char>(text[end])) || text[end] == '.')) {
      ++end;
    }
  } else if (std::isspace(c)) {
    while (end < text.size() && std::isspace(static_cast<unsigned char>(text[end]))) ++end;
  }
  return end - at;
}

// boost-archive: as many doubles as reach `size` at about 25 bytes each (a space, then %.17e);
// the exact size is the archive's own, counted by writing it once where Boost.Serialization is.
void size_archive(workload& work) {
  char text[max_number_row];
  for (std::uint64_t& i = work.count; work.bytes < work.size; ++i) {
    const double x = number_value(*work.input, i);
    work.bytes +=
        1 + static_cast<std::uint64_t>(
                std::to_chars(text, text + sizeof text, x, std::chars_format::scientific, 17).ptr -
                text);
  }
#ifdef PERF_HAVE_BOOST_SERIALIZATION
  struct counting_buf : std::streambuf {
    std::uint64_t bytes = 0;
    std::streamsize xsputn(const char*, std::streamsize n) override {
      bytes += static_cast<std::uint64_t>(n);
      return n;
    }
    int_type overflow(int_type c) override {
      ++bytes;
      return traits_type::not_eof(c);
    }
  } counter;
  std::ostream out(&counter);
  write_text_archive(work, out);
  work.bytes = counter.bytes;
#endif
}

}  // namespace

const char* name_of(workload_kind kind) noexcept {
  return workload_names[static_cast<std::size_t>(kind)];
}

bool parse_workload_kind(std::string_view name, workload_kind& kind) noexcept {
  for (workload_kind candidate : all_workload_kinds) {
    if (name == name_of(candidate)) {
      kind = candidate;
      return true;
    }
  }
  return false;
}

corpus make_corpus(const std::string& include_dir, std::size_t text_cap) {
  corpus input;
  input.random = random_bytes();
  const std::string text = read_headers(include_dir, text_cap);
  std::vector<std::size_t> lengths;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t length = token_length(text, at);
    // A '\0' in a header would end the token early for fputs: leave it out.
    if (text[at] != '\0') {
      input.token_text.append(text, at, length);
      input.token_text.push_back('\0');
      lengths.push_back(length);
    }
    at += length;
  }
  // 1,000,000 values: 8 MB, beyond the caches as a real program's data would be.
  std::mt19937_64 engine(20261201);
  std::normal_distribution<double> normal;
  input.normals.resize(1000000);
  for (double& value : input.normals) value = normal(engine);
  input.tokens.reserve(lengths.size());
  const char* data = input.token_text.data();
  for (std::size_t length : lengths) {
    input.tokens.emplace_back(data, length);
    data += length + 1;
  }
  return input;
}

workload make_workload(workload_kind kind, std::uint64_t size, const corpus& input) {
  workload work;
  work.kind = kind;
  work.size = size;
  work.input = &input;
  switch (kind) {
    case workload_kind::bytes:
      work.bytes = size;
      break;
    case workload_kind::tokens:
    case workload_kind::parallel_tokens: {
      std::uint64_t pass_bytes = 0;
      for (std::string_view token : input.tokens) pass_bytes += token.size();
      const std::uint64_t passes = size / pass_bytes;
      work.count = passes * input.tokens.size();
      work.bytes = passes * pass_bytes;
      for (std::size_t i = 0; work.bytes < size; ++i, ++work.count) {
        work.bytes += input.tokens[i].size();
      }
      break;
    }
    case workload_kind::lines:
    case workload_kind::table: {
      char* (*const format)(char*, std::uint32_t) =
          kind == workload_kind::lines ? format_line : format_table_line;
      char line[max_line_size];
      while (work.bytes < size) {
        work.bytes +=
            static_cast<std::uint64_t>(format(line, static_cast<std::uint32_t>(work.count)) - line);
        ++work.count;
      }
      break;
    }
    case workload_kind::numbers:
    case workload_kind::doubles:
    case workload_kind::parallel_csv: {
      char row[max_number_row];
      for (std::uint64_t& i = work.count; work.bytes < size; ++i) {
        const char* const end =
            bytes_of(kind) == workload_kind::numbers
                ? format_number_row(row, static_cast<long>(i), number_value(input, i),
                                    number_value(input, i + 1))
                : format_number_line(row, number_value(input, i));
        work.bytes += static_cast<std::uint64_t>(end - row);
      }
      break;
    }
    case workload_kind::printf_row: {
      char row[max_printf_row];
      for (std::uint64_t& i = work.count; work.bytes < size; ++i) {
        const printf_row_values v = printf_row_of(input, static_cast<std::uint32_t>(i));
        work.bytes += static_cast<std::uint64_t>(
            std::snprintf(row, sizeof row, printf_row_format, v.id, v.name, v.value, v.total));
      }
      break;
    }
    case workload_kind::boost_archive:
      size_archive(work);
      break;
    case workload_kind::log_lines: {
      work.count = log_line_count(size);
      log_clock clock;
      char line[max_log_line];
      for (std::uint32_t i = 0; i < work.count; ++i) {
        work.bytes +=
            static_cast<std::uint64_t>(format_log_line(line, log_entry_of(clock, i)) - line);
      }
      break;
    }
    case workload_kind::blocks_4k:
    case workload_kind::blocks_1m: {
      const std::uint64_t block = block_size(kind);
      work.bytes = (size + block - 1) / block * block;
      break;
    }
    case workload_kind::patch:
    case workload_kind::toc: {
      const std::uint64_t prefix = kind == workload_kind::patch ? length_size : offset_size;
      while (work.bytes < size) {
        work.bytes += prefix + body_size(static_cast<std::uint32_t>(work.count));
        ++work.count;
      }
      break;
    }
    case workload_kind::random_16:
    case workload_kind::random_64:
      work.count = random_records;
      work.bytes =
          std::max<std::uint64_t>(size / record_size(kind) * record_size(kind), record_size(kind));
      break;
    case workload_kind::scatter: {
      work.count = (size + scatter_block - 1) / scatter_block;
      work.bytes = work.count * scatter_block;
      work.order.resize(work.count);
      for (std::uint32_t i = 0; i < work.order.size(); ++i) work.order[i] = i;
      // Fisher-Yates with our own draw: std::shuffle's order may differ between libraries.
      std::mt19937_64 engine(20260102);
      for (std::size_t i = work.order.size(); i > 1; --i) {
        std::swap(work.order[i - 1], work.order[engine() % i]);
      }
      break;
    }
  }
  return work;
}

}  // namespace perf
