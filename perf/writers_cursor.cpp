// mapout::cursor and mapout::print: the cursor in a local that the emitting loop owns, so that
// its pointers stay in registers, on each strategy and extension mode; and print into the window of
// a mapout::ostream or a cursor, with the format string fmt::output_file is given.
#include <fmt/compile.h>
#include <fmt/format.h>
#include <mapout/cursor.hpp>
#include <mapout/format.hpp>
#include <mapout/ostream.hpp>

#include <system_error>

#include "print_sink.hpp"
#include "writers.hpp"

namespace perf {
namespace {

template <mapout::strategy Strategy, mapout::extension Extension = mapout::extension::ahead>
mapout::options options_for() {
  mapout::options opts;
  opts.strategy = Strategy;
  opts.extension = Extension;
  return opts;
}

// Every call through a cursor made on the stream; print for lines when `Print` says so. A type per
// writer (`Options`), so that each emit() is called once and inlined into its run_cursor.
template <mapout::options (*Options)(), bool Print>
class cursor_sink {
 public:
  explicit cursor_sink(mapout::ostream& out) : put_(out) {}

  void byte(char c) { put_.put(c); }
  void token(std::string_view text) { put_.write(text.data(), text.size()); }
  void line(std::uint32_t i, std::uint32_t value) {
    if constexpr (Print) {
      mapout::print(put_, FMT_COMPILE("    {{ \"field_{}\", {}, {} }},\n"), i, i, value);
    } else {
      put_ << line_head << i << line_middle << i << line_comma << value << line_tail;
    }
  }
  void block(const char* data, std::size_t size) { put_.write(data, size); }

 private:
  mapout::cursor put_;
};

// Opens the stream, emits the workload through a cursor_sink that lives in this frame only, and
// closes the stream.
template <mapout::options (*Options)(), bool Print>
void run_through_cursor(const workload& work, const std::string& path) {
  mapout::ostream out(path, std::ios::binary, Options());
  if (!out.is_open() || !out) throw_errno("open", path);
  {
    cursor_sink<Options, Print> sink(out);
    emit(work, sink);
  }
  out.close();
  if (!out) throw std::system_error(out.error(), out.error_message());
}

// emit() and the cursor's calls inlined, as a program's own loop around its cursor is: GCC keeps a
// large emit() out of line, and the sink's address would escape into it (flatten).
template <mapout::options (*Options)()>
[[gnu::flatten]] void run_cursor(const workload& work, const std::string& path) {
  run_through_cursor<Options, false>(work, path);
}

// print's lines: fmt's formatting stays the library's own code, as in any program.
template <mapout::options (*Options)()>
void run_cursor_print(const workload& work, const std::string& path) {
  run_through_cursor<Options, true>(work, path);
}

writer cursor_writer(std::string id, std::string label,
                     void (*run)(const workload&, const std::string&), bool every_workload) {
  writer w;
  w.id = std::move(id);
  w.label = std::move(label);
  if (every_workload) {
    w.apis = {"put", "write", "<<", "write", "write", nullptr, nullptr, nullptr};
  } else {
    w.apis = {"put", nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
    w.quick = false;
  }
  w.run = run;
  return w;
}

}  // namespace

void add_cursor_writers(std::vector<writer>& list) {
  using mapout::extension;
  using mapout::strategy;
  list.push_back(cursor_writer("mapout-cursor", "mapout::cursor",
                               run_cursor<options_for<strategy::automatic>>, true));
  list.push_back(cursor_writer("mapout-cursor-mapped", "mapout::cursor mapped",
                               run_cursor<options_for<strategy::mapped>>, false));
#ifdef PERF_HAVE_SIGBUS
  list.push_back(cursor_writer("mapout-cursor-sigbus", "mapout::cursor on_sigbus",
                               run_cursor<options_for<strategy::mapped, extension::on_fault>>,
                               false));
#endif

  // print straight on the stream: the format parsed on every call as fmt::output_file parses it
  // (a literal), checked when compiling (FMT_STRING), or compiled (FMT_COMPILE).
  const auto every = {workload_kind::lines, workload_kind::numbers, workload_kind::doubles,
                      workload_kind::table};
  list.push_back(
      print_writer<print_format::checked>("mapout-print", "mapout::print", print_apis(every)));
  list.push_back(print_writer<print_format::compiled>(
      "mapout-print-compiled", "mapout::print FMT_COMPILE", print_apis(every)));
  writer general = print_writer<print_format::checked, double_format::general>(
      "mapout-print-g", "mapout::print {:g}",
      print_apis({workload_kind::numbers, workload_kind::doubles}));
  general.quick = false;
  list.push_back(general);
  writer literal =
      print_writer<print_format::literal>("mapout-print-literal", "mapout::print literal",
                                          print_apis({workload_kind::lines, workload_kind::table}));
  literal.quick = false;
  list.push_back(literal);

  writer cursor_print;
  cursor_print.id = "mapout-cursor-print";
  cursor_print.label = "mapout::print FMT_COMPILE, cursor";
  cursor_print.apis = {nullptr, nullptr, "print", nullptr, nullptr, nullptr, nullptr, nullptr};
  cursor_print.run = run_cursor_print<options_for<strategy::automatic>>;
  list.push_back(cursor_print);
}

}  // namespace perf
