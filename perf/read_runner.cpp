// The reader runs: a fresh child per run, its stopwatch sent back through a pipe.
#include "read_runner.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <stdexcept>

#include "child_run.hpp"
#include "stats.hpp"

namespace perf {
namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double seconds(const timeval& t) {
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
}

void cpu_times(double& user, double& sys, long& faults) {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  user = seconds(usage.ru_utime);
  sys = seconds(usage.ru_stime);
  faults = usage.ru_minflt + usage.ru_majflt;
}

struct child_report {
  bool ok = false;
  stopwatch measured;
  std::uint64_t check = 0;
  char error[512] = {};
};

child_report measure(const contender& c) {
  child_report report;
  try {
    report.check = c.run(report.measured);
    report.ok = true;
  } catch (const std::exception& e) {
    std::snprintf(report.error, sizeof report.error, "%s: %s", c.name.c_str(), e.what());
  }
  return report;
}

child_report run_once(const contender& c, std::uint64_t warm_bytes) {
  warm_up(warm_bytes);
  const auto report = run_in_child<child_report>(c.name, [&] { return measure(c); });
  if (!report.ok) throw std::runtime_error(report.error);
  return report;
}

}  // namespace

void stopwatch::start() {
  cpu_times(user_started_, sys_started_, faults_started_);
  started_ = now();
}

void stopwatch::lap() {
  first = now() - started_;
  lapped_ = true;
}

void stopwatch::stop() {
  wall = now() - started_;
  if (!lapped_) first = wall;
  double user_now = 0;
  double sys_now = 0;
  long faults_now = 0;
  cpu_times(user_now, sys_now, faults_now);
  user = user_now - user_started_;
  sys = sys_now - sys_started_;
  faults = faults_now - faults_started_;
}

group_result run_group(const std::vector<contender>& contenders, int rounds,
                       std::uint64_t warm_bytes) {
  group_result result;
  result.samples.resize(contenders.size());
  result.checks.resize(contenders.size());
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t k = 0; k < contenders.size(); ++k) {
      const std::size_t index = (k + static_cast<std::size_t>(round)) % contenders.size();
      const child_report report = run_once(contenders[index], warm_bytes);
      result.samples[index].push_back(report.measured);
      if (round == 0) result.checks[index] = report.check;
    }
  }
  return result;
}

}  // namespace perf
