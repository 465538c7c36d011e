// The workloads every writer runs: one byte stream per workload and size, emitted through each
// writer's natural calls (a Sink), so that every writer produces the same bytes.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "log_lines.hpp"

namespace perf {

// The streams written front to back, then the seeking ones: patch (length-prefixed records, each
// length written after its body), toc (a header of record offsets filled in at the end), scatter
// (4 KiB blocks written once each in shuffled order), random (records of 16 or 64 bytes at
// random slots of a file laid out first, as an index or a hash table in a file is filled),
// numbers (CSV rows of a long and two doubles) and doubles (one double a line); table, the lines
// of a code generator that prints a table with a string literal among its arguments;
// boost-archive, Boost.Serialization's text_oarchive of the doubles, one `archive << x` each;
// parallel-csv and parallel-tokens, the bytes of numbers and tokens, made by the parallel rows on
// two threads and by the one stream they are set against; log-lines, a server's log of requests
// (log_lines.hpp), line by line through each logger's own call.
enum class workload_kind {
  bytes,
  tokens,
  lines,
  blocks_4k,
  blocks_1m,
  patch,
  toc,
  scatter,
  random_16,
  random_64,
  numbers,
  doubles,
  table,
  printf_row,
  boost_archive,
  parallel_csv,
  parallel_tokens,
  log_lines
};

constexpr workload_kind streaming_workload_kinds[] = {
    workload_kind::bytes, workload_kind::tokens, workload_kind::lines, workload_kind::blocks_4k,
    workload_kind::blocks_1m};
constexpr workload_kind all_workload_kinds[] = {
    workload_kind::bytes,        workload_kind::tokens,          workload_kind::lines,
    workload_kind::blocks_4k,    workload_kind::blocks_1m,       workload_kind::patch,
    workload_kind::toc,          workload_kind::scatter,         workload_kind::random_16,
    workload_kind::random_64,    workload_kind::numbers,         workload_kind::doubles,
    workload_kind::table,        workload_kind::printf_row,      workload_kind::boost_archive,
    workload_kind::parallel_csv, workload_kind::parallel_tokens, workload_kind::log_lines};
constexpr std::size_t workload_kind_count = std::size(all_workload_kinds);

constexpr bool is_random(workload_kind kind) noexcept {
  return kind == workload_kind::random_16 || kind == workload_kind::random_64;
}

constexpr bool is_seeking(workload_kind kind) noexcept {
  return kind == workload_kind::patch || kind == workload_kind::toc ||
         kind == workload_kind::scatter || is_random(kind);
}

constexpr bool is_parallel(workload_kind kind) noexcept {
  return kind == workload_kind::parallel_csv || kind == workload_kind::parallel_tokens;
}

// The workload whose bytes `kind` makes: a parallel workload's are its single-stream twin's.
constexpr workload_kind bytes_of(workload_kind kind) noexcept {
  if (kind == workload_kind::parallel_csv) return workload_kind::numbers;
  if (kind == workload_kind::parallel_tokens) return workload_kind::tokens;
  return kind;
}

constexpr bool is_numbers(workload_kind kind) noexcept {
  return bytes_of(kind) == workload_kind::numbers || kind == workload_kind::doubles;
}

// The workloads of formatting calls that only some writers make (<<, print, printf, a logger's
// call): numbers, doubles, table, printf-row, boost-archive, log-lines.
constexpr bool is_formatting(workload_kind kind) noexcept {
  return is_numbers(kind) || kind == workload_kind::table || kind == workload_kind::printf_row ||
         kind == workload_kind::boost_archive || kind == workload_kind::log_lines;
}

const char* name_of(workload_kind kind) noexcept;
// The kind named `name`; false when there is none.
bool parse_workload_kind(std::string_view name, workload_kind& kind) noexcept;

// The input shared by every run, made once before the first child is forked.
struct corpus {
  // Random bytes for the bytes and blocks workloads; a whole number of MiB.
  std::string random;
  // The tokens of real C and C++ headers, each followed by '\0' so that fputs can take it.
  std::string token_text;
  std::vector<std::string_view> tokens;
  // Normally distributed doubles for the numbers workloads, taken in turn.
  std::vector<double> normals;
};

// Reads headers under `include_dir` (sorted by path, so every run sees the same text) until
// `text_cap` bytes, and splits them into identifier, number, punctuation and whitespace tokens.
corpus make_corpus(const std::string& include_dir, std::size_t text_cap);

// One byte stream: `kind` at about `size` bytes (log-lines: log_line_count(size) lines), exactly
// `bytes` long.
struct workload {
  workload_kind kind = workload_kind::bytes;
  std::uint64_t size = 0;
  // Tokens, lines or records emitted (the first whole one to reach `size`), scatter's blocks,
  // random's records (random_records at every size) or log-lines' lines; unused by bytes and
  // blocks.
  std::uint64_t count = 0;
  std::uint64_t bytes = 0;
  const corpus* input = nullptr;
  // Scatter: the index of each block in the order they are written, a seeded shuffle.
  std::vector<std::uint32_t> order;
};

workload make_workload(workload_kind kind, std::uint64_t size, const corpus& input);

// The code generator behind the lines workload writes, for i = 0, 1, ...:
//     { "field_<i>", <i>, <line_value(i)> },
constexpr std::string_view line_head = "    { \"field_";
constexpr std::string_view line_middle = "\", ";
constexpr std::string_view line_comma = ", ";
constexpr std::string_view line_tail = " },\n";

constexpr std::uint32_t line_value(std::uint32_t i) noexcept {
  return static_cast<std::uint32_t>(i * 2654435761u % 1000000u);
}

// Formats line i into `out`, which has room for max_line_size bytes; returns its end.
constexpr std::size_t max_line_size = 64;
constexpr std::size_t max_digits = 10;  // of a std::uint32_t
inline char* format_line(char* out, std::uint32_t i) noexcept {
  out = std::copy(line_head.begin(), line_head.end(), out);
  out = std::to_chars(out, out + max_digits, i).ptr;
  out = std::copy(line_middle.begin(), line_middle.end(), out);
  out = std::to_chars(out, out + max_digits, i).ptr;
  out = std::copy(line_comma.begin(), line_comma.end(), out);
  out = std::to_chars(out, out + max_digits, line_value(i)).ptr;
  return std::copy(line_tail.begin(), line_tail.end(), out);
}

constexpr std::size_t block_size(workload_kind kind) noexcept {
  return kind == workload_kind::blocks_4k ? std::size_t{4} << 10 : std::size_t{1} << 20;
}

// The records of patch and toc: a body of 16 to 196 bytes cut from the random bytes.
constexpr std::size_t min_body = 16;
constexpr std::size_t max_body = 196;
constexpr std::uint32_t body_size(std::uint32_t i) noexcept {
  return static_cast<std::uint32_t>(min_body + (i * 2654435761u >> 16) % (max_body - min_body + 1));
}
// Where the body after one of `size` bytes at `at` starts in the random bytes.
inline std::size_t next_body(const corpus& input, std::size_t at, std::size_t size) noexcept {
  return (at + size) % (input.random.size() - max_body);
}
constexpr std::size_t length_size = 4;  // patch's length prefix, a host-order std::uint32_t
constexpr std::size_t offset_size = 8;  // toc's entries, host-order std::uint64_t
constexpr std::size_t scatter_block = std::size_t{4} << 10;

// random: as many records at every size, so that the rows that pay a system call per record
// (~1.5-2.5 us) stay at about a second per run; the issue that asked for it wrote 500,000.
constexpr std::uint32_t random_records = 500000;
constexpr std::size_t record_size(workload_kind kind) noexcept {
  return kind == workload_kind::random_16 ? 16 : 64;
}
// Record i's slot among `slots`: splitmix64, the same draw on every library.
constexpr std::uint64_t random_slot(std::uint32_t i, std::uint64_t slots) noexcept {
  std::uint64_t z = (i + 1) * 0x9e3779b97f4a7c15u;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return (z ^ (z >> 31)) % slots;
}
// Where record i's bytes start in the random bytes.
inline std::size_t record_source(const corpus& input, std::uint32_t i, std::size_t record) {
  return std::size_t{i} * record % (input.random.size() - record);
}

// Whether a Sink stores random's records with write_at (a positional write that leaves its
// offset alone, as LLVM's pwrite) rather than seek and block.
template <class Sink, class = void>
struct writes_records_in_place : std::false_type {};
template <class Sink>
struct writes_records_in_place<Sink, std::void_t<decltype(Sink::records_in_place)>>
    : std::true_type {};

// The numbers workloads write, for i = 0, 1, ..., with printf's "%g" (what << prints by default):
//     numbers: <i>,<number_value(i)>,<number_value(i + 1)>\n
//     doubles: <number_value(i)>\n
inline double number_value(const corpus& input, std::uint64_t i) noexcept {
  return input.normals[i % input.normals.size()];
}
constexpr std::size_t max_number_row = 64;
// Formats a row or a line into `out`, which has room for max_number_row bytes; returns its end.
inline char* format_number_line(char* out, double x) noexcept {
  out = std::to_chars(out, out + 20, x, std::chars_format::general, 6).ptr;
  *out++ = '\n';
  return out;
}
inline char* format_number_row(char* out, long id, double x, double y) noexcept {
  out = std::to_chars(out, out + 20, id).ptr;
  *out++ = ',';
  out = std::to_chars(out, out + 20, x, std::chars_format::general, 6).ptr;
  *out++ = ',';
  return format_number_line(out, y);
}

// The table workload's line i, as print("  table[{}] = {{{}, \"{}\"}};\n", i, i * 7, "entry")
// writes it.
constexpr std::string_view table_head = "  table[";
constexpr std::string_view table_middle = "] = {";
constexpr std::string_view table_tail = ", \"entry\"};\n";
inline char* format_table_line(char* out, std::uint32_t i) noexcept {
  out = std::copy(table_head.begin(), table_head.end(), out);
  out = std::to_chars(out, out + max_digits, i).ptr;
  out = std::copy(table_middle.begin(), table_middle.end(), out);
  out = std::to_chars(out, out + max_digits, i * 7).ptr;
  return std::copy(table_tail.begin(), table_tail.end(), out);
}

// Whether a Sink has the table workload's call, table_line(std::uint32_t i).
template <class Sink, class = void>
struct can_print_table : std::false_type {};
template <class Sink>
struct can_print_table<Sink, std::void_t<decltype(std::declval<Sink&>().table_line(0u))>>
    : std::true_type {};

// The printf-row workload's row i, a C tool's fprintf(f, printf_row_format, ...) of mixed
// integers, a string and a double.
constexpr const char* printf_row_format = "%d,%s,%.3f,%ld\n";
struct printf_row_values {
  int id;
  const char* name;
  double value;
  long total;
};
inline printf_row_values printf_row_of(const corpus& input, std::uint32_t i) noexcept {
  static const char* const names[] = {"alpha", "beta", "gamma-ray", ""};
  return {static_cast<int>(i * 2654435761u % 2000001u) - 1000000, names[i % 4],
          number_value(input, i) * 1000, static_cast<long>(i) * 1000003};
}
constexpr std::size_t max_printf_row = 96;

// Whether a Sink has the printf-row workload's call, printf_row(const printf_row_values&).
template <class Sink, class = void>
struct can_printf_row : std::false_type {};
template <class Sink>
struct can_printf_row<Sink,
                      std::void_t<decltype(std::declval<Sink&>().printf_row(printf_row_values{}))>>
    : std::true_type {};

// Whether a Sink has the numbers workloads' calls, row(long, double, double) and number(double).
template <class Sink, class = void>
struct can_print_numbers : std::false_type {};
template <class Sink>
struct can_print_numbers<Sink, std::void_t<decltype(std::declval<Sink&>().number(0.0))>>
    : std::true_type {};

#ifdef PERF_HAVE_BOOST_SERIALIZATION
// The boost-archive workload's program, the same for every stream (perf/writers_archive.cpp): a
// text_oarchive on `out`, then `archive << number_value(i)` for each of work.count doubles.
void write_text_archive(const workload& work, std::ostream& out);
#endif

// Whether a Sink has the boost-archive workload's call, archive(const workload&).
template <class Sink, class = void>
struct can_write_archive : std::false_type {};
template <class Sink>
struct can_write_archive<
    Sink, std::void_t<decltype(std::declval<Sink&>().archive(std::declval<const workload&>()))>>
    : std::true_type {};

// Whether a Sink has the log-lines workload's call, log(const log_entry&).
template <class Sink, class = void>
struct can_log : std::false_type {};
template <class Sink>
struct can_log<Sink, std::void_t<decltype(std::declval<Sink&>().log(std::declval<log_entry>()))>>
    : std::true_type {};

// Whether a Sink has the seeking calls; emit() throws for a seeking workload when it has not.
template <class Sink, class = void>
struct can_seek : std::false_type {};
template <class Sink>
struct can_seek<Sink, std::void_t<decltype(std::declval<Sink&>().tell())>> : std::true_type {};

// The seeking workloads through a Sink's block() and its three seeking calls:
//   tell()                                        the current offset
//   seek(std::uint64_t offset)                    moves the current offset (scatter)
//   write_at(std::uint64_t offset, const char*, std::size_t)   writes there and leaves the
//                                                 current offset at the end (patch, toc)
template <class Sink>
void emit_seeking(const workload& work, Sink& out) {
  const corpus& input = *work.input;
  const char* const random = input.random.data();
  switch (work.kind) {
    case workload_kind::patch: {
      const char placeholder[length_size] = {};
      std::size_t at = 0;
      for (std::uint32_t i = 0; i < work.count; ++i) {
        const std::uint32_t size = body_size(i);
        const std::uint64_t start = out.tell();
        out.block(placeholder, length_size);
        out.block(random + at, size);
        char length[length_size];
        std::memcpy(length, &size, length_size);
        out.write_at(start, length, length_size);
        at = next_body(input, at, size);
      }
      break;
    }
    case workload_kind::toc: {
      std::vector<std::uint64_t> offsets(work.count);
      const char* const header = reinterpret_cast<const char*>(offsets.data());
      const std::size_t header_size = offsets.size() * offset_size;
      out.block(header, header_size);
      std::size_t at = 0;
      for (std::uint32_t i = 0; i < work.count; ++i) {
        const std::uint32_t size = body_size(i);
        offsets[i] = out.tell();
        out.block(random + at, size);
        at = next_body(input, at, size);
      }
      out.write_at(0, header, header_size);
      break;
    }
    case workload_kind::scatter:
      for (std::uint32_t block : work.order) {
        out.seek(std::uint64_t{block} * scatter_block);
        out.block(random + std::uint64_t{block} * scatter_block % input.random.size(),
                  scatter_block);
      }
      break;
    case workload_kind::random_16:
    case workload_kind::random_64: {
      // Laid out as a user lays out an index: a seek to the last byte and a zero there.
      const char zero = '\0';
      out.seek(work.bytes - 1);
      out.block(&zero, 1);
      const std::size_t record = record_size(work.kind);
      const std::uint64_t slots = work.bytes / record;
      for (std::uint32_t i = 0; i < work.count; ++i) {
        const std::uint64_t offset = random_slot(i, slots) * record;
        const char* const data = random + record_source(input, i, record);
        if constexpr (writes_records_in_place<Sink>::value) {
          out.write_at(offset, data, record);
        } else {
          out.seek(offset);
          out.block(data, record);
        }
      }
      break;
    }
    default:
      break;
  }
}

// Emits the workload through a Sink, a writer's adapter with four calls:
//   byte(char)                          the bytes workload, one call per byte
//   token(std::string_view)             the tokens workload; data()[size()] is '\0'
//   line(std::uint32_t i, std::uint32_t value)   the lines workload, one generated line
//   block(const char*, std::size_t)     the blocks workloads; at the current offset when seeking
// and, for the seeking workloads, the calls emit_seeking() lists; for the numbers workloads,
//   row(long id, double x, double y)    one CSV row
//   number(double x)                    one double and a newline
// for the table workload
//   table_line(std::uint32_t i)         "  table[<i>] = {<i * 7>, \"entry\"};\n"
// and for the printf-row workload
//   printf_row(const printf_row_values&)   printf_row_format's row.
// and for boost-archive
//   archive(const workload&)            write_text_archive into the writer's stream
// and for log-lines
//   log(const log_entry&)               one line of the log, its line end included.
// The loops are templates so that each writer's calls are inlined into them, as in a real program.
template <class Sink>
void emit(const workload& work, Sink& out) {
  const corpus& input = *work.input;
  switch (work.kind) {
    case workload_kind::bytes:
      for (std::uint64_t left = work.bytes; left > 0;) {
        const std::size_t n =
            static_cast<std::size_t>(std::min<std::uint64_t>(left, input.random.size()));
        const char* const data = input.random.data();
        for (std::size_t i = 0; i < n; ++i) out.byte(data[i]);
        left -= n;
      }
      break;
    case workload_kind::tokens:
    case workload_kind::parallel_tokens:
      for (std::uint64_t left = work.count; left > 0;) {
        const std::size_t n =
            static_cast<std::size_t>(std::min<std::uint64_t>(left, input.tokens.size()));
        for (std::size_t i = 0; i < n; ++i) out.token(input.tokens[i]);
        left -= n;
      }
      break;
    case workload_kind::lines:
      for (std::uint32_t i = 0; i < work.count; ++i) out.line(i, line_value(i));
      break;
    case workload_kind::blocks_4k:
    case workload_kind::blocks_1m: {
      const std::size_t block = block_size(work.kind);
      std::size_t offset = 0;
      for (std::uint64_t left = work.bytes; left > 0; left -= block) {
        out.block(input.random.data() + offset, block);
        offset = (offset + block) % input.random.size();
      }
      break;
    }
    case workload_kind::numbers:
    case workload_kind::doubles:
    case workload_kind::parallel_csv:
      if constexpr (can_print_numbers<Sink>::value) {
        for (std::uint64_t i = 0; i < work.count; ++i) {
          if (bytes_of(work.kind) == workload_kind::numbers) {
            out.row(static_cast<long>(i), number_value(input, i), number_value(input, i + 1));
          } else {
            out.number(number_value(input, i));
          }
        }
      } else {
        throw std::logic_error(std::string("this writer prints no numbers: no ") +
                               name_of(work.kind));
      }
      break;
    case workload_kind::table:
      if constexpr (can_print_table<Sink>::value) {
        for (std::uint32_t i = 0; i < work.count; ++i) out.table_line(i);
      } else {
        throw std::logic_error("this writer prints no table");
      }
      break;
    case workload_kind::printf_row:
      if constexpr (can_printf_row<Sink>::value) {
        for (std::uint32_t i = 0; i < work.count; ++i) out.printf_row(printf_row_of(input, i));
      } else {
        throw std::logic_error("this writer has no printf");
      }
      break;
    case workload_kind::boost_archive:
      if constexpr (can_write_archive<Sink>::value) {
        out.archive(work);
      } else {
        throw std::logic_error("this writer writes no text_oarchive (or no Boost.Serialization)");
      }
      break;
    case workload_kind::log_lines:
      if constexpr (can_log<Sink>::value) {
        log_clock clock;
        for (std::uint32_t i = 0; i < work.count; ++i) out.log(log_entry_of(clock, i));
      } else {
        throw std::logic_error("this writer writes no log lines");
      }
      break;
    case workload_kind::patch:
    case workload_kind::toc:
    case workload_kind::scatter:
    case workload_kind::random_16:
    case workload_kind::random_64:
      if constexpr (can_seek<Sink>::value) {
        emit_seeking(work, out);
      } else {
        throw std::logic_error(std::string("this writer cannot seek: no ") + name_of(work.kind));
      }
      break;
  }
}

}  // namespace perf
