// What the file-output experiments share: their command line, DIR MiB [--rounds N], and their
// clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace perf {

using clock_type = std::chrono::steady_clock;

inline double ms_since(clock_type::time_point start) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
}

struct size_and_rounds {
  std::string dir;
  std::string path;  // the one file the experiment writes in dir
  std::uint64_t bytes = 0;
  int rounds = 5;
};

// Reads the command line, or prints the usage and exits with 2.
inline size_and_rounds read_size_and_rounds(int argc, char** argv, const char* file) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s DIR MiB [--rounds N]\n", argv[0]);
    std::exit(2);
  }
  size_and_rounds args;
  args.dir = argv[1];
  args.path = args.dir + "/" + file;
  args.bytes = std::strtoull(argv[2], nullptr, 10) << 20;
  if (argc > 4 && std::strcmp(argv[3], "--rounds") == 0) args.rounds = std::atoi(argv[4]);
  return args;
}

}  // namespace perf
