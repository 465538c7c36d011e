// Where a mapping's streaming time goes: the same short tokens through mapout::ostream, buffered
// against mapped with the default reservation, with one reservation for the whole file, and with
// the file on its own (no guard). Each run is a child process; its rusage gives CPU time, minor
// faults and voluntary context switches (a wait: writeback, throttling, a lock).
//
//   perf/experiments/stream_cost DIR MiB [--rounds N] [--lines]
//
// Rounds rotate the variants; prints medians of wall, user, system, faults and waits.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "../stats.hpp"
#include "mapout/ostream.hpp"

namespace {

struct variant {
  const char* name;
  mapout::options opts;
};

std::vector<variant> variants(std::uint64_t bytes) {
  mapout::options buffered;
  buffered.strategy = mapout::strategy::buffered;
  mapout::options mapped;
  mapped.strategy = mapout::strategy::mapped;
  mapout::options whole = mapped;
  whole.mapping_size = static_cast<std::size_t>(bytes + (std::uint64_t{64} << 20));
  mapout::options unguarded = mapped;
  unguarded.guard_faults = false;
  return {{"buffered", buffered},
          {"mapped", mapped},
          {"mapped, whole-file reservation", whole},
          {"mapped, no guard", unguarded}};
}

void write_tokens(mapout::ostream& out, std::uint64_t bytes) {
  static const char* const tokens[] = {
      "int", " ", "main", "(",     "void",        ")", " {\n",        "  return",
      " ",   "0", ";",    "\n}\n", "static_cast", "<", "std::size_t", ">"};
  std::uint64_t written = 0;
  for (unsigned i = 0; written < bytes; ++i) {
    const char* token = tokens[i % 16];
    const std::size_t size = std::strlen(token);
    out.write(token, static_cast<std::streamsize>(size));
    written += size;
  }
}

void write_lines(mapout::ostream& out, std::uint64_t bytes) {
  for (std::uint32_t i = 0; static_cast<std::uint64_t>(out.tellp()) < bytes; ++i) {
    for (int j = 0; j < 64; ++j, ++i) {
      out << "    { \"field_" << i << "\", " << i << ", " << (i * 2654435761u) << " },\n";
    }
  }
}

struct sample {
  double wall, user, sys, faults, waits, preempted;
};

sample run(const variant& v, const std::string& path, std::uint64_t bytes, bool lines) {
  std::filesystem::remove(path);  // before the clock: freeing the last file's pages is not ours
  const auto start = std::chrono::steady_clock::now();
  const pid_t child = fork();
  if (child == 0) {
    mapout::ostream out(path, std::ios::out, v.opts);
    lines ? write_lines(out, bytes) : write_tokens(out, bytes);
    out.close();
    _exit(out ? 0 : 1);
  }
  int status = 0;
  struct rusage usage {};
  if (child < 0 || wait4(child, &status, 0, &usage) != child || status != 0) {
    std::fprintf(stderr, "%s: the writer failed\n", v.name);
    std::exit(1);
  }
  const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - start;
  auto seconds = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
  return {wall.count(),
          seconds(usage.ru_utime),
          seconds(usage.ru_stime),
          double(usage.ru_minflt),
          double(usage.ru_nvcsw),
          double(usage.ru_nivcsw)};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: stream_cost DIR MiB [--rounds N] [--lines]\n");
    return 2;
  }
  const std::string path = std::string(argv[1]) + "/stream_cost.out";
  const std::uint64_t bytes = std::strtoull(argv[2], nullptr, 10) << 20;
  int rounds = 5;
  bool lines = false;
  for (int i = 3; i < argc; ++i) {
    if (std::strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) rounds = std::atoi(argv[++i]);
    if (std::strcmp(argv[i], "--lines") == 0) lines = true;
  }
  const std::vector<variant> all = variants(bytes);
  std::vector<std::vector<sample>> samples(all.size());
  perf::warm_up(bytes);
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t k = 0; k < all.size(); ++k) {
      const std::size_t v = (k + static_cast<std::size_t>(round)) % all.size();
      samples[v].push_back(run(all[v], path, bytes, lines));
    }
  }
  std::filesystem::remove(path);
  std::printf("%s, %llu MiB of %s, medians of %d rounds\n", argv[1],
              static_cast<unsigned long long>(bytes >> 20), lines ? "lines" : "tokens", rounds);
  std::printf("%-32s %8s %8s %8s %9s %7s %9s %8s\n", "variant", "wall s", "user s", "sys s",
              "faults", "waits", "preempted", "vs buf");
  double buffered_wall = 0;
  for (std::size_t v = 0; v < all.size(); ++v) {
    auto pick = [&](double sample::*field) {
      std::vector<double> values;
      for (const sample& s : samples[v]) values.push_back(s.*field);
      return perf::median(values);
    };
    const double wall = pick(&sample::wall);
    if (v == 0) buffered_wall = wall;
    std::printf("%-32s %8.3f %8.3f %8.3f %9.0f %7.0f %9.0f %8.2f\n", all[v].name, wall,
                pick(&sample::user), pick(&sample::sys), pick(&sample::faults),
                pick(&sample::waits), pick(&sample::preempted), wall / buffered_wall);
  }
}
