// perf/experiments/boost_buffer: does Boost's own buffer in front of mapout::sink help or hurt? It
// is one more copy of every byte, but without it each byte reaches the device on its own: Boost's
// streambuf has no xsputn, so std::streambuf's calls overflow once per byte. This picked sink's
// optimal_buffer_size.
//
//   perf/experiments/boost_buffer [--mib 256] [--rounds 5] [--buffers 0,4096,65536] DIR...
//
// Writes tokens of 1-10 bytes, 80-byte lines and 4 KiB blocks through
// boost::iostreams::stream<mapout::sink> with each Boost buffer size (0: unbuffered), into a file
// in each DIR. Runs interleave the buffer sizes in rotating order; before each, the previous file
// is removed and perf::warm_up runs. Prints per cell the median and best wall time, and the median
// and best CPU time (user + sys), which other load on the machine disturbs less.
#include <sys/resource.h>

#include <algorithm>
#include <boost/iostreams/stream.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "../stats.hpp"
#include "mapout/boost.hpp"

namespace {

struct workload {
  const char* name;
  std::string pool;                  // the bytes, cycled through until the size is reached
  std::vector<std::uint32_t> sizes;  // the length of each write, cycled along with the pool
};

std::vector<workload> make_workloads() {
  std::mt19937 random(42);
  const std::size_t pool_bytes = std::size_t{4} << 20;
  std::vector<workload> all;
  workload tokens{"tokens 1-10 B", {}, {}};
  while (tokens.pool.size() < pool_bytes) {
    const std::uint32_t size = 1 + random() % 10;
    for (std::uint32_t i = 0; i < size; ++i) tokens.pool += static_cast<char>('a' + random() % 26);
    tokens.sizes.push_back(size);
  }
  all.push_back(std::move(tokens));
  workload lines{"lines 80 B", {}, {}};
  while (lines.pool.size() < pool_bytes) {
    for (int i = 0; i < 79; ++i) lines.pool += static_cast<char>(' ' + random() % 95);
    lines.pool += '\n';
    lines.sizes.push_back(80);
  }
  all.push_back(std::move(lines));
  workload blocks{"blocks 4 KiB", std::string(pool_bytes, '\0'), {}};
  for (char& c : blocks.pool) c = static_cast<char>(random());
  blocks.sizes.assign(pool_bytes / 4096, 4096);
  all.push_back(std::move(blocks));
  return all;
}

// Writes `bytes` bytes of the workload (whole writes; the last may be cut short) and closes.
void write_workload(const workload& work, std::uint64_t bytes, const std::string& path,
                    std::streamsize boost_buffer) {
  boost::iostreams::stream<mapout::sink> out(mapout::sink(path), boost_buffer);
  std::size_t write = 0;
  std::size_t offset = 0;
  for (std::uint64_t left = bytes; left > 0;) {
    const std::size_t size = std::min<std::uint64_t>(work.sizes[write], left);
    out.write(work.pool.data() + offset, static_cast<std::streamsize>(size));
    left -= size;
    offset += work.sizes[write];
    if (++write == work.sizes.size()) write = offset = 0;
  }
  out.close();
  if (!out) throw std::runtime_error("writing " + path + " failed");
}

double cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

std::vector<std::streamsize> parse_sizes(const std::string& list) {
  std::vector<std::streamsize> sizes;
  for (std::size_t at = 0; at <= list.size();) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    sizes.push_back(std::stoll(list.substr(at, comma - at)));
    at = comma + 1;
  }
  return sizes;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t mib = 256;
  int rounds = 5;
  std::vector<std::streamsize> buffers = {0, 4096, 65536};
  std::vector<std::filesystem::path> dirs;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--mib" && i + 1 < argc) {
      mib = std::stoull(argv[++i]);
    } else if (arg == "--rounds" && i + 1 < argc) {
      rounds = std::stoi(argv[++i]);
    } else if (arg == "--buffers" && i + 1 < argc) {
      buffers = parse_sizes(argv[++i]);
    } else if (arg.rfind("--", 0) == 0) {
      std::cerr << "usage: " << argv[0]
                << " [--mib 256] [--rounds 5] [--buffers 0,4096,65536] DIR...\n";
      return 2;
    } else {
      dirs.emplace_back(arg);
    }
  }
  const std::uint64_t bytes = mib << 20;
  const std::vector<workload> workloads = make_workloads();
  std::printf("%-22s %-14s %7s %9s %9s %9s %9s %9s %9s\n", "dir", "workload", "buffer", "wall med",
              "wall best", "cpu med", "cpu best", "MB/s med", "MB/s best");
  try {
    for (const auto& dir : dirs) {
      const std::string path = (dir / "boost_buffer.out").string();
      for (const workload& work : workloads) {
        std::vector<std::vector<double>> seconds(buffers.size());
        std::vector<std::vector<double>> cpu(buffers.size());
        for (int round = 0; round < rounds; ++round) {
          for (std::size_t k = 0; k < buffers.size(); ++k) {
            const std::size_t variant = (k + static_cast<std::size_t>(round)) % buffers.size();
            std::filesystem::remove(path);
            perf::warm_up(bytes);
            const double cpu_start = cpu_seconds();
            const auto start = std::chrono::steady_clock::now();
            write_workload(work, bytes, path, buffers[variant]);
            const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
            const double cpu_end = cpu_seconds();
            if (std::filesystem::file_size(path) != bytes) throw std::runtime_error("wrong size");
            seconds[variant].push_back(took.count());
            cpu[variant].push_back(cpu_end - cpu_start);
          }
        }
        std::filesystem::remove(path);
        for (std::size_t variant = 0; variant < buffers.size(); ++variant) {
          const double mid = perf::median(seconds[variant]);
          const double best = perf::best(seconds[variant]);
          std::printf("%-22s %-14s %7lld %9.3f %9.3f %9.3f %9.3f %9.0f %9.0f\n",
                      dir.string().c_str(), work.name, static_cast<long long>(buffers[variant]),
                      mid, best, perf::median(cpu[variant]), perf::best(cpu[variant]),
                      static_cast<double>(bytes) / mid / 1e6,
                      static_cast<double>(bytes) / best / 1e6);
        }
      }
    }
  } catch (const std::exception& e) {
    std::cerr << argv[0] << ": " << e.what() << '\n';
    return 1;
  }
}
