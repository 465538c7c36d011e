// What a log keeps when its writer dies, per configuration: a forked writer of up to LINES log
// lines (~100 bytes: a timestamp and three integers) dies at a random line, by SIGKILL, abort() or
// a segfault; the parent counts the lines lost (written, and flushed where the writer flushes,
// but not in the file), the NUL bytes left after the last byte, and whether reopening for
// appending leaves the file clean (no NUL) with every kept line.
//
//   perf/experiments/crash_table DIR [LINES] [KILLS ABORTS SEGFAULTS]
//
// Prints one markdown row per configuration (docs/logs.md keeps the table).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "mapout/mapout.h"
#include "mapout/ostream.hpp"

namespace {

enum class death { kill, abort, segfault };

[[noreturn]] void die(death how) {
  if (how == death::kill) ::raise(SIGKILL);
  if (how == death::abort) std::abort();
  volatile int* volatile nowhere = nullptr;
  *nowhere = 1;
  ::_exit(99);
}

template <typename Stream>
void put_line(Stream& out, long i) {
  out << "2026-12-06 04:30:" << (10 + i % 50) << '.' << (100000 + i % 900000) << " [info] worker "
      << (i % 16) << " handled request " << i << " in " << (i * 37 % 1000) << " us";
}

struct configuration {
  const char* name;
  // Writes lines [0, n) to the path, each flushed or not as the configuration does, and dies
  // with the file still open.
  std::function<void(const std::string&, long, death)> write;
};

mapout::options with(bool crash_safe, mapout::strategy strategy = mapout::strategy::automatic) {
  mapout::options opts;
  opts.crash_safe = crash_safe;
  opts.strategy = strategy;
  return opts;
}

template <typename Stream>
void lines_to(Stream& out, long n, bool endl) {
  for (long i = 0; i < n; ++i) {
    put_line(out, i);
    if (endl) {
      out << std::endl;
    } else {
      out << '\n';
    }
  }
}

const configuration configurations[] = {
    {"std::ofstream + std::endl",
     [](const std::string& p, long n, death how) {
       std::ofstream out(p);
       lines_to(out, n, true);
       die(how);
     }},
    {"std::ofstream, no flush",
     [](const std::string& p, long n, death how) {
       std::ofstream out(p);
       lines_to(out, n, false);
       die(how);
     }},
    {"mapout default + std::endl",
     [](const std::string& p, long n, death how) {
       mapout::ostream out(p);
       lines_to(out, n, true);
       die(how);
     }},
    {"mapout app + std::endl",
     [](const std::string& p, long n, death how) {
       mapout::ostream out(p, std::ios::app);
       lines_to(out, n, true);
       die(how);
     }},
    {"mapout strategy::mapped + std::endl",
     [](const std::string& p, long n, death how) {
       mapout::ostream out(p, std::ios::out, with(false, mapout::strategy::mapped));
       lines_to(out, n, true);
       die(how);
     }},
    {"mapout strategy::buffered + std::endl",
     [](const std::string& p, long n, death how) {
       mapout::ostream out(p, std::ios::out, with(false, mapout::strategy::buffered));
       lines_to(out, n, true);
       die(how);
     }},
    {"mapout default, no flush",
     [](const std::string& p, long n, death how) {
       mapout::ostream out(p);
       lines_to(out, n, false);
       die(how);
     }},
    {"mapout crash_safe, no flush",
     [](const std::string& p, long n, death how) {
       mapout::ostream out(p, std::ios::out, with(true));
       lines_to(out, n, false);
       die(how);
     }},
    {"mapout crash_safe app, no flush",
     [](const std::string& p, long n, death how) {
       mapout::ostream out(p, std::ios::app, with(true));
       lines_to(out, n, false);
       die(how);
     }},
    {"C: mapout_open \"a\" + mapout_flush",
     [](const std::string& p, long n, death how) {
       mapout_file* out = mapout_open(p.c_str(), "a", nullptr);
       char line[160];
       for (long i = 0; i < n && out; ++i) {
         std::snprintf(line, sizeof line,
                       "2026-12-06 04:30:%ld.%ld [info] worker %ld handled request %ld in %ld us\n",
                       10 + i % 50, 100000 + i % 900000, i % 16, i, i * 37 % 1000);
         mapout_puts(line, out);
         mapout_flush(out);
       }
       die(how);
     }},
};

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

struct outcome {
  long lost = 0;
  std::size_t nuls = 0;
  bool resumed_clean = true;
};

outcome crash_once(const configuration& c, const std::string& path, long lines, death how) {
  std::remove(path.c_str());
  const pid_t pid = ::fork();
  if (pid == 0) {
    c.write(path, lines, how);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  const std::string after = read_all(path);
  const std::size_t first_nul = after.find('\0');
  const std::string bytes = after.substr(0, first_nul);
  outcome o;
  o.nuls = first_nul == std::string::npos ? 0 : after.size() - first_nul;
  o.lost = lines - static_cast<long>(std::count(bytes.begin(), bytes.end(), '\n'));
  // Reopened for appending, as the next run of the program would: clean, and nothing lost.
  { mapout::ostream again(path, std::ios::app); }
  const std::string resumed = read_all(path);
  o.resumed_clean = resumed.find('\0') == std::string::npos && resumed.size() >= bytes.size();
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [LINES] [KILLS ABORTS SEGFAULTS]\n", argv[0]);
    return 2;
  }
  const std::string path = std::string(argv[1]) + "/crash_table.log";
  const long most = argc > 2 ? std::atol(argv[2]) : 1000000;
  const int kills = argc > 5 ? std::atoi(argv[3]) : 20;
  const int aborts = argc > 5 ? std::atoi(argv[4]) : 20;
  const int segfaults = argc > 5 ? std::atoi(argv[5]) : 5;
  std::vector<death> deaths;
  deaths.insert(deaths.end(), kills, death::kill);
  deaths.insert(deaths.end(), aborts, death::abort);
  deaths.insert(deaths.end(), segfaults, death::segfault);
  std::printf(
      "| configuration | runs that lost lines | most lost | median NUL bytes left | "
      "reopened with app: clean |\n|---|---:|---:|---:|---|\n");
  for (const configuration& c : configurations) {
    std::mt19937 random(1);
    int losing = 0;
    int clean = 0;
    long most_lost = 0;
    std::vector<std::size_t> nuls;
    for (const death how : deaths) {
      const long lines = std::uniform_int_distribution<long>(1, most)(random);
      const outcome o = crash_once(c, path, lines, how);
      losing += o.lost > 0;
      most_lost = std::max(most_lost, o.lost);
      nuls.push_back(o.nuls);
      clean += o.resumed_clean;
    }
    std::sort(nuls.begin(), nuls.end());
    std::printf("| %s | %d / %zu | %ld | %zu | %d / %zu |\n", c.name, losing, deaths.size(),
                most_lost, nuls[nuls.size() / 2], clean, deaths.size());
    std::fflush(stdout);
  }
  std::remove(path.c_str());
}
