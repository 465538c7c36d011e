// The frames from a full buffer to write(2): 10,000 lines of 40 bytes through mapout::ostream on
// the default strategy, which keeps its buffer on ext4, for a debugger to break on write.
//
//   gdb -batch -ex 'set breakpoint pending on' -ex 'break -qualified write' -ex run
//     -ex continue -ex bt --args build/perf/experiments/slow_path_frames DIR/out.txt
// (one line)
//
// The second hit comes after the first buffer is used up.
#include <cstdio>

#include "mapout/ostream.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: slow_path_frames FILE\n");
    return 2;
  }
  mapout::ostream out(argv[1]);
  const char line[] = "a line of forty bytes, as a generator's\n";
  for (int i = 0; i < 10000; ++i) out.write(line, sizeof line - 1);
  out.close();
  return out ? 0 : 1;
}
