// Ways the join could copy a part held in memory into its place after a part of the file: pwrite(2)
// of 4 MiB stretches, 1 MiB at a time, on one and two threads; stores through a shared mapping of
// each stretch, populated first (MADV_POPULATE_WRITE), with and without the blocks reserved
// (fallocate); and one thread writing while another maps. The place 12 bytes past a page and on a
// page. Each time includes freeing the part's memory.
//
//   perf/experiments/join_ways DIR MiB [--rounds N]
//
// Rounds rotate the variants, each after a warm-up of three times the bytes; prints the median and
// the best run of each, in ms.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "../stats.hpp"
#include "file_experiment.hpp"

namespace {

constexpr std::size_t stretch = std::size_t{4} << 20;
constexpr std::size_t page = 4096;

[[noreturn]] void fail(const char* what) {
  std::perror(what);
  std::exit(1);
}

char* fresh_memory(std::size_t bytes, char fill) {
  void* const base =
      ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) fail("mmap");
  std::memset(base, fill, bytes);
  return static_cast<char*>(base);
}

enum class way { pwrite_one, pwrite_two, map_two, map_one, reserve_map_two, pwrite_and_map };
constexpr const char* way_names[] = {"pwrite, 1 thread",
                                     "pwrite, 2 threads",
                                     "populated mapping, 2 threads",
                                     "populated mapping, 1 thread",
                                     "fallocate + populated mapping, 2 threads",
                                     "pwrite on 1 thread, mapping on another"};
constexpr int way_count = static_cast<int>(std::size(way_names));

// The stretches of [0, size), taken in turn by `threads` threads; copy(at, n, thread).
template <class Copy>
void in_stretches(std::size_t size, int threads, Copy copy) {
  std::atomic<std::size_t> next{0};
  auto work = [&](int thread) {
    for (std::size_t at; (at = next.fetch_add(stretch)) < size;) {
      copy(at, std::min(stretch, size - at), thread);
    }
  };
  std::vector<std::thread> helpers;
  for (int k = 1; k < threads; ++k) helpers.emplace_back(work, k);
  work(0);
  for (std::thread& helper : helpers) helper.join();
}

// 1 MiB at a time, as the join writes (larger writes take 2 MiB folios on ext4).
void write_stretch(int fd, const char* from, std::size_t n, off_t to) {
  constexpr std::size_t piece = std::size_t{1} << 20;
  for (std::size_t at = 0; at < n; at += piece) {
    const std::size_t size = std::min(piece, n - at);
    if (::pwrite(fd, from + at, size, to + static_cast<off_t>(at)) != static_cast<ssize_t>(size)) {
      fail("pwrite");
    }
  }
}

void map_stretch(int fd, const char* from, std::size_t n, off_t to) {
  const off_t base = to & ~static_cast<off_t>(page - 1);
  const std::size_t length = n + static_cast<std::size_t>(to - base);
  void* const map = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, base);
  if (map == MAP_FAILED) fail("mmap");
  if (::madvise(map, length, MADV_POPULATE_WRITE) != 0) fail("madvise");
  std::memcpy(static_cast<char*>(map) + (to - base), from, n);
  ::munmap(map, length);
}

void copy_by_pwrite(int fd, const char* from, std::size_t size, off_t place, int threads) {
  in_stretches(size, threads, [&](std::size_t at, std::size_t n, int) {
    write_stretch(fd, from + at, n, place + static_cast<off_t>(at));
  });
}

void copy_by_mapping(int fd, const char* from, std::size_t size, off_t place, int threads,
                     bool reserve) {
  if (reserve ? ::fallocate(fd, 0, place, static_cast<off_t>(size)) != 0
              : ::ftruncate(fd, place + static_cast<off_t>(size)) != 0) {
    fail("grow");
  }
  in_stretches(size, threads, [&](std::size_t at, std::size_t n, int) {
    map_stretch(fd, from + at, n, place + static_cast<off_t>(at));
  });
}

// The caller's thread writes its stretches, a second maps its own: the writes take the inode
// lock, the mapping's faults do not.
void copy_by_pwrite_and_mapping(int fd, const char* from, std::size_t size, off_t place) {
  if (::ftruncate(fd, place + static_cast<off_t>(size)) != 0) fail("grow");
  in_stretches(size, 2, [&](std::size_t at, std::size_t n, int thread) {
    const off_t to = place + static_cast<off_t>(at);
    if (thread == 0) {
      write_stretch(fd, from + at, n, to);
    } else {
      map_stretch(fd, from + at, n, to);
    }
  });
}

// Part 0 of `place` bytes is in the file; the held part's `size` bytes join it.
double join_once(const std::string& path, const char* first, std::size_t size, off_t place,
                 way how) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail(path.c_str());
  if (::pwrite(fd, first, static_cast<std::size_t>(place), 0) != place) fail("pwrite");
  char* const held = fresh_memory(size, 'b');
  const auto start = perf::clock_type::now();
  switch (how) {
    case way::pwrite_one:
      copy_by_pwrite(fd, held, size, place, 1);
      break;
    case way::pwrite_two:
      copy_by_pwrite(fd, held, size, place, 2);
      break;
    case way::map_two:
      copy_by_mapping(fd, held, size, place, 2, false);
      break;
    case way::map_one:
      copy_by_mapping(fd, held, size, place, 1, false);
      break;
    case way::reserve_map_two:
      copy_by_mapping(fd, held, size, place, 2, true);
      break;
    case way::pwrite_and_map:
      copy_by_pwrite_and_mapping(fd, held, size, place);
      break;
  }
  ::munmap(held, size);
  const double took = perf::ms_since(start);
  ::close(fd);
  ::unlink(path.c_str());
  return took;
}

}  // namespace

int main(int argc, char** argv) {
  const perf::size_and_rounds args = perf::read_size_and_rounds(argc, argv, "join_ways.out");
  const std::size_t size = static_cast<std::size_t>(args.bytes);
  const std::size_t shifts[] = {12, 0};
  char* const first = fresh_memory(size + page, 'a');

  std::vector<double> took[2][way_count];
  for (int round = 0; round < args.rounds; ++round) {
    for (int s = 0; s < 2; ++s) {
      for (int w = 0; w < way_count; ++w) {
        const int variant = (w + round) % way_count;
        perf::warm_up(3 * size);
        took[s][variant].push_back(join_once(args.path, first, size,
                                             static_cast<off_t>(size + shifts[s]),
                                             static_cast<way>(variant)));
      }
    }
  }
  std::printf("%s, %zu MiB joined, %d rounds: median (best) ms\n", args.dir.c_str(), size >> 20,
              args.rounds);
  for (int s = 0; s < 2; ++s) {
    for (int w = 0; w < way_count; ++w) {
      std::printf("%2zu bytes past a page, %-42s %.1f (%.1f)\n", shifts[s], way_names[w],
                  perf::median(took[s][w]), perf::best(took[s][w]));
    }
  }
  return 0;
}
