// mapout::print straight on a mapout::ostream, one Sink for every way of giving it the format, so
// that the same calls can be compiled as C++17 (writers_cursor.cpp) and as C++20
// (writers_print_cxx20.cpp), where a literal is cut when compiling.
#pragma once

#include <fmt/compile.h>
#include <fmt/format.h>
#include <mapout/format.hpp>
#include <mapout/ostream.hpp>

#include <array>
#include <initializer_list>
#include <system_error>

#include "writers.hpp"

namespace perf {
// The same template compiled as C++17 and as C++20 would be one symbol, and the linker would keep
// either: each standard's Sinks are types of their own.
#if __cplusplus >= 202002L
inline namespace cxx20 {
#else
inline namespace cxx17 {
#endif

// How the format reaches print: FMT_STRING, FMT_COMPILE, or a plain literal (parsed by fmt at
// run time under C++17, cut when compiling under C++20).
enum class print_format { checked, compiled, literal };

// Doubles as "{}" (fmt's shortest round trip, the digest shortest_digest gives) or as "{:g}", the
// bytes of printf's %g that every other numbers row writes.
enum class double_format { shortest, general };

template <print_format Format, double_format Doubles = double_format::shortest>
class print_sink {
 public:
  explicit print_sink(const std::string& path) : out_(path, std::ios::binary) {
    if (!out_.is_open() || !out_) throw_errno("open", path);
  }
  void byte(char c) { out_.put(c); }
  void token(std::string_view text) {
    out_.write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  void line(std::uint32_t i, std::uint32_t value) {
    if constexpr (Format == print_format::compiled) {
      mapout::print(out_, FMT_COMPILE("    {{ \"field_{}\", {}, {} }},\n"), i, i, value);
    } else if constexpr (Format == print_format::checked) {
      mapout::print(out_, FMT_STRING("    {{ \"field_{}\", {}, {} }},\n"), i, i, value);
    } else {
      mapout::print(out_, "    {{ \"field_{}\", {}, {} }},\n", i, i, value);
    }
  }
  void table_line(std::uint32_t i) {
    if constexpr (Format == print_format::compiled) {
      mapout::print(out_, FMT_COMPILE("  table[{}] = {{{}, \"{}\"}};\n"), i, i * 7, "entry");
    } else if constexpr (Format == print_format::checked) {
      mapout::print(out_, FMT_STRING("  table[{}] = {{{}, \"{}\"}};\n"), i, i * 7, "entry");
    } else {
      mapout::print(out_, "  table[{}] = {{{}, \"{}\"}};\n", i, i * 7, "entry");
    }
  }
  void block(const char* data, std::size_t size) {
    out_.write(data, static_cast<std::streamsize>(size));
  }
  void row(long id, double x, double y) {
    if constexpr (Doubles == double_format::general) {
      static_assert(Format == print_format::checked, "one {:g} row: FMT_STRING");
      mapout::print(out_, FMT_STRING("{},{:g},{:g}\n"), id, x, y);
    } else if constexpr (Format == print_format::compiled) {
      mapout::print(out_, FMT_COMPILE("{},{},{}\n"), id, x, y);
    } else if constexpr (Format == print_format::checked) {
      mapout::print(out_, FMT_STRING("{},{},{}\n"), id, x, y);
    } else {
      mapout::print(out_, "{},{},{}\n", id, x, y);
    }
  }
  void number(double x) {
    if constexpr (Doubles == double_format::general) {
      mapout::print(out_, FMT_STRING("{:g}\n"), x);
    } else if constexpr (Format == print_format::compiled) {
      mapout::print(out_, FMT_COMPILE("{}\n"), x);
    } else if constexpr (Format == print_format::checked) {
      mapout::print(out_, FMT_STRING("{}\n"), x);
    } else {
      mapout::print(out_, "{}\n", x);
    }
  }
  void close() {
    out_.close();
    if (!out_) throw std::system_error(out_.error(), out_.error_message());
  }

 private:
  mapout::ostream out_;
};

// "print" for each of `kinds`, nothing for the other workloads.
inline std::array<const char*, workload_kind_count> print_apis(
    std::initializer_list<workload_kind> kinds) {
  return apis_for(kinds, "print");
}

// A print row: `apis` gives the workloads it runs; its numbers rows are checked against
// shortest_digest unless it writes {:g}.
template <print_format Format, double_format Doubles = double_format::shortest>
writer print_writer(std::string id, std::string label,
                    std::array<const char*, workload_kind_count> apis) {
  writer w;
  w.id = std::move(id);
  w.label = std::move(label);
  w.apis = apis;
  w.run = run_sink<print_sink<Format, Doubles>>;
  if constexpr (Doubles == double_format::shortest) w.reference = shortest_digest;
  return w;
}

}  // namespace cxx20 or cxx17
}  // namespace perf
