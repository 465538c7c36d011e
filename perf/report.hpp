// Turning the samples into medians, and the medians into the table, the CSV and the chart data.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "runner.hpp"

namespace perf {

// The id of the writer every ratio is taken against: mapout::ostream through its static type.
constexpr const char* reference_writer = "mapout";

struct summary {
  const cell* measured = nullptr;
  const writer* by = nullptr;
  double wall = 0;  // median seconds
  double user = 0;
  double sys = 0;
  double gbps = 0;       // bytes / median wall, in 10^9 bytes per second
  double best_gbps = 0;  // bytes / fastest wall
  double rss_mib = 0;    // median peak resident memory above baseline
  double max_rss_mib = 0;
  // This writer's median wall over mapout::ostream's in the same group: how many times longer it
  // took (0 when there is no mapout row to compare with).
  double vs_mapout = 0;

  bool ok() const { return measured->error.empty() && !measured->samples.empty(); }
};

std::vector<summary> summarize(const std::vector<cell>& cells, const std::vector<writer>& writers);

// The row of the writer `writer_id` on that file system, size and workload, failed or not; null
// when the run has no such row.
const summary* find_row(const std::vector<summary>& rows, const std::string& fs, std::uint64_t size,
                        workload_kind kind, const std::string& writer_id);

// One matrix per file system and size: a row per writer, a column per workload, median GB/s and
// the ratio to mapout in each cell. What a person reads first.
void print_matrix(std::FILE* out, const std::vector<summary>& rows);
// One table per group with every figure: wall, user, sys, median and best GB/s, peak RSS, ratio.
void print_details(std::FILE* out, const std::vector<summary>& rows);
void write_csv(const std::string& path, const std::vector<summary>& rows);
// What perf/chart.gp needs besides the data: a title per panel ("disk, 256 MiB"), which columns
// are mapout's writers (1) and which its peers' (0), and one y range for every panel.
struct chart_layout {
  std::vector<std::string> titles;  // empty when there is nothing to draw
  std::string marks;                // "0 0 1 1", one per writer column, the ceiling's last
  std::size_t workloads = 0;        // rows per panel
  double low = 0;                   // the y range, a power of two each
  double high = 0;
};

// Throughput relative to mapout::ostream (its median GB/s over mapout's, in the same group) per
// workload (rows) and writer (columns, the memory ceiling last), one gnuplot data block per file
// system, at the size with the most rows; log-lines is left to the tables.
chart_layout write_chart_data(const std::string& path, const std::vector<summary>& rows);

}  // namespace perf
