// flat: writes N random strings into a flat file with mapout::ostream, loads it back the three
// ways of flat.hpp, checks that all three see the same strings, and prints how long each took.
//
//   flat strings.flat 1000000
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "flat.hpp"

namespace {

template <typename Step>
double seconds(Step step) {
  const auto start = std::chrono::steady_clock::now();
  step();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) {
    std::cerr << "usage: flat FILE [COUNT]\n";
    return 2;
  }
  const char* path = argv[1];
  const std::size_t count = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000000;
  const std::vector<std::string> strings = flat::random_strings(count);

  const double wrote = seconds([&] {
    mapout::ostream out(path, std::ios::binary);
    flat::write_strings(out, strings);
    out.close();
    if (!out) throw std::runtime_error(out.error_message());
  });

  std::vector<std::string> each;
  const double loaded_each = seconds([&] { each = flat::load_each(path); });
  std::unique_ptr<flat::copied_table> copied;
  const double loaded_copy = seconds([&] { copied = std::make_unique<flat::copied_table>(path); });
  std::unique_ptr<flat::mapped_table> mapped;
  const double loaded_mapped =
      seconds([&] { mapped = std::make_unique<flat::mapped_table>(path); });
  for (std::size_t i = 0; i < count; ++i) {
    if (each[i] != strings[i] || (*copied)[i] != strings[i] || (*mapped)[i] != strings[i]) {
      throw std::runtime_error("a load differs from what was written, at string " +
                               std::to_string(i));
    }
  }
  if (mapped->error()) throw std::runtime_error(mapped->error().message());
  std::printf(
      "%zu strings: written in %.3f s (mapout::ostream); loaded element by element in "
      "%.3f s, with one copy in %.3f s, with no copy in %.6f s\n",
      count, wrote, loaded_each, loaded_copy, loaded_mapped);
  return 0;
} catch (const std::exception& e) {
  std::cerr << "flat: " << e.what() << '\n';
  return 1;
}
