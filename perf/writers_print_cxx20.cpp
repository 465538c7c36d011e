// print and fmt::output_file compiled as C++20: there a plain literal format is a constant that
// mapout cuts when compiling, and FMT_STRING's check is fmt's consteval one. The same Sinks as the
// C++17 rows, so that the two standards are set side by side on the same bytes.
#include "fmt_sink.hpp"
#include "print_sink.hpp"

#if __cplusplus < 202002L
#error "writers_print_cxx20.cpp is built as C++20 (perf/meson.build)"
#endif

namespace perf {

void add_print_cxx20_writers(std::vector<writer>& list) {
  const auto lines_and_table = {workload_kind::lines, workload_kind::table};
  writer literal = print_writer<print_format::literal>(
      "mapout-print-cxx20", "print literal, C++20",
      print_apis({workload_kind::lines, workload_kind::numbers, workload_kind::doubles,
                  workload_kind::table}));
  literal.quick = false;
  list.push_back(literal);
  writer checked = print_writer<print_format::checked>(
      "mapout-print-cxx20-string", "print FMT_STRING, C++20", print_apis(lines_and_table));
  checked.quick = false;
  list.push_back(checked);

  writer fmt;
  fmt.id = "fmt-cxx20";
  fmt.label = "fmt::output_file, C++20";
  fmt.apis = print_apis(lines_and_table);
  fmt.quick = false;
  fmt.run = run_sink<fmt_sink<false>>;
  list.push_back(fmt);
}

}  // namespace perf
