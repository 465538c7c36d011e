// compare's command line: which file systems, sizes, workloads and writers, and where results go.
#pragma once

#include <string>
#include <vector>

#include "runner.hpp"

namespace perf {

struct settings {
  plan what;
  std::string out_dir;  // results.csv, details.txt, summary.txt, throughput.svg
  std::string include_dir = "/usr/include";
  std::size_t text_cap = std::size_t{16} << 20;
  bool list_writers = false;
};

// Parses argv; prints usage and exits on --help or a mistake.
settings parse_settings(int argc, char** argv, const std::vector<writer>& writers);

}  // namespace perf
