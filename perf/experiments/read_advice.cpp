// How a cached file is best scanned through a mapping: plain, each madvise advice, populated up
// front, against pread into a 64 KiB buffer; on ext4 with the file written in 4 MiB blocks and in
// 8 KiB blocks (the page cache's folios follow the writes), and on tmpfs. Each scan counts the
// newlines of the whole file, map and unmap included; fresh child per run, rotating rounds.
//
//   read_advice [--dir EXT4-DIR] [--shm TMPFS-DIR] [--mib 100] [--rounds 5]
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "../read_runner.hpp"
#include "../stats.hpp"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

namespace {

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

void write_file(const std::string& path, std::uint64_t bytes, std::size_t block) {
  std::string text(bytes, 'x');
  for (std::size_t at = 63; at < text.size(); at += 64) text[at] = '\n';
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("open " + path);
  for (std::size_t at = 0; at < text.size(); at += block) {
    const std::size_t size = std::min(block, text.size() - at);
    if (::write(fd, text.data() + at, size) != static_cast<ssize_t>(size)) fail("write " + path);
  }
  ::close(fd);
}

std::uint64_t count_newlines(const char* data, std::size_t size) {
  return static_cast<std::uint64_t>(std::count(data, data + size, '\n'));
}

// Maps the file with `flags`, gives `advice` (none when 0), counts.
perf::contender mapped(const std::string& name, const std::string& path, int flags, int advice) {
  return {name, [=](perf::stopwatch& t) {
            t.start();
            const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
            if (fd < 0) fail("open " + path);
            const auto size = static_cast<std::size_t>(std::filesystem::file_size(path));
            void* const map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED | flags, fd, 0);
            if (map == MAP_FAILED) fail("mmap " + path);
            if (advice != 0 && ::madvise(map, size, advice) != 0) fail("madvise " + path);
            const std::uint64_t lines = count_newlines(static_cast<const char*>(map), size);
            ::munmap(map, size);
            ::close(fd);
            t.stop();
            return lines;
          }};
}

perf::contender pread_blocks(const std::string& path) {
  return {"pread, 64 KiB blocks", [=](perf::stopwatch& t) {
            t.start();
            const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
            if (fd < 0) fail("open " + path);
            constexpr std::size_t block = std::size_t{64} << 10;
            std::unique_ptr<char[]> buffer(new char[block]);
            std::uint64_t lines = 0;
            off_t offset = 0;
            for (ssize_t got; (got = ::pread(fd, buffer.get(), block, offset)) > 0; offset += got) {
              lines += count_newlines(buffer.get(), static_cast<std::size_t>(got));
            }
            ::close(fd);
            t.stop();
            return lines;
          }};
}

}  // namespace

int main(int argc, char** argv) try {
  std::string disk_dir = std::filesystem::current_path().string();
  std::string shm_dir = "/dev/shm";
  std::uint64_t bytes = std::uint64_t{100} << 20;
  int rounds = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--dir") disk_dir = argv[i + 1];
    if (flag == "--shm") shm_dir = argv[i + 1];
    if (flag == "--mib") bytes = std::strtoull(argv[i + 1], nullptr, 10) << 20;
    if (flag == "--rounds") rounds = std::atoi(argv[i + 1]);
  }
  const std::string name = "/mapout-read-advice-" + std::to_string(::getpid());
  struct setup {
    std::string label;
    std::string path;
    std::size_t block;
  };
  const setup setups[] = {
      {"ext4, written in 4 MiB blocks", disk_dir + name, std::size_t{4} << 20},
      {"ext4, written in 8 KiB blocks", disk_dir + name, std::size_t{8} << 10},
      {"tmpfs", shm_dir + name, std::size_t{4} << 20},
  };
  std::printf(
      "newlines of a %llu MiB cached file, medians of %d rounds; x: times faster than "
      "pread\n",
      static_cast<unsigned long long>(bytes >> 20), rounds);
  for (const setup& s : setups) {
    write_file(s.path, bytes, s.block);
    const std::vector<perf::contender> contenders = {
        pread_blocks(s.path),
        mapped("mmap", s.path, 0, 0),
        mapped("mmap + MADV_SEQUENTIAL", s.path, 0, MADV_SEQUENTIAL),
        mapped("mmap + MADV_WILLNEED", s.path, 0, MADV_WILLNEED),
        mapped("mmap + MADV_HUGEPAGE", s.path, 0, MADV_HUGEPAGE),
        mapped("mmap + MADV_POPULATE_READ", s.path, 0, MADV_POPULATE_READ),
        mapped("mmap with MAP_POPULATE", s.path, MAP_POPULATE, 0),
    };
    const perf::group_result result = perf::run_group(contenders, rounds, 0);
    std::printf("\n%s\n%-28s %9s %9s %9s %9s %8s %6s\n", s.label.c_str(), "", "wall s", "best s",
                "user s", "sys s", "faults", "x");
    double base = 0;
    for (std::size_t k = 0; k < contenders.size(); ++k) {
      std::vector<double> wall, user, sys, faults;
      for (const perf::stopwatch& w : result.samples[k]) {
        wall.push_back(w.wall);
        user.push_back(w.user);
        sys.push_back(w.sys);
        faults.push_back(static_cast<double>(w.faults));
      }
      if (k == 0) base = perf::median(wall);
      std::printf("%-28s %9.4f %9.4f %9.4f %9.4f %8.0f %6.2f%s\n", contenders[k].name.c_str(),
                  perf::median(wall), perf::best(wall), perf::median(user), perf::median(sys),
                  perf::median(faults), base / perf::median(wall),
                  result.checks[k] == result.checks[0] ? "" : "  WRONG RESULT");
    }
    ::unlink(s.path.c_str());
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "read_advice: %s\n", e.what());
  return 1;
}
