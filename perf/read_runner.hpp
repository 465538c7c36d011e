// Running readers: each timed run in a fresh child after perf::warm_up, rotating rounds over a
// group of contenders, medians and best runs.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace perf {

// What a contender marks inside its child: start() and stop() bound the timed region, lap() splits
// it in two (a load, then the first use of what was loaded).
class stopwatch {
 public:
  void start();
  void lap();
  void stop();

  double wall = 0;   // start to stop, seconds
  double first = 0;  // start to lap, or to stop when there was no lap
  double user = 0;   // CPU seconds from start to stop
  double sys = 0;
  long faults = 0;  // page faults from start to stop, minor and major

 private:
  double started_ = 0;
  long faults_started_ = 0;
  double user_started_ = 0;
  double sys_started_ = 0;
  bool lapped_ = false;
};

// One way of doing a group's job. run() does it with the stopwatch around the part to time and
// returns a value every contender of the group must agree on (a line count, a checksum).
struct contender {
  std::string name;
  std::function<std::uint64_t(stopwatch&)> run;
};

struct group_result {
  std::vector<std::vector<stopwatch>> samples;  // per contender, one per round
  std::vector<std::uint64_t> checks;            // per contender, from its first run
};

// `rounds` rounds over the contenders, each round starting one contender later; every run in a
// fresh child after warming up `warm_bytes` of memory. Throws std::runtime_error when a child
// fails.
group_result run_group(const std::vector<contender>& contenders, int rounds,
                       std::uint64_t warm_bytes);

}  // namespace perf
