// What a log costs with a flush after every line that another process must see: std::ofstream
// against mapout::ostream with options.flush_publishes on each strategy.
//
//   perf/experiments/flush_cost DIR [LINES] [WRITER]
//
// WRITER is one of ofstream, automatic, buffered, mapped (all of them by default), so that one
// writer can run under `strace -c -f` alone. Prints the wall and CPU (user + system) time per line.
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "mapout/ostream.hpp"

namespace {

double cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

template <typename Stream>
void write_lines(Stream& out, int lines) {
  for (int i = 0; i < lines; ++i)
    out << "log line " << i << " with some text after it" << std::endl;
}

void run(const std::string& writer, const std::string& path, int lines) {
  const auto wall = std::chrono::steady_clock::now();
  const double cpu = cpu_seconds();
  if (writer == "ofstream") {
    std::ofstream out(path);
    write_lines(out, lines);
  } else {
    mapout::options opts;
    opts.flush_publishes = true;
    if (writer == "mapped") opts.strategy = mapout::strategy::mapped;
    if (writer == "buffered") opts.strategy = mapout::strategy::buffered;
    mapout::ostream out(path, std::ios::out, opts);
    write_lines(out, lines);
  }
  const double wall_us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - wall).count();
  std::printf("%-10s %8.2f us/line wall %8.2f us/line cpu\n", writer.c_str(), wall_us / lines,
              (cpu_seconds() - cpu) * 1e6 / lines);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: flush_cost DIR [LINES] [WRITER]\n");
    return 2;
  }
  const std::string path = std::string(argv[1]) + "/flush_cost.log";
  const int lines = argc > 2 ? std::atoi(argv[2]) : 20000;
  if (argc > 3) {
    run(argv[3], path, lines);
  } else {
    for (const char* writer : {"ofstream", "automatic", "buffered", "mapped"})
      run(writer, path, lines);
  }
  std::remove(path.c_str());
  return 0;
}
