// What a part held in memory costs on its two sides: storing short tokens into fresh anonymous
// memory with small pages and with MADV_HUGEPAGE, and the join's pwrite(2) of page-aligned memory
// into a new file at each offset within a page.
//
//   perf/experiments/held_memory DIR MiB [--rounds N]
//
// Rounds rotate the variants, each after a warm-up of three times the bytes; prints the median and
// the best run of each, in ms.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../stats.hpp"
#include "file_experiment.hpp"

namespace {

char* fresh_memory(std::size_t bytes, bool huge) {
  void* const base =
      ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) {
    std::perror("mmap");
    std::exit(1);
  }
  if (huge && ::madvise(base, bytes, MADV_HUGEPAGE) != 0) std::perror("madvise");
  return static_cast<char*>(base);
}

// Tokens of 1 to 12 bytes, stored one after another as a part's stream stores them.
double store_tokens(std::size_t bytes, bool huge) {
  const auto start = perf::clock_type::now();
  char* const base = fresh_memory(bytes, huge);
  for (std::size_t at = 0, k = 0; at + 12 <= bytes; ++k) {
    const std::size_t size = 1 + (k * 7919) % 12;
    std::memset(base + at, 'a' + static_cast<int>(k % 26), size);
    at += size;
  }
  const double took = perf::ms_since(start);
  ::munmap(base, bytes);
  return took;
}

// The join's copy: 4 MiB stretches of page-aligned memory to `shift` bytes into a page.
double copy_at(const std::string& path, const char* from, std::size_t bytes, std::size_t shift) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    std::perror(path.c_str());
    std::exit(1);
  }
  constexpr std::size_t stretch = std::size_t{4} << 20;
  const auto start = perf::clock_type::now();
  for (std::size_t at = 0; at < bytes; at += stretch) {
    const std::size_t size = bytes - at < stretch ? bytes - at : stretch;
    if (::pwrite(fd, from + at, size, static_cast<off_t>(at + shift)) !=
        static_cast<ssize_t>(size)) {
      std::perror("pwrite");
      std::exit(1);
    }
  }
  const double took = perf::ms_since(start);
  ::close(fd);
  ::unlink(path.c_str());
  return took;
}

}  // namespace

int main(int argc, char** argv) {
  const perf::size_and_rounds args = perf::read_size_and_rounds(argc, argv, "held_memory.out");
  const std::size_t bytes = static_cast<std::size_t>(args.bytes);
  const std::vector<std::size_t> shifts = {0, 4, 12, 24, 64, 2048, 4095};
  char* const held = fresh_memory(bytes, false);
  std::memset(held, 'x', bytes);

  const std::size_t variants = 2 + shifts.size();
  std::vector<std::vector<double>> took(variants);
  for (int round = 0; round < args.rounds; ++round) {
    for (std::size_t v = 0; v < variants; ++v) {
      const std::size_t variant = (v + static_cast<std::size_t>(round)) % variants;
      perf::warm_up(3 * bytes);
      took[variant].push_back(variant < 2 ? store_tokens(bytes, variant == 1)
                                          : copy_at(args.path, held, bytes, shifts[variant - 2]));
    }
  }
  std::printf("%s, %zu MiB, %d rounds: median (best) ms\n", args.dir.c_str(), bytes >> 20,
              args.rounds);
  std::printf("tokens into fresh memory: small pages %.1f (%.1f), MADV_HUGEPAGE %.1f (%.1f)\n",
              perf::median(took[0]), perf::best(took[0]), perf::median(took[1]),
              perf::best(took[1]));
  for (std::size_t k = 0; k < shifts.size(); ++k) {
    std::printf("pwrite to %4zu bytes into a page: %.1f (%.1f)\n", shifts[k],
                perf::median(took[2 + k]), perf::best(took[2 + k]));
  }
  return 0;
}
