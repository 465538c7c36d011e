// A log followed while it is written: a writer flushing every line (std::endl), and a reader
// process that polls the file's size and reads up to it, as tail -F does. Each line carries the
// steady_clock time at which it was flushed; the reader records, for every line, how long after
// that it saw it. std::ofstream against mapout::ostream with flush_publishes, publishing at every
// flush or every 10 ms, with and without crash_safe.
//
//   perf/experiments/live_readers DIR [LINES] [--rate LINES_PER_SECOND] [WRITER...]
//
// With --rate the writer paces its lines (a log written as events come, not as fast as it can):
// a line then waits for the next publish at most, where the buffer seldom fills first.
//
// WRITER is one of ofstream, default (mapout without flush_publishes: the reference for CPU, whose
// reader may read the zeros of a mapping's reserve), every-flush, every-10ms, mapped-every-10ms
// (strategy::mapped), crash-safe-every-flush, crash-safe-10ms (all by default). Prints the writer's
// lines per second and CPU time (user + system) per line, and the reader's latency at the median,
// the 99th percentile and the worst, and any NUL it read.
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "../child_run.hpp"
#include "mapout/ostream.hpp"

namespace {

using namespace std::chrono_literals;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double cpu_seconds() {
  struct rusage usage;
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

// Freed pages go back to the host on these machines: touching as much memory as the run writes,
// then freeing it, makes every run start from the same state (docs/decisions.md).
void warm_up(std::size_t bytes) {
  std::vector<char> memory(bytes);
  for (std::size_t at = 0; at < bytes; at += 4096) memory[at] = 1;
}

// About 90 bytes, the flush time in it: "log line 0000123 at 12345678901234 ns: ...". With a
// `rate`, line i waits until i / rate seconds after the first.
template <class Stream>
void write_lines(Stream& out, int lines, int rate) {
  const std::int64_t start = now_ns();
  for (int i = 0; i < lines; ++i) {
    if (rate > 0) {
      const std::int64_t due = start + std::int64_t{i} * 1000000000 / rate;
      const struct timespec at = {static_cast<time_t>(due / 1000000000), due % 1000000000};
      ::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nullptr);
    }
    out << "log line " << i << " at " << now_ns() << " ns: the rest of the message, to ninety"
        << std::endl;
  }
}

struct writer_report {
  double seconds = 0;
  double cpu = 0;
};

struct reader_report {
  std::int64_t lines = 0;
  std::int64_t nuls = 0;
  double p50_ms = 0;
  double p99_ms = 0;
  double max_ms = 0;
};

writer_report write_log(const std::string& writer, const std::string& path, int lines, int rate) {
  warm_up(static_cast<std::size_t>(lines) * 90 + (std::size_t{64} << 20));
  const double cpu = cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  if (writer == "ofstream") {
    std::ofstream out(path);
    write_lines(out, lines, rate);
  } else {
    mapout::options opts;
    opts.flush_publishes = writer != "default";
    if (writer.rfind("mapped", 0) == 0) opts.strategy = mapout::strategy::mapped;
    opts.publish_every = writer.find("10ms") != std::string::npos ? 10ms : 0ms;
    opts.crash_safe = writer.rfind("crash-safe", 0) == 0;
    mapout::ostream out(path, std::ios::out, opts);
    write_lines(out, lines, rate);
  }
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
          cpu_seconds() - cpu};
}

// Polls the size, reads up to it, and times each whole line it finds against the poll that found
// it there, until it has `lines` of them or the writer is done (`done` readable) and the file grows
// no more. Sleeps 100 us after a poll that found nothing.
reader_report follow(const std::string& path, int lines, int done) {
  reader_report report;
  std::vector<std::int64_t> latency;
  latency.reserve(static_cast<std::size_t>(lines));
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return report;
  constexpr std::size_t chunk = std::size_t{1} << 20;
  std::vector<char> data(2 * chunk);
  std::size_t carried = 0;  // the start of an unfinished line, at data's start
  std::uint64_t offset = 0;
  bool writer_done = false;
  while (static_cast<int>(latency.size()) < lines) {
    struct stat st;
    if (::fstat(fd, &st) != 0) break;
    const std::int64_t seen = now_ns();
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size <= offset) {
      if (writer_done) break;
      struct pollfd waiting = {done, POLLIN, 0};
      writer_done = ::poll(&waiting, 1, 0) > 0;
      const struct timespec pause = {0, 100000};
      if (!writer_done) ::nanosleep(&pause, nullptr);
      continue;
    }
    while (offset < size) {
      if (carried >= chunk) carried = 0;  // no line is that long: NUL bytes, counted below
      const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(size - offset, chunk));
      const ssize_t got = ::pread(fd, data.data() + carried, want, static_cast<off_t>(offset));
      if (got <= 0) break;
      offset += static_cast<std::uint64_t>(got);
      char* const end = data.data() + carried + got;
      report.nuls += std::count(data.data() + carried, end, '\0');
      char* begin = data.data();
      while (char* newline = static_cast<char*>(std::memchr(begin, '\n', end - begin))) {
        static constexpr char marker[] = " at ";
        const char* at = std::search(begin, newline, marker, marker + 4);
        if (at != newline) latency.push_back(seen - std::strtoll(at + 4, nullptr, 10));
        begin = newline + 1;
      }
      carried = static_cast<std::size_t>(end - begin);
      std::memmove(data.data(), begin, carried);
    }
  }
  ::close(fd);
  report.lines = static_cast<std::int64_t>(latency.size());
  if (latency.empty()) return report;
  const auto at = [&](double share) {
    const auto k = static_cast<std::size_t>(share * static_cast<double>(latency.size() - 1));
    std::nth_element(latency.begin(), latency.begin() + static_cast<std::ptrdiff_t>(k),
                     latency.end());
    return static_cast<double>(latency[k]) * 1e-6;
  };
  report.p50_ms = at(0.5);
  report.p99_ms = at(0.99);
  report.max_ms = at(1.0);
  return report;
}

void run(const std::string& writer, const std::string& path, int lines, int rate) {
  std::ofstream(path).close();
  int reports[2];
  int done[2];
  if (::pipe(reports) != 0 || ::pipe(done) != 0) return;
  std::fflush(nullptr);
  const pid_t reader = ::fork();
  if (reader == 0) {
    ::close(reports[0]);
    ::close(done[1]);
    const reader_report report = follow(path, lines, done[0]);
    ::_exit(::write(reports[1], &report, sizeof report) == sizeof report ? 0 : 1);
  }
  ::close(reports[1]);
  ::close(done[0]);
  const writer_report wrote = perf::run_in_child<writer_report>(
      writer, [&] { return write_log(writer, path, lines, rate); });
  ::close(done[1]);
  reader_report read;
  if (::read(reports[0], &read, sizeof read) != sizeof read) read = {};
  ::close(reports[0]);
  ::waitpid(reader, nullptr, 0);
  std::printf("%-22s %6.2f M lines/s %6.3f s cpu (%5.0f ns/line)  reader: ", writer.c_str(),
              lines / wrote.seconds * 1e-6, wrote.cpu, wrote.cpu / lines * 1e9);
  if (read.nuls > 0) {
    // The times it parsed out of zeros mean nothing.
    std::printf("read %lld NUL bytes\n", static_cast<long long>(read.nuls));
  } else {
    std::printf("%7lld lines, p50 %7.3f ms, p99 %7.3f ms, max %8.3f ms\n",
                static_cast<long long>(read.lines), read.p50_ms, read.p99_ms, read.max_ms);
  }
  std::fflush(stdout);
  std::remove(path.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: live_readers DIR [LINES] [--rate N] [WRITER...]\n");
    return 2;
  }
  const std::string path = std::string(argv[1]) + "/live_readers.log";
  const int lines = argc > 2 ? std::atoi(argv[2]) : 1000000;
  int first_writer = std::min(argc, 3);
  int rate = 0;
  if (argc > 4 && std::strcmp(argv[3], "--rate") == 0) {
    rate = std::atoi(argv[4]);
    first_writer = 5;
  }
  std::vector<std::string> writers(argv + first_writer, argv + argc);
  if (writers.empty()) {
    writers = {"ofstream",       "default",           "every-flush",
               "every-10ms",     "mapped-every-10ms", "crash-safe-every-flush",
               "crash-safe-10ms"};
  }
  for (const std::string& writer : writers) run(writer, path, lines, rate);
  return 0;
}
