// What options.atomic, write_if_changed and durable cost against a plain write: a generated text
// output of SIZE written over an existing file in chunks of 20 to 80 bytes through
// mapout::ostream (strategy::automatic), the old file in the page cache.
//
//   perf/experiments/replace_cost DIR [MiB...] [--rounds N]
//
// Variants: plain; write_if_changed over an equal old file ("unchanged"), over one with a line
// more at the top ("line inserted": every byte shifts, as when a generator's input changes) and
// over one whose first byte differs ("one byte changed": comparing goes on to the end); atomic;
// durable; atomic + durable. Each round runs every variant once, in an order rotated per round,
// after perf::warm_up. Prints the median and best wall time, the median CPU time (user + system),
// and from /proc/self/io what the run read (rchar: the comparison's pread), the bytes it made
// dirty (write_bytes), and of those the ones that will reach the disk (write_bytes less
// cancelled_write_bytes: a dropped temporary's pages never do; tmpfs counts none).
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <mapout/ostream.hpp>

#include "../command_line.hpp"
#include "../stats.hpp"

namespace {

constexpr std::uint64_t mib = std::uint64_t{1} << 20;

struct variant {
  const char* name;
  bool atomic;
  bool if_changed;
  bool durable;
  enum old_file { equal, line_inserted, first_byte_changed } old;
};

constexpr variant variants[] = {
    {"plain", false, false, false, variant::equal},
    {"if_changed, unchanged", false, true, false, variant::equal},
    {"if_changed, line inserted", false, true, false, variant::line_inserted},
    {"if_changed, one byte changed", false, true, false, variant::first_byte_changed},
    {"atomic", true, false, false, variant::equal},
    {"durable", false, false, true, variant::equal},
    {"atomic + durable", true, false, true, variant::equal},
};
constexpr std::size_t variant_count = sizeof variants / sizeof variants[0];

double cpu_seconds() {
  timespec now;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

// From /proc/self/io.
struct io_counts {
  std::uint64_t read = 0;       // rchar
  std::uint64_t dirtied = 0;    // write_bytes
  std::uint64_t cancelled = 0;  // cancelled_write_bytes
};

io_counts io_now() {
  std::ifstream in("/proc/self/io");
  io_counts counts;
  std::string key;
  std::uint64_t value;
  while (in >> key >> value) {
    if (key == "rchar:") counts.read = value;
    if (key == "write_bytes:") counts.dirtied = value;
    if (key == "cancelled_write_bytes:") counts.cancelled = value;
  }
  return counts;
}

struct timing {
  double wall;
  double cpu;
  io_counts io;
};

// The output: text cut into chunks of 20 to 80 bytes.
void write_output(mapout::ostream& out, std::uint64_t size, const std::string& text) {
  std::uint64_t written = 0;
  std::size_t cursor = 0;
  while (written < size) {
    const std::size_t chunk =
        static_cast<std::size_t>(std::min<std::uint64_t>(20 + (cursor * 7) % 61, size - written));
    out.write(text.data() + cursor, static_cast<std::streamsize>(chunk));
    written += chunk;
    cursor = (cursor + chunk) % (text.size() - 128);
  }
}

void write_old_file(const std::string& path, std::uint64_t size, const std::string& text,
                    variant::old_file old) {
  {
    mapout::ostream out(path, std::ios::binary);
    if (old == variant::line_inserted) out << "// an older generator's line\n";
    write_output(out, size, text);
    if (old == variant::first_byte_changed) {
      out.seekp(0);
      out << '#';
    }
    out.close();
    if (!out) throw std::runtime_error(out.error_message());
  }
  // Clean in the page cache, as an old output is by the next build.
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || fdatasync(fd) != 0) throw std::runtime_error("fdatasync old file");
  close(fd);
}

timing run(const variant& v, const std::string& path, std::uint64_t size, const std::string& text) {
  mapout::options opts;
  opts.atomic = v.atomic;
  opts.write_if_changed = v.if_changed;
  opts.durable = v.durable;
  const io_counts io_start = io_now();
  const double cpu_start = cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  mapout::ostream out(path, std::ios::binary, opts);
  write_output(out, size, text);
  out.close();
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  const double cpu = cpu_seconds() - cpu_start;
  if (!out) throw std::runtime_error(out.error_message());
  const io_counts io_end = io_now();
  return {elapsed.count(),
          cpu,
          {io_end.read - io_start.read, io_end.dirtied - io_start.dirtied,
           io_end.cancelled - io_start.cancelled}};
}

}  // namespace

int main(int argc, char** argv) try {
  perf::sized_runs runs;
  if (!perf::parse_sized_runs(argc, argv, {mib, 100 * mib}, runs)) return 2;
  const std::string& dir = runs.dir;
  const std::vector<std::uint64_t>& sizes = runs.sizes;
  const int rounds = runs.rounds;

  std::string text(1 << 16, '\0');
  for (std::size_t i = 0; i < text.size(); ++i) {
    text[i] = i % 61 == 60 ? '\n' : static_cast<char>('a' + i * 31 % 26);
  }
  const std::string path = dir + "/replace_cost.out";

  std::printf("%-29s %4s %11s %9s %10s %8s %8s %9s %8s\n", "variant", "MiB", "wall median",
              "wall best", "CPU median", "vs plain", "read MiB", "dirty MiB", "to disk");
  for (std::uint64_t size : sizes) {
    std::vector<timing> samples[variant_count];
    for (int round = 0; round < rounds; ++round) {
      for (std::size_t k = 0; k < variant_count; ++k) {
        const std::size_t which = (k + static_cast<std::size_t>(round)) % variant_count;
        write_old_file(path, size, text, variants[which].old);
        perf::warm_up(size);
        samples[which].push_back(run(variants[which], path, size, text));
      }
    }
    double plain_wall = 0;
    for (std::size_t k = 0; k < variant_count; ++k) {
      std::vector<double> wall, cpu, read, dirtied, to_disk;
      for (const timing& t : samples[k]) {
        wall.push_back(t.wall);
        cpu.push_back(t.cpu);
        read.push_back(static_cast<double>(t.io.read) / mib);
        dirtied.push_back(static_cast<double>(t.io.dirtied) / mib);
        to_disk.push_back(
            static_cast<double>(t.io.dirtied - std::min(t.io.dirtied, t.io.cancelled)) / mib);
      }
      if (k == 0) plain_wall = perf::median(wall);
      std::printf("%-29s %4llu %9.2fms %7.2fms %8.2fms %7.2fx %8.1f %9.1f %8.1f\n",
                  variants[k].name, static_cast<unsigned long long>(size / mib),
                  perf::median(wall) * 1e3, perf::best(wall) * 1e3, perf::median(cpu) * 1e3,
                  perf::median(wall) / plain_wall, perf::median(read), perf::median(dirtied),
                  perf::median(to_disk));
    }
  }
  unlink(path.c_str());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "replace_cost: %s\n", e.what());
  return 1;
}
