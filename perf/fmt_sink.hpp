// fmt::output_file: print for everything, the way fmt's users write files; one Sink, so that the
// same calls can be compiled as C++17 (writers_fmt.cpp) and as C++20 (writers_print_cxx20.cpp).
#pragma once

#include <fmt/os.h>

#include "writers.hpp"

namespace perf {
// The same template compiled as C++17 and as C++20 would be one symbol, and the linker would keep
// either: each standard's Sinks are types of their own.
#if __cplusplus >= 202002L
inline namespace cxx20 {
#else
inline namespace cxx17 {
#endif

// Doubles as "{}" (fmt's shortest round trip, shortest_digest) or as "{:g}", printf's %g, as the
// other numbers rows.
template <bool Shortest>
class fmt_sink {
 public:
  explicit fmt_sink(const std::string& path) : out_(fmt::output_file(path)) {}

  void byte(char c) { out_.print("{}", c); }
  void token(std::string_view text) { out_.print("{}", text); }
  void line(std::uint32_t i, std::uint32_t value) {
    out_.print("    {{ \"field_{}\", {}, {} }},\n", i, i, value);
  }
  void table_line(std::uint32_t i) {
    out_.print("  table[{}] = {{{}, \"{}\"}};\n", i, i * 7, "entry");
  }
  void block(const char* data, std::size_t size) { out_.print("{}", std::string_view(data, size)); }
  void row(long id, double x, double y) {
    if constexpr (Shortest) {
      out_.print("{},{},{}\n", id, x, y);
    } else {
      out_.print("{},{:g},{:g}\n", id, x, y);
    }
  }
  void number(double x) {
    if constexpr (Shortest) {
      out_.print("{}\n", x);
    } else {
      out_.print("{:g}\n", x);
    }
  }
  void close() { out_.close(); }

 private:
  fmt::ostream out_;
};

}  // namespace cxx20 or cxx17
}  // namespace perf
