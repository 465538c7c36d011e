// Medians and their presentation: the matrix on the terminal, the detailed tables, CSV, chart data.
#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <stdexcept>
#include <tuple>

#include "stats.hpp"

namespace perf {
namespace {

template <class Field>
std::vector<double> field_of(const cell& c, Field field) {
  std::vector<double> values;
  for (const sample& s : c.samples) values.push_back(field(s));
  return values;
}

constexpr double mib = 1 << 20;

using group_key = std::tuple<std::string, std::uint64_t, workload_kind>;
group_key group_of(const summary& row) {
  return {row.measured->file_system, row.measured->size, row.measured->kind};
}

std::string size_name(std::uint64_t size) {
  return size >= (std::uint64_t{1} << 30) && size % (std::uint64_t{1} << 30) == 0
             ? std::to_string(size >> 30) + " GiB"
             : std::to_string(size >> 20) + " MiB";
}

// The file systems, sizes and workloads present, in the order they were run.
template <class Key, class Get>
std::vector<Key> distinct(const std::vector<summary>& rows, Get get) {
  std::vector<Key> keys;
  for (const summary& row : rows) {
    const Key key = get(row);
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
  return keys;
}

std::vector<const writer*> writers_in(const std::vector<summary>& rows) {
  std::vector<const writer*> list =
      distinct<const writer*>(rows, [](const summary& r) { return r.by; });
  // The writers are elements of one vector: address order is table order.
  std::sort(list.begin(), list.end(), [](const writer* a, const writer* b) { return a < b; });
  return list;
}

}  // namespace

const summary* find_row(const std::vector<summary>& rows, const std::string& fs, std::uint64_t size,
                        workload_kind kind, const std::string& writer_id) {
  for (const summary& row : rows) {
    if (row.by->id == writer_id && row.measured->kind == kind && row.measured->size == size &&
        row.measured->file_system == fs) {
      return &row;
    }
  }
  return nullptr;
}

std::vector<summary> summarize(const std::vector<cell>& cells, const std::vector<writer>& writers) {
  std::vector<summary> rows;
  for (const cell& c : cells) {
    summary row;
    row.measured = &c;
    row.by = &writers[c.writer];
    const std::vector<double> wall = field_of(c, [](const sample& s) { return s.wall; });
    row.wall = median(wall);
    row.user = median(field_of(c, [](const sample& s) { return s.user; }));
    row.sys = median(field_of(c, [](const sample& s) { return s.sys; }));
    const double bytes = static_cast<double>(c.bytes);
    row.gbps = row.wall > 0 ? bytes / row.wall / 1e9 : 0;
    const double fastest = best(wall);
    row.best_gbps = fastest > 0 ? bytes / fastest / 1e9 : 0;
    const std::vector<double> rss = field_of(c, [](const sample& s) { return s.peak_rss / mib; });
    row.rss_mib = median(rss);
    row.max_rss_mib = rss.empty() ? 0 : *std::max_element(rss.begin(), rss.end());
    rows.push_back(row);
  }
  std::map<group_key, double> mapout_wall;
  for (const summary& row : rows) {
    if (row.by->id == reference_writer && row.ok()) mapout_wall[group_of(row)] = row.wall;
  }
  for (summary& row : rows) {
    const auto found = mapout_wall.find(group_of(row));
    if (found != mapout_wall.end() && found->second > 0 && row.ok()) {
      row.vs_mapout = row.wall / found->second;
    }
  }
  return rows;
}

void print_matrix(std::FILE* out, const std::vector<summary>& rows) {
  const auto file_systems =
      distinct<std::string>(rows, [](const summary& r) { return r.measured->file_system; });
  const auto sizes =
      distinct<std::uint64_t>(rows, [](const summary& r) { return r.measured->size; });
  const auto kinds =
      distinct<workload_kind>(rows, [](const summary& r) { return r.measured->kind; });
  const auto writers = writers_in(rows);
  for (const std::string& fs : file_systems) {
    for (std::uint64_t size : sizes) {
      std::fprintf(out, "\n%s, %s: median GB/s (x = mapout::ostream is that many times faster)\n",
                   fs.c_str(), size_name(size).c_str());
      std::fprintf(out, "%-26s", "");
      for (workload_kind kind : kinds) std::fprintf(out, " %14s", name_of(kind));
      std::fprintf(out, " %8s\n", "RSS MiB");
      std::vector<std::string> reasons;  // why rows were skipped or missing, each once
      for (const writer* by : writers) {
        std::string line;
        char text[64];
        double rss = -1;
        bool shown = false;
        for (workload_kind kind : kinds) {
          const summary* row = find_row(rows, fs, size, kind, by->id);
          shown = shown || row;
          const std::string skipped = row ? row->measured->skipped : std::string();
          if (!row) {
            std::snprintf(text, sizeof text, " %14s", "");
          } else if (skipped.rfind("n/a", 0) == 0) {
            std::snprintf(text, sizeof text, " %14s", "n/a");
          } else if (!skipped.empty()) {
            const bool missing = is_missing(skipped.c_str());
            std::snprintf(text, sizeof text, " %14s", missing ? "missing" : "skipped");
            const std::string reason = missing ? skipped : "skipped: " + skipped;
            if (std::find(reasons.begin(), reasons.end(), reason) == reasons.end()) {
              reasons.push_back(reason);
            }
          } else if (!row->ok()) {
            std::snprintf(text, sizeof text, " %14s", "FAILED");
          } else if (by->id == reference_writer || row->vs_mapout == 0) {
            std::snprintf(text, sizeof text, " %7.2f%7s", row->gbps, "");
          } else {
            std::snprintf(text, sizeof text, " %7.2f x%4.2f ", row->gbps, row->vs_mapout);
          }
          // toc holds its header, 8 bytes per record, in the writer's memory, and random maps the
          // file's pages: either would hide what the writer itself keeps (details.txt has it).
          if (row && row->ok() && kind != workload_kind::toc && !is_random(kind)) {
            rss = std::max(rss, row->max_rss_mib);
          }
          line += text;
        }
        if (!shown) continue;
        if (rss < 0) {
          std::fprintf(out, "%-26.26s%s %8s\n", by->label.c_str(), line.c_str(), "-");
        } else {
          std::fprintf(out, "%-26.26s%s %8.1f\n", by->label.c_str(), line.c_str(), rss);
        }
      }
      for (const std::string& reason : reasons) std::fprintf(out, "%s\n", reason.c_str());
    }
  }
}

void print_details(std::FILE* out, const std::vector<summary>& rows) {
  std::string current;
  for (const summary& row : rows) {
    const cell& c = *row.measured;
    const std::string group = c.file_system + ", " + size_name(c.size) + ", " + name_of(c.kind);
    if (group != current) {
      current = group;
      std::fprintf(out, "\n%s (%llu bytes, %zu runs each)\n", group.c_str(),
                   static_cast<unsigned long long>(c.bytes), c.samples.size());
      std::fprintf(out, "%-26s %-16s %9s %9s %9s %7s %7s %8s %9s\n", "writer", "call", "wall ms",
                   "user ms", "sys ms", "GB/s", "best", "RSS MiB", "x mapout");
    }
    if (!c.skipped.empty()) {
      std::fprintf(out, "%-26.26s %-16.16s %s\n", row.by->label.c_str(), "", c.skipped.c_str());
      continue;
    }
    if (!row.ok()) {
      std::fprintf(out, "%-26.26s %-16.16s FAILED: %s\n", row.by->label.c_str(),
                   row.by->api(c.kind), c.error.c_str());
      continue;
    }
    std::fprintf(out, "%-26.26s %-16.16s %9.1f %9.1f %9.1f %7.2f %7.2f %8.1f %9.2f\n",
                 row.by->label.c_str(), row.by->api(c.kind), row.wall * 1e3, row.user * 1e3,
                 row.sys * 1e3, row.gbps, row.best_gbps, row.rss_mib, row.vs_mapout);
  }
}

void write_csv(const std::string& path, const std::vector<summary>& rows) {
  std::FILE* out = std::fopen(path.c_str(), "w");
  if (!out) throw_errno("fopen", path);
  std::fprintf(out,
               "fs,size_mib,workload,writer,label,call,runs,bytes,wall_median_s,user_median_s,"
               "sys_median_s,gbps_median,gbps_best,peak_rss_mib_median,peak_rss_mib_max,"
               "wall_vs_mapout,verified,error\n");
  for (const summary& row : rows) {
    const cell& c = *row.measured;
    std::fprintf(
        out,
        "%s,%llu,%s,%s,\"%s\",\"%s\",%zu,%llu,%.6f,%.6f,%.6f,%.4f,%.4f,%.2f,%.2f,%.4f,%d,\"%s\"\n",
        c.file_system.c_str(), static_cast<unsigned long long>(c.size >> 20), name_of(c.kind),
        row.by->id.c_str(), row.by->label.c_str(), row.by->api(c.kind), c.samples.size(),
        static_cast<unsigned long long>(c.bytes), row.wall, row.user, row.sys, row.gbps,
        row.best_gbps, row.rss_mib, row.max_rss_mib, row.vs_mapout, c.verified ? 1 : 0,
        c.skipped.empty() ? c.error.c_str() : c.skipped.c_str());
  }
  if (std::fclose(out) != 0) throw_errno("fclose", path);
}

chart_layout write_chart_data(const std::string& path, const std::vector<summary>& measured) {
  // Not log-lines: its rows that flush every line run 5-10x below mapout::ostream and would set
  // the scale, and its own writers would add a column to every workload's cluster.
  std::vector<summary> rows;
  std::copy_if(measured.begin(), measured.end(), std::back_inserter(rows),
               [](const summary& r) { return r.measured->kind != workload_kind::log_lines; });
  const auto file_systems =
      distinct<std::string>(rows, [](const summary& r) { return r.measured->file_system; });
  const auto kinds =
      distinct<workload_kind>(rows, [](const summary& r) { return r.measured->kind; });
  // The ceiling is drawn as a line over each workload, not as a bar: it would set the scale.
  std::vector<const writer*> writers;
  const writer* ceiling = nullptr;
  for (const writer* by : writers_in(rows)) {
    if (by->id == "ceiling") {
      ceiling = by;
    } else {
      writers.push_back(by);
    }
  }
  if (ceiling) writers.push_back(ceiling);
  // The size with the most rows (the largest among equals): at 1 GiB the full run keeps only the
  // rows the targets compare, and a chart of those would hide most writers.
  std::uint64_t chosen = 0;
  std::size_t most = 0;
  for (std::uint64_t size :
       distinct<std::uint64_t>(rows, [](const summary& r) { return r.measured->size; })) {
    const auto count =
        static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [&](const summary& r) {
          return r.measured->size == size && r.ok();
        }));
    if (count > most || (count == most && size > chosen)) {
      most = count;
      chosen = size;
    }
  }
  chart_layout layout;
  if (chosen == 0 || writers.empty()) return layout;
  layout.workloads = kinds.size();
  for (const writer* by : writers) {
    const bool mapouts =
        by->label.rfind("mapout", 0) == 0 || by->label.find("mapout::") != std::string::npos;
    layout.marks += std::string(layout.marks.empty() ? "" : " ") + (mapouts ? "1" : "0");
  }
  double low = 1, high = 1;
  std::FILE* out = std::fopen(path.c_str(), "w");
  if (!out) throw_errno("fopen", path);
  for (const std::string& fs : file_systems) {
    layout.titles.push_back(fs + ", " + size_name(chosen));
    std::fprintf(out, "\"%s\"", layout.titles.back().c_str());
    for (const writer* by : writers) std::fprintf(out, " \"%s\"", by->label.c_str());
    std::fprintf(out, "\n");
    for (workload_kind kind : kinds) {
      std::string line = std::string("\"") + name_of(kind) + "\"";
      for (const writer* by : writers) {
        const summary* row = find_row(rows, fs, chosen, kind, by->id);
        if (row && row->ok() && row->vs_mapout > 0) {
          const double relative = 1 / row->vs_mapout;
          low = std::min(low, relative);
          high = std::max(high, relative);
          line += " " + std::to_string(relative);
        } else {
          line += " -";
        }
      }
      std::fprintf(out, "%s\n", line.c_str());
    }
    std::fprintf(out, "\n\n");
  }
  if (std::fclose(out) != 0) throw_errno("fclose", path);
  layout.low = std::exp2(std::floor(std::log2(low)));
  layout.high = std::exp2(std::ceil(std::log2(high)));
  return layout;
}

}  // namespace perf
