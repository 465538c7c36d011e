// perf/seed_table: the experiment mapout grew from. 32 MiB of random bytes written one at a time
// with stdio ("stupid"), into a mapping extended ahead of the writes ("clever"), and into a mapping
// that SIGBUS extends ("signal"), through mapout::ostream::put and through mapout::cursor; user,
// system and wall time, medians of rotating rounds, each run in a fresh child after perf::warm_up.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "digest.hpp"
#include "runner.hpp"
#include "stats.hpp"

namespace {

using perf::program_dir;

struct contender {
  const char* name;
  const char* writer_id;
  const char* how;
};

constexpr contender contenders[] = {
    {"stupid", "stdio", "stdio putc_unlocked"},
    {"clever", "mapout-mapped", "mapout::ostream::put, file extended ahead (fallocate)"},
    {"signal", "mapout-sigbus", "mapout::ostream::put, file extended on SIGBUS"},
    {"clever cursor", "mapout-cursor-mapped", "mapout::cursor::put, file extended ahead"},
    {"signal cursor", "mapout-cursor-sigbus", "mapout::cursor::put, file extended on SIGBUS"},
};

}  // namespace

int main(int argc, char** argv) try {
  std::string dir = program_dir() + "/files";
  int rounds = 5;
  std::uint64_t size = std::uint64_t{32} << 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--dir")
      dir = argv[i + 1];
    else if (flag == "--rounds")
      rounds = std::atoi(argv[i + 1]);
    else if (flag == "--mib")
      size = std::strtoull(argv[i + 1], nullptr, 10) << 20;
  }
  if (argc % 2 == 0 || rounds < 1 || size == 0) {
    std::fprintf(stderr, "usage: %s [--dir DIR] [--rounds N] [--mib MiB]\n", argv[0]);
    return 2;
  }
  std::filesystem::create_directories(dir);

  const std::vector<perf::writer> writers = perf::all_writers();
  std::vector<const perf::writer*> chosen;
  std::vector<const contender*> names;
  for (const contender& c : contenders) {
    for (const perf::writer& w : writers) {
      if (w.id == c.writer_id) {
        chosen.push_back(&w);
        names.push_back(&c);
      }
    }
  }
  const perf::corpus input = perf::make_corpus("/usr/include", 1 << 20);
  const perf::workload work = perf::make_workload(perf::workload_kind::bytes, size, input);
  const perf::digest expected = perf::expected_digest(work);

  std::vector<std::vector<perf::sample>> samples(chosen.size());
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t k = 0; k < chosen.size(); ++k) {
      const std::size_t index = (k + static_cast<std::size_t>(round)) % chosen.size();
      std::string path = dir + "/seed." + names[index]->name;
      std::replace(path.begin(), path.end(), ' ', '-');
      samples[index].push_back(perf::run_once(*chosen[index], work, path));
      if (round == 0 && !(perf::file_digest(path) == expected)) {
        std::fprintf(stderr, "%s wrote the wrong bytes\n", names[index]->name);
        return 1;
      }
      ::unlink(path.c_str());
    }
  }

  std::printf("%llu MiB of random bytes, one byte per call, %s; medians of %d runs\n\n",
              static_cast<unsigned long long>(size >> 20), dir.c_str(), rounds);
  std::printf("%-14s %8s %8s %8s %8s  %s\n", "", "usr s", "sys s", "wall s", "GB/s", "how");
  for (std::size_t k = 0; k < chosen.size(); ++k) {
    std::vector<double> user, sys, wall;
    for (const perf::sample& s : samples[k]) {
      user.push_back(s.user);
      sys.push_back(s.sys);
      wall.push_back(s.wall);
    }
    std::printf("%-14s %8.3f %8.3f %8.3f %8.2f  %s\n", names[k]->name, perf::median(user),
                perf::median(sys), perf::median(wall),
                static_cast<double>(size) / perf::median(wall) / 1e9, names[k]->how);
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "seed_table: %s\n", e.what());
  return 1;
}
