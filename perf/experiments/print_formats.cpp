// perf/experiments/print_formats: what one generated line costs to format, each way mapout::print
// could format it into a window, against to_chars by hand. print formats a run-time string and
// an FMT_COMPILE format it does not write itself into a memory_buffer, then copies: formatted
// once, a user formatter cannot change its text between a measure and the store.
//
//   perf/experiments/print_formats [WAY]
//
// Formats 2,000,000 lines "    { "field_<i>", <i>, <value> },\n" into a 64 KiB buffer that is
// reused (no file, no page faults): only the formatting is measured. With WAY, runs that one only,
// for instruction counts: valgrind --tool=callgrind perf/experiments/print_formats 'to_chars'.
#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string_view>

namespace {

constexpr int lines = 2000000;
char buffer[1 << 16];
const char* only = nullptr;

std::uint32_t value_of(std::uint32_t i) {
  return static_cast<std::uint32_t>(i * 2654435761u % 1000000u);
}

// Runs `format(put, end, i)` for every line; it returns the end of the line it wrote.
template <class Format>
void measure(const char* way, Format format) {
  if (only != nullptr && std::strcmp(only, way) != 0) return;
  const auto start = std::chrono::steady_clock::now();
  char* put = buffer;
  char* const end = buffer + sizeof buffer;
  std::size_t total = 0;
  for (std::uint32_t i = 0; i < lines; ++i) {
    if (end - put < 128) {
      total += static_cast<std::size_t>(put - buffer);
      put = buffer;
    }
    put = format(put, end, i);
  }
  total += static_cast<std::size_t>(put - buffer);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%-34s %6.1f ns/line %6.2f GB/s\n", way, seconds / lines * 1e9,
              static_cast<double>(total) / seconds / 1e9);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) only = argv[1];
  measure("to_chars", [](char* put, char*, std::uint32_t i) {
    constexpr std::string_view head = "    { \"field_", middle = "\", ", comma = ", ",
                               tail = " },\n";
    put = std::copy(head.begin(), head.end(), put);
    put = std::to_chars(put, put + 10, i).ptr;
    put = std::copy(middle.begin(), middle.end(), put);
    put = std::to_chars(put, put + 10, i).ptr;
    put = std::copy(comma.begin(), comma.end(), put);
    put = std::to_chars(put, put + 10, value_of(i)).ptr;
    return std::copy(tail.begin(), tail.end(), put);
  });
  measure("runtime: vformat_to_n into window", [](char* put, char* end, std::uint32_t i) {
    const auto room = static_cast<std::size_t>(end - put);
    return put +
           fmt::format_to_n(put, room, "    {{ \"field_{}\", {}, {} }},\n", i, i, value_of(i)).size;
  });
  measure("runtime: memory_buffer, then copy", [](char* put, char*, std::uint32_t i) {
    fmt::memory_buffer text;
    fmt::format_to(std::back_inserter(text), "    {{ \"field_{}\", {}, {} }},\n", i, i,
                   value_of(i));
    std::memcpy(put, text.data(), text.size());
    return put + text.size();
  });
  measure("compiled: format_to_n", [](char* put, char* end, std::uint32_t i) {
    const auto room = static_cast<std::size_t>(end - put);
    return put + fmt::format_to_n(put, room, FMT_COMPILE("    {{ \"field_{}\", {}, {} }},\n"), i, i,
                                  value_of(i))
                     .size;
  });
  measure("compiled: formatted_size+format_to", [](char* put, char* end, std::uint32_t i) {
    const std::size_t size =
        fmt::formatted_size(FMT_COMPILE("    {{ \"field_{}\", {}, {} }},\n"), i, i, value_of(i));
    if (size >= static_cast<std::size_t>(end - put)) return put;
    return fmt::format_to(put, FMT_COMPILE("    {{ \"field_{}\", {}, {} }},\n"), i, i, value_of(i));
  });
  measure("compiled: memory_buffer, then copy", [](char* put, char*, std::uint32_t i) {
    fmt::memory_buffer text;
    fmt::format_to(std::back_inserter(text), FMT_COMPILE("    {{ \"field_{}\", {}, {} }},\n"), i, i,
                   value_of(i));
    std::memcpy(put, text.data(), text.size());
    return put + text.size();
  });
  measure("compiled: format_to, unchecked", [](char* put, char*, std::uint32_t i) {
    return fmt::format_to(put, FMT_COMPILE("    {{ \"field_{}\", {}, {} }},\n"), i, i, value_of(i));
  });
  return 0;
}
