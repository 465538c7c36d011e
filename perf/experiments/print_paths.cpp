// perf/experiments/print_paths: the instructions of one mapout::print call on each of its paths,
// for callgrind; no timing.
//
//   valgrind --tool=callgrind perf/experiments/print_paths ROW [LINES]
//
// Prints LINES (100,000) lines of ROW through a mapout::ostream on the buffer into
// /dev/shm/print_paths.out: table-compiled, table-checked, table-literal (plain fields, which
// mapout writes itself), numbers-compiled, numbers-checked (shortest doubles, the same), and
// spec-compiled, spec-cursor, numbers-g-compiled (formats with specs, which fmt formats into a
// buffer that print then copies). Each run pays the same dispatch on ROW and the file's set-up:
// compare one row before and after a change, not rows with each other.
#include <fmt/compile.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "mapout/format.hpp"

int main(int argc, char** argv) {
  const std::string row = argc > 1 ? argv[1] : "table-compiled";
  const int lines = argc > 2 ? std::atoi(argv[2]) : 100000;
  mapout::options opts;
  opts.strategy = mapout::strategy::buffered;
  mapout::ostream out("/dev/shm/print_paths.out", std::ios::out, opts);
  const std::string name = "field_name";
  for (int i = 0; i < lines; ++i) {
    const double x = i * 0.37 - 1000.0 / (i + 1);
    if (row == "table-compiled") {
      mapout::print(out, FMT_COMPILE("  table[{}] = {{{}, \"{}\"}};\n"), i, i * 7, "entry");
    } else if (row == "table-checked") {
      mapout::print(out, FMT_STRING("  table[{}] = {{{}, \"{}\"}};\n"), i, i * 7, "entry");
    } else if (row == "table-literal") {
      mapout::print(out, "  table[{}] = {{{}, \"{}\"}};\n", i, i * 7, "entry");
    } else if (row == "numbers-compiled") {
      mapout::print(out, FMT_COMPILE("{},{},{}\n"), i, x, -x);
    } else if (row == "numbers-checked") {
      mapout::print(out, FMT_STRING("{},{},{}\n"), i, x, -x);
    } else if (row == "spec-compiled") {
      mapout::print(out, FMT_COMPILE("{:>12} = {:#x};\n"), name, i);
    } else if (row == "spec-cursor") {
      mapout::cursor put(out);
      mapout::print(put, FMT_COMPILE("{:>12} = {:#x};\n"), name, i);
    } else if (row == "numbers-g-compiled") {
      mapout::print(out, FMT_COMPILE("{},{:g},{:.3f}\n"), i, x, -x);
    } else {
      return 2;
    }
  }
  out.close();
  return out.good() ? 0 : 1;
}
