// The workloads every writer runs: one byte stream per workload and size, emitted through each
// writer's natural calls (a Sink), so that every writer produces the same bytes.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace perf {

enum class workload_kind { bytes, tokens, lines, blocks_4k, blocks_1m };

constexpr workload_kind all_workload_kinds[] = {workload_kind::bytes, workload_kind::tokens,
                                                workload_kind::lines, workload_kind::blocks_4k,
                                                workload_kind::blocks_1m};
constexpr std::size_t workload_kind_count = std::size(all_workload_kinds);

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
};

// Reads headers under `include_dir` (sorted by path, so every run sees the same text) until
// `text_cap` bytes, and splits them into identifier, number, punctuation and whitespace tokens.
corpus make_corpus(const std::string& include_dir, std::size_t text_cap);

// One byte stream: `kind` at about `size` bytes, exactly `bytes` long.
struct workload {
  workload_kind kind = workload_kind::bytes;
  std::uint64_t size = 0;
  // Tokens or lines emitted (the first whole one to reach `size`); unused by bytes and blocks.
  std::uint64_t count = 0;
  std::uint64_t bytes = 0;
  const corpus* input = nullptr;
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

// Emits the workload through a Sink, a writer's adapter with four calls:
//   byte(char)                          the bytes workload, one call per byte
//   token(std::string_view)             the tokens workload; data()[size()] is '\0'
//   line(std::uint32_t i, std::uint32_t value)   the lines workload, one generated line
//   block(const char*, std::size_t)     the blocks workloads
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
  }
}

}  // namespace perf
