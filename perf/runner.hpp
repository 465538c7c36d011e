// Running writers: one timed run in a fresh child process, and the round-robin over a plan.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "writers.hpp"

namespace perf {

// One timed run: open to close, inclusive (for mapout the final ftruncate and munmap too).
struct sample {
  double wall = 0;  // seconds
  double user = 0;
  double sys = 0;
  // Peak resident memory above the child's baseline before opening, in bytes (VmHWM - VmRSS).
  std::uint64_t peak_rss = 0;
};

// Runs `w` on `work` into `path` in a fresh child, after perf::warm_up for the output's size.
// Leaves the file in place. Throws std::runtime_error with the child's message on failure.
// When `written` is given, it receives the digest of a memory writer's output.
sample run_once(const writer& w, const workload& work, const std::string& path,
                digest* written = nullptr);

struct file_system {
  std::string name;  // "disk", "tmpfs"
  std::string dir;   // where the files go
};

struct plan {
  std::vector<file_system> file_systems;
  std::vector<workload_kind> kinds;
  std::vector<std::uint64_t> sizes;
  std::vector<std::size_t> writers;  // indexes into the writer list
  int rounds = 5;
  // Whether a writer runs on a file system, size and workload; every one when empty.
  std::function<bool(const file_system&, std::uint64_t size, workload_kind, const writer&)>
      includes;
  // Why an included writer is left out there (a row the table marks skipped), or nullptr to run
  // it; none is left out when empty.
  std::function<const char*(const file_system&, std::uint64_t size, workload_kind, const writer&)>
      skips;
};

// Every sample of one writer on one workload, size and file system.
struct cell {
  std::string file_system;
  workload_kind kind = workload_kind::bytes;
  std::uint64_t size = 0;
  std::uint64_t bytes = 0;
  std::size_t writer = 0;
  std::vector<sample> samples;
  bool verified = false;  // the first run's output matched the expected digest
  std::string error;      // why the writer failed; its samples are then incomplete
  // Why the writer was not run: "n/a: ..." when it cannot run the workload, "missing: ..." when
  // this build lacks it, or the plan's reason.
  std::string skipped;
};

// How long a plan should take here: the runs it makes, and seconds from rates measured on a
// 2-vCPU VM (an estimate to print first, within a factor of two on a quiet machine).
struct plan_cost {
  std::size_t rows = 0;  // writers measured, over every file system, size and workload
  std::size_t runs = 0;
  double seconds = 0;
};
plan_cost cost_of(const plan& p, const std::vector<writer>& writers);

// For each file system, size and workload: `rounds` rounds over the writers that support the
// workload, each round starting one writer later, every output of the first round checked against
// the expected digest, every file deleted after its run. `progress` hears one line per row, when
// its last run is done: its median, how many rows are done and about how long the rest takes.
std::vector<cell> run_plan(const plan& p, const std::vector<writer>& writers, const corpus& input,
                           const std::function<void(const std::string&)>& progress);

}  // namespace perf
