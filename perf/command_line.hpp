// What the perf programs share on their command lines: comma-separated lists, and the directory
// the program lives in, where results and scratch files go unless told otherwise.
#pragma once

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

}  // namespace perf
