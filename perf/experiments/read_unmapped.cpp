// mapout::istream over a file it maps and over the same file read through its buffer, as a file
// with no room in the address space is read: RLIMIT_AS leaves 16 MiB beside what is mapped.
// Counts the lines with std::getline, or makes 50,000 seekg + read(64) at random offsets; prints
// the seconds. Short enough to run under valgrind --tool=callgrind.
//
//   read_unmapped FILE lines|seeks [--unmapped]
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include <mapout/istream.hpp>

namespace {

bool leave_no_room_for_the_file() {
  unsigned long long pages = 0;
  std::FILE* statm = std::fopen("/proc/self/statm", "r");
  if (!statm) return false;
  const bool read = std::fscanf(statm, "%llu", &pages) == 1;
  std::fclose(statm);
  const rlim_t limit = static_cast<rlim_t>(pages) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE)) +
                       (rlim_t{16} << 20);
  const struct rlimit address_space = {limit, limit};
  return read && ::setrlimit(RLIMIT_AS, &address_space) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s FILE lines|seeks [--unmapped]\n", argv[0]);
    return 2;
  }
  const std::string work = argv[2];
  if (argc > 3 && std::strcmp(argv[3], "--unmapped") == 0 && !leave_no_room_for_the_file()) {
    std::perror("setrlimit");
    return 1;
  }
  const auto start = std::chrono::steady_clock::now();
  mapout::istream in(argv[1]);
  if (!in.is_open()) {
    std::fprintf(stderr, "%s\n", in.error_message().c_str());
    return 1;
  }
  unsigned long long sum = 0;
  if (work == "lines") {
    for (std::string line; std::getline(in, line);) sum += line.size();
  } else {
    in.seekg(0, std::ios::end);
    const auto size = static_cast<unsigned long long>(in.tellg());
    std::mt19937 random(1);
    char bytes[64];
    for (int i = 0; i < 50000; ++i) {
      in.seekg(static_cast<std::streamoff>(random() % (size - sizeof bytes)));
      in.read(bytes, sizeof bytes);
      sum += static_cast<unsigned char>(bytes[0]);
    }
  }
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  std::printf("%s %s: %.4f s (checksum %llu)\n", work.c_str(),
              in.rdbuf()->input().is_mapped() ? "mapped" : "buffered", took.count(), sum);
  return 0;
}
