// What reserving the blocks of each extension costs: a file written in small chunks through a
// MAP_SHARED mapping, extended ahead of the writes with ftruncate (holes: a full disk can turn a
// store into SIGBUS), fallocate (blocks reserved: a full disk is an error from the extension), or
// ftruncate plus MADV_POPULATE_WRITE (pages faulted in and checked before the stores).
//
//   perf/experiments/extend_cost DIR [MiB...] [--rounds N]
//
// Each round runs every variant once, in an order rotated per round, after perf::warm_up. Prints
// the median and the best of the rounds, in wall time and in the process's CPU time (user +
// system): on a machine shared with other work, the CPU time is the steadier of the two.
#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "../command_line.hpp"
#include "../stats.hpp"

namespace {

constexpr std::uint64_t mib = std::uint64_t{1} << 20;
constexpr std::uint64_t first_step = mib;
constexpr std::uint64_t largest_step = 64 * mib;

enum class variant { ftruncate_ahead, fallocate_ahead, populate_ahead };
constexpr variant variants[] = {variant::ftruncate_ahead, variant::fallocate_ahead,
                                variant::populate_ahead};

const char* name_of(variant v) {
  switch (v) {
    case variant::ftruncate_ahead:
      return "ftruncate";
    case variant::fallocate_ahead:
      return "fallocate";
    case variant::populate_ahead:
      return "populate";
  }
  return "?";
}

[[noreturn]] void die(const char* what) {
  std::perror(what);
  std::exit(1);
}

// Grows the file from `extent` to `target` the way `v` does.
void extend(variant v, int fd, char* map, std::uint64_t extent, std::uint64_t target) {
  switch (v) {
    case variant::ftruncate_ahead:
      if (ftruncate(fd, static_cast<off_t>(target)) != 0) die("ftruncate");
      return;
    case variant::fallocate_ahead:
      if (fallocate(fd, 0, static_cast<off_t>(extent), static_cast<off_t>(target - extent)) != 0) {
        die("fallocate");
      }
      return;
    case variant::populate_ahead:
      if (ftruncate(fd, static_cast<off_t>(target)) != 0) die("ftruncate");
      if (madvise(map + extent, target - extent, MADV_POPULATE_WRITE) != 0) die("madvise");
      return;
  }
}

double cpu_seconds() {
  timespec now;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

struct timing {
  double wall;
  double cpu;
};

// Writes `size` bytes in chunks of 20 to 80 bytes, as a text generator would.
timing run(variant v, const std::string& path, std::uint64_t size, const std::vector<char>& text) {
  const double cpu_start = cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) die("open");
  char* const map = static_cast<char*>(
      mmap(nullptr, size + largest_step, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  if (map == MAP_FAILED) die("mmap");
  std::uint64_t extent = 0;
  std::uint64_t step = first_step;
  std::uint64_t written = 0;
  std::size_t cursor = 0;
  while (written < size) {
    const std::size_t chunk = 20 + (cursor * 7) % 61;
    if (written + chunk > extent) {
      const std::uint64_t target = extent + step;
      extend(v, fd, map, extent, target);
      extent = target;
      step = std::min(step * 2, largest_step);
    }
    std::memcpy(map + written, text.data() + cursor, chunk);
    written += chunk;
    cursor = (cursor + chunk) % (text.size() - 128);
  }
  munmap(map, size + largest_step);
  if (ftruncate(fd, static_cast<off_t>(written)) != 0) die("ftruncate to size");
  close(fd);
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  const double cpu = cpu_seconds() - cpu_start;
  unlink(path.c_str());
  return {elapsed.count(), cpu};
}

}  // namespace

int main(int argc, char** argv) try {
  perf::sized_runs runs;
  if (!perf::parse_sized_runs(argc, argv, {256 * mib, 1024 * mib}, runs)) return 2;
  const std::string& dir = runs.dir;
  const std::vector<std::uint64_t>& sizes = runs.sizes;
  const int rounds = runs.rounds;

  std::vector<char> text(1 << 16);
  for (std::size_t i = 0; i < text.size(); ++i) text[i] = static_cast<char>('a' + i * 31 % 26);
  const std::string path = dir + "/extend_cost.tmp";

  std::printf("%-10s %6s %12s %10s %12s %10s\n", "variant", "MiB", "wall median", "wall best",
              "CPU median", "CPU best");
  for (std::uint64_t size : sizes) {
    constexpr std::size_t count = sizeof variants / sizeof variants[0];
    std::vector<double> wall[count];
    std::vector<double> cpu[count];
    for (int round = 0; round < rounds; ++round) {
      for (std::size_t k = 0; k < count; ++k) {
        const std::size_t which = (k + static_cast<std::size_t>(round)) % count;
        perf::warm_up(size);
        const timing t = run(variants[which], path, size, text);
        wall[which].push_back(t.wall);
        cpu[which].push_back(t.cpu);
      }
    }
    const auto gbps = [size](double seconds) { return static_cast<double>(size) / seconds / 1e9; };
    for (std::size_t k = 0; k < count; ++k) {
      std::printf("%-10s %6llu %12.2f %10.2f %12.2f %10.2f\n", name_of(variants[k]),
                  static_cast<unsigned long long>(size / mib), gbps(perf::median(wall[k])),
                  gbps(perf::best(wall[k])), gbps(perf::median(cpu[k])), gbps(perf::best(cpu[k])));
    }
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "extend_cost: %s\n", e.what());
  return 1;
}
