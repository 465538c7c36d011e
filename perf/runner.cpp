// The child-process runs and the rotating rounds, each run after the warm-up.
#include "runner.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>

#include "stats.hpp"

namespace perf {
namespace {

// A field of /proc/self/status in bytes ("VmRSS", "VmHWM").
std::uint64_t status_bytes(const char* field) {
  std::FILE* status = std::fopen("/proc/self/status", "r");
  if (!status) return 0;
  char line[256];
  const std::size_t field_size = std::strlen(field);
  std::uint64_t kib = 0;
  while (std::fgets(line, sizeof line, status)) {
    if (std::strncmp(line, field, field_size) == 0 && line[field_size] == ':') {
      kib = std::strtoull(line + field_size + 1, nullptr, 10);
      break;
    }
  }
  std::fclose(status);
  return kib << 10;
}

// Makes VmHWM start again from the current resident set (proc(5), clear_refs value 5).
void reset_peak_rss() {
  const int fd = ::open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return;
  if (::write(fd, "5", 1) != 1) {
    // The peak then includes what the process touched before; reported as measured.
  }
  ::close(fd);
}

double seconds(const timeval& t) {
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
}

// What the child sends back through its pipe.
struct child_report {
  bool ok = false;
  sample measured;
  digest written;  // a memory writer's output
  char error[512] = {};
};

child_report measure(const writer& w, const workload& work, const std::string& path) {
  child_report report;
  try {
    if (w.prepare) w.prepare(work);
    reset_peak_rss();
    const std::uint64_t baseline = status_bytes("VmRSS");
    rusage before{};
    ::getrusage(RUSAGE_SELF, &before);
    const auto start = std::chrono::steady_clock::now();
    w.run(work, path);
    const auto stop = std::chrono::steady_clock::now();
    rusage after{};
    ::getrusage(RUSAGE_SELF, &after);
    const std::uint64_t peak = status_bytes("VmHWM");
    report.measured.wall = std::chrono::duration<double>(stop - start).count();
    report.measured.user = seconds(after.ru_utime) - seconds(before.ru_utime);
    report.measured.sys = seconds(after.ru_stime) - seconds(before.ru_stime);
    report.measured.peak_rss = peak > baseline ? peak - baseline : 0;
    if (w.memory_digest) report.written = w.memory_digest();
    report.ok = true;
  } catch (const std::exception& e) {
    std::snprintf(report.error, sizeof report.error, "%s", e.what());
  }
  return report;
}

}  // namespace

sample run_once(const writer& w, const workload& work, const std::string& path, digest* written) {
  warm_up(work.bytes);
  int pipe_ends[2];
  if (::pipe2(pipe_ends, O_CLOEXEC) != 0) throw_errno("pipe", path);
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) throw_errno("fork", path);
  if (child == 0) {
    ::close(pipe_ends[0]);
    const child_report report = measure(w, work, path);
    const bool sent = ::write(pipe_ends[1], &report, sizeof report) == sizeof report;
    ::_exit(sent ? 0 : 1);
  }
  ::close(pipe_ends[1]);
  child_report report;
  const ssize_t received = ::read(pipe_ends[0], &report, sizeof report);
  ::close(pipe_ends[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (received != static_cast<ssize_t>(sizeof report)) {
    throw std::runtime_error(w.id + " died (wait status " + std::to_string(status) + ")");
  }
  if (!report.ok) throw std::runtime_error(report.error);
  if (written) *written = report.written;
  return report.measured;
}

std::vector<cell> run_plan(const plan& p, const std::vector<writer>& writers, const corpus& input,
                           const std::function<void(const std::string&)>& progress) {
  std::vector<cell> cells;
  for (const file_system& fs : p.file_systems) {
    for (std::uint64_t size : p.sizes) {
      for (workload_kind kind : p.kinds) {
        const auto started = std::chrono::steady_clock::now();
        const workload work = make_workload(kind, size, input);
        const digest expected = expected_digest(work);
        const std::size_t first = cells.size();
        for (std::size_t index : p.writers) {
          const writer& w = writers[index];
          if (!w.api(kind)) continue;
          if (p.includes && !p.includes(fs, size, kind, w)) continue;
          cell c;
          c.file_system = fs.name;
          c.kind = kind;
          c.size = size;
          c.bytes = work.bytes;
          c.writer = index;
          if (is_not_applicable(w.api(kind))) {
            c.skipped = w.api(kind);
          } else if (const char* why = p.skips ? p.skips(fs, size, kind, w) : nullptr) {
            c.skipped = why;
          }
          cells.push_back(c);
        }
        const std::size_t count = cells.size() - first;
        if (count == 0) continue;
        for (int round = 0; round < p.rounds; ++round) {
          for (std::size_t k = 0; k < count; ++k) {
            cell& c = cells[first + (k + static_cast<std::size_t>(round)) % count];
            if (!c.error.empty() || !c.skipped.empty()) continue;
            const writer& w = writers[c.writer];
            const std::string path = fs.dir + "/" + w.id + "." + name_of(kind);
            try {
              digest written;
              c.samples.push_back(run_once(w, work, path, &written));
              if (round == 0) {
                c.verified = (w.memory_digest ? written : file_digest(path)) == expected;
                if (!c.verified) c.error = "output differs from the expected bytes";
              }
            } catch (const std::exception& e) {
              c.error = e.what();
            }
            ::unlink(path.c_str());
          }
        }
        const double took =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        char line[160];
        std::snprintf(line, sizeof line, "%s %llu MiB %s: %zu writers x %d rounds, %.1f s",
                      fs.name.c_str(), static_cast<unsigned long long>(size >> 20), name_of(kind),
                      count, p.rounds, took);
        progress(line);
      }
    }
  }
  return cells;
}

}  // namespace perf
