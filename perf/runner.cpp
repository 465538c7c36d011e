// The child-process runs and the rotating rounds, each run after the warm-up.
#include "runner.hpp"

#include <fcntl.h>
#include <unistd.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <sys/resource.h>
#include <sys/wait.h>
#endif

#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>

#include "child_run.hpp"
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

#ifdef _WIN32
// Under Wine, /proc is Linux's, reached through the Z: drive.
constexpr int unshared = O_NOINHERIT;
#else
constexpr int unshared = O_CLOEXEC;
#endif

// Makes VmHWM start again from the current resident set (proc(5), clear_refs value 5).
void reset_peak_rss() {
  const int fd = ::open("/proc/self/clear_refs", O_WRONLY | unshared);
  if (fd < 0) return;
  if (::write(fd, "5", 1) != 1) {
    // The peak then includes what the process touched before; reported as measured.
  }
  ::close(fd);
}

#ifdef _WIN32
// The process's user and system seconds, as getrusage gives them elsewhere; no /proc for the
// resident set (its fields read 0).
struct times_used {
  double user = 0;
  double sys = 0;
};
double seconds(const FILETIME& t) {
  return static_cast<double>((std::uint64_t{t.dwHighDateTime} << 32) | t.dwLowDateTime) * 1e-7;
}
times_used process_times() {
  FILETIME created, exited, kernel, user;
  if (!::GetProcessTimes(::GetCurrentProcess(), &created, &exited, &kernel, &user)) return {};
  return {seconds(user), seconds(kernel)};
}
#else
double seconds(const timeval& t) {
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
}
struct times_used {
  double user = 0;
  double sys = 0;
};
times_used process_times() {
  rusage used{};
  ::getrusage(RUSAGE_SELF, &used);
  return {seconds(used.ru_utime), seconds(used.ru_stime)};
}
#endif

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
    const times_used before = process_times();
    const auto start = std::chrono::steady_clock::now();
    w.run(work, path);
    const auto stop = std::chrono::steady_clock::now();
    const times_used after = process_times();
    const std::uint64_t peak = status_bytes("VmHWM");
    report.measured.wall = std::chrono::duration<double>(stop - start).count();
    report.measured.user = after.user - before.user;
    report.measured.sys = after.sys - before.sys;
    report.measured.peak_rss = peak > baseline ? peak - baseline : 0;
    if (w.memory_digest) report.written = w.memory_digest();
    report.ok = true;
  } catch (const std::exception& e) {
    std::snprintf(report.error, sizeof report.error, "%s", e.what());
  }
  return report;
}

// Whether the plan runs `w` there; `skipped` receives why an included row is not run.
bool included(const plan& p, const file_system& fs, std::uint64_t size, workload_kind kind,
              const writer& w, std::string& skipped) {
  if (!w.api(kind)) return false;
  if (p.includes && !p.includes(fs, size, kind, w)) return false;
  skipped.clear();
  if (is_not_applicable(w.api(kind)) || is_missing(w.api(kind))) {
    skipped = w.api(kind);
  } else if (const char* why = p.skips ? p.skips(fs, size, kind, w) : nullptr) {
    skipped = why;
  }
  return true;
}

// The memory a run of `kind` may take fresh, for the warm-up: the output's page cache, and on the
// parallel rows, beside it, the parts held in memory or the hand-made way's strings and their
// copies (its peak resident set is 1.7x the output).
std::uint64_t touched_bytes(std::uint64_t size, workload_kind kind) {
  return is_parallel(kind) ? 3 * size : size;
}

// Seconds of one run of a typical writer, from perf/results' medians: the warm-up touches the
// memory the run may take plus the slack, the writer writes at about this rate, and a seek that
// flushes (patch on stdio, iostreams, LLVM) costs ~2.4 us a record. The warm-up's rate and the
// fixed cost (fork, the first round's digest, unlink) make the headline's 400 runs come out at the
// 157-191 s two fresh machines took. log-lines counts lines of about 90 bytes, and half its rows
// write each line out (~0.15 GB/s).
double expected_run_seconds(std::uint64_t size, workload_kind kind, const writer& w) {
  const std::uint64_t written =
      kind == workload_kind::log_lines ? std::uint64_t{90} * log_line_count(size) : size;
  const double bytes = static_cast<double>(written);
  const double touched = static_cast<double>(touched_bytes(written, kind));
  double gbps = 0.5;
  switch (kind) {
    case workload_kind::blocks_4k:
      gbps = 1.5;
      break;
    case workload_kind::blocks_1m:
      gbps = 2.5;
      break;
    case workload_kind::patch:
      gbps = w.id == "stdio" || w.id == "ofstream" || w.id.rfind("llvm", 0) == 0 ? 0.05 : 1.0;
      break;
    case workload_kind::toc:
    case workload_kind::scatter:
      gbps = 0.8;
      break;
    case workload_kind::log_lines:
      gbps = 0.25;
      break;
    default:
      break;
  }
  const double warm_up_gbps = 0.5;
  return 0.07 + bytes / (gbps * 1e9) +
         (touched + static_cast<double>(warm_up_slack)) / (warm_up_gbps * 1e9);
}

}  // namespace

plan_cost cost_of(const plan& p, const std::vector<writer>& writers) {
  plan_cost cost;
  std::string skipped;
  for (const file_system& fs : p.file_systems) {
    for (std::uint64_t size : p.sizes) {
      for (workload_kind kind : p.kinds) {
        for (std::size_t index : p.writers) {
          const writer& w = writers[index];
          if (!included(p, fs, size, kind, w, skipped) || !skipped.empty()) continue;
          ++cost.rows;
          cost.runs += static_cast<std::size_t>(p.rounds);
          cost.seconds += p.rounds * expected_run_seconds(size, kind, w);
        }
      }
    }
  }
  return cost;
}

sample run_once(const writer& w, const workload& work, const std::string& path, digest* written) {
  warm_up(touched_bytes(work.bytes, work.kind));
  const auto report = run_in_child<child_report>(w.id, [&] { return measure(w, work, path); });
  if (!report.ok) throw std::runtime_error(report.error);
  if (written) *written = report.written;
  return report.measured;
}

std::vector<cell> run_plan(const plan& p, const std::vector<writer>& writers, const corpus& input,
                           const std::function<void(const std::string&)>& progress) {
  const plan_cost total = cost_of(p, writers);
  const auto started = std::chrono::steady_clock::now();
  plan_cost done;
  std::vector<cell> cells;
  std::string skipped;
  for (const file_system& fs : p.file_systems) {
    for (std::uint64_t size : p.sizes) {
      for (workload_kind kind : p.kinds) {
        const std::size_t first = cells.size();
        for (std::size_t index : p.writers) {
          const writer& w = writers[index];
          if (!included(p, fs, size, kind, w, skipped)) continue;
          cell c;
          c.file_system = fs.name;
          c.kind = kind;
          c.size = size;
          c.writer = index;
          c.skipped = skipped;
          cells.push_back(c);
        }
        const std::size_t count = cells.size() - first;
        if (count == 0) continue;
        const workload work = make_workload(kind, size, input);
        const digest expected = expected_digest(work);
        for (std::size_t k = 0; k < count; ++k) cells[first + k].bytes = work.bytes;
        for (int round = 0; round < p.rounds; ++round) {
          for (std::size_t k = 0; k < count; ++k) {
            // Forward in even rounds, backward in odd ones, from a start that moves: a writer
            // follows a different one from round to round, so that none always finds the page
            // cache and the freed memory that one writer leaves.
            const std::size_t step = round % 2 == 0 ? k : count - 1 - k;
            const auto start = static_cast<std::size_t>(round / 2);
            cell& c = cells[first + (step + start) % count];
            if (!c.skipped.empty()) continue;
            const writer& w = writers[c.writer];
            if (c.error.empty()) {
              const std::string path = fs.dir + "/" + w.id + "." + name_of(kind);
              try {
                digest written;
                c.samples.push_back(run_once(w, work, path, &written));
                if (round == 0) {
                  c.verified = (w.memory_digest ? written : file_digest(path)) ==
                               (w.reference ? w.reference(work) : expected);
                  if (!c.verified) c.error = "output differs from the expected bytes";
                }
              } catch (const std::exception& e) {
                c.error = e.what();
              }
              ::unlink(path.c_str());
            }
            done.seconds += expected_run_seconds(size, kind, w);
            if (round + 1 < p.rounds) continue;
            ++done.rows;
            const double elapsed =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            const double left =
                done.seconds > 0 ? elapsed * (total.seconds - done.seconds) / done.seconds : 0;
            std::vector<double> wall;
            for (const sample& s : c.samples) wall.push_back(s.wall);
            char result[96];
            if (c.error.empty()) {
              std::snprintf(result, sizeof result, "%.2f GB/s",
                            median(wall) > 0 ? work.bytes / median(wall) / 1e9 : 0.0);
            } else {
              std::snprintf(result, sizeof result, "FAILED");
            }
            char line[256];
            std::snprintf(line, sizeof line,
                          "[%zu/%zu] %s %llu MiB %s, %s: %s (%.0f s, about %.0f s left)", done.rows,
                          total.rows, fs.name.c_str(), static_cast<unsigned long long>(size >> 20),
                          name_of(kind), w.label.c_str(), result, elapsed, left);
            progress(line);
          }
        }
      }
    }
  }
  return cells;
}

}  // namespace perf
