// What the perf programs share on their command lines: comma-separated lists, and the directory
// the program lives in, where results and scratch files go unless told otherwise.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

namespace perf {

// The non-empty items of "a,b,c".
inline std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> items;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

// The running program's directory, or "." where /proc cannot tell.
inline std::string program_dir() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : self.parent_path().string();
}

// "DIR [MiB...] [--rounds N]": what the experiments that time a few file sizes are told.
struct sized_runs {
  std::string dir;                   // where the scratch file goes
  std::vector<std::uint64_t> sizes;  // in bytes
  int rounds = 5;
};

// Parses that command line; `default_sizes` (bytes) when it names none. False, after the usage
// line on stderr, when DIR is missing.
inline bool parse_sized_runs(int argc, char** argv, std::vector<std::uint64_t> default_sizes,
                             sized_runs& out) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [MiB...] [--rounds N]\n", argv[0]);
    return false;
  }
  constexpr std::uint64_t mib = std::uint64_t{1} << 20;
  out.dir = argv[1];
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
      out.rounds = std::atoi(argv[++i]);
    } else {
      out.sizes.push_back(std::strtoull(argv[i], nullptr, 10) * mib);
    }
  }
  if (out.sizes.empty()) out.sizes = std::move(default_sizes);
  return true;
}

}  // namespace perf
