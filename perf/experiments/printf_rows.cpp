// perf's printf-row through fprintf or mapout_printf, for counting instructions under callgrind:
//   printf_rows fprintf|mapout_printf ROWS PATH
#include <mapout/mapout.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: printf_rows fprintf|mapout_printf ROWS PATH\n");
    return 2;
  }
  const unsigned rows = static_cast<unsigned>(std::strtoul(argv[2], nullptr, 10));
  static const char* const names[] = {"alpha", "beta", "gamma-ray", ""};
  const auto id = [](unsigned i) { return static_cast<int>(i * 2654435761u % 2000001u) - 1000000; };
  const auto value = [](unsigned i) { return (i % 977) * 1.37 - 500; };
  if (std::strcmp(argv[1], "fprintf") == 0) {
    std::FILE* file = std::fopen(argv[3], "wb");
    if (file == nullptr) return 1;
    for (unsigned i = 0; i < rows; ++i) {
      std::fprintf(file, "%d,%s,%.3f,%ld\n", id(i), names[i % 4], value(i), i * 1000003L);
    }
    return std::fclose(file) == 0 ? 0 : 1;
  }
  mapout_file* file = mapout_open(argv[3], "w", nullptr);
  if (file == nullptr) return 1;
  for (unsigned i = 0; i < rows; ++i) {
    mapout_printf(file, "%d,%s,%.3f,%ld\n", id(i), names[i % 4], value(i), i * 1000003L);
  }
  return mapout_close(file) == 0 ? 0 : 1;
}
