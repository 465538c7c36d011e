// Parsing compare's flags into a plan, with the headline, quick and full presets.
#include "options.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "command_line.hpp"

namespace perf {
namespace {

constexpr std::uint64_t mib = std::uint64_t{1} << 20;

void usage(const char* program, int status) {
  std::fprintf(
      status ? stderr : stdout,
      "usage: %s [--headline | --quick] [--fs disk,tmpfs] [--sizes 16M,256M,1G]\n"
      "          [--workloads bytes,tokens,lines,blocks-4k,blocks-1m,patch,toc,scatter,\n"
      "                       random-16,random-64,numbers,doubles,table,printf-row,\n"
      "                       boost-archive,parallel-csv,parallel-tokens,log-lines]\n"
      "          [--writers id,...] [--rounds N] [--out DIR] [--disk-dir DIR]\n"
      "          [--tmpfs-dir DIR] [--include DIR] [--text-cap BYTES] [--every-row]\n"
      "          [--list]\n"
      "Default (full): disk and tmpfs, 16M 256M 1G, every workload and writer, 5 rounds.\n"
      "At 1 GiB only the rows the targets compare run, and the rows that would take\n"
      "minutes per run on patch are skipped (the table says which), unless\n"
      "--every-row (or --writers for the former).\n"
      "--headline: 64M, the peers a reader compares first, the streaming workloads\n"
      "and log-lines' rows (~4 minutes); the seeking ones (patch, toc, scatter) by\n"
      "--workloads or the full run.\n"
      "log-lines counts lines: 1,000,000 at every size below 1G (run once, at the largest\n"
      "of them), 10,000,000 from 1G up.\n"
      "--quick: 16M and 256M, the writers marked quick (no fputs, no extra modes), the\n"
      "streaming workloads.\n"
      "Results go to DIR (default: the directory of this program): summary.txt,\n"
      "details.txt, results.csv, chart.dat and throughput.svg.\n",
      program);
  std::exit(status);
}

// A name a list option does not know is a mistake, not a row left out in silence.
[[noreturn]] void unknown_name(const char* option, const std::string& name,
                               const std::vector<std::string>& known) {
  std::string list;
  for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
  std::fprintf(stderr, "compare: %s: unknown '%s'; known: %s\n", option, name.c_str(),
               list.c_str());
  std::exit(2);
}

std::uint64_t parse_size(const std::string& text) {
  char* end = nullptr;
  std::uint64_t value = std::strtoull(text.c_str(), &end, 10);
  if (end == text.c_str() || value == 0 ||
      (*end && std::string("GMK").find(*end) == std::string::npos) || (*end && end[1])) {
    std::fprintf(stderr, "compare: '%s' is no size: a number, then G, M or K (256M)\n",
                 text.c_str());
    std::exit(2);
  }
  switch (*end) {
    case 'G':
      value <<= 30;
      break;
    case 'M':
      value <<= 20;
      break;
    case 'K':
      value <<= 10;
      break;
    default:
      break;
  }
  return value;
}

constexpr std::uint64_t gib = std::uint64_t{1} << 30;

// --headline: the standard peers, the hand-written buffer, mapout both ways and the ceiling, at one
// size that keeps their rows, both file systems, near three minutes on two cores; then every row of
// the log, at 1,000,000 lines (about a minute more).
const std::vector<std::string> headline_writers = {
    "ceiling", "stdio", "ofstream", "fmt", "llvm", "write64k", "mapout", "mapout-mapped"};
constexpr std::uint64_t headline_size = 64 * mib;

// At 1 GiB a round of every writer and workload takes about four minutes per file system here,
// so the full run keeps the rows the targets compare there: the named peers on tokens, the
// byte and line peers, every peer on blocks (the best one counts), and on tmpfs the strategies.
bool compared_at_1gib(const file_system& fs, workload_kind kind, const std::string& id) {
  static const std::vector<std::string> tokens = {
      "ceiling",       "stdio",           "ofstream",       "fmt", "llvm", "write64k", "mapout",
      "mapout-mapped", "mapout-buffered", "mapout-ostream&"};
  static const std::vector<std::string> bytes = {"ceiling", "stdio", "write64k", "mapout",
                                                 "mapout-streambuf"};
  static const std::vector<std::string> lines = {"ceiling", "ofstream", "write64k", "mapout"};
  static const std::vector<std::string> blocks = {
      "ceiling",  "stdio",    "ofstream", "fmt",           "llvm",
      "boost-fd", "write64k", "mapout",   "mapout-mapped", "mapout-buffered"};
  static const std::vector<std::string> tmpfs = {"ceiling", "stdio", "write64k"};
  // automatic against the strategies it chooses from, on every workload and file system.
  static const std::vector<std::string> strategies = {"mapout", "mapout-mapped", "mapout-buffered"};
  auto among = [&](const std::vector<std::string>& ids) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
  };
  // Every seeking row: the slowest are skipped with a note (skipped_at_1gib).
  if (is_seeking(kind) || among(strategies)) return true;
  // The numbers, table and parallel workloads have only the rows their targets compare, on both
  // file systems.
  if (is_formatting(kind) || is_parallel(kind)) return true;
  if (fs.name != "disk") {
    return (kind == workload_kind::tokens || kind == workload_kind::blocks_1m) && among(tmpfs);
  }
  switch (kind) {
    case workload_kind::tokens:
      return among(tokens);
    case workload_kind::bytes:
      return among(bytes);
    case workload_kind::lines:
      return among(lines);
    default:
      return among(blocks);
  }
}

// Rows that would take minutes per run at 1 GiB (~9.7 M records, 262,144 blocks), each with its
// reason; 16 and 256 MiB show them.
const char* skipped_at_1gib(std::uint64_t size, workload_kind kind, const std::string& id) {
  // Every seek flushes the buffer and calls lseek: ~2.4 us per patched record here.
  static const std::vector<std::string> flushing = {"stdio", "ofstream", "llvm", "llvm-pwrite"};
  auto among = [&](const std::vector<std::string>& ids) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
  };
  if (size < gib) return nullptr;
  if (kind == workload_kind::patch && among(flushing)) {
    return "not run on patch at 1 GiB: every seek flushes and lseeks (~25 s per run, minutes per "
           "row); see 16 and 256 MiB, or pass --every-row";
  }
  return nullptr;
}

}  // namespace

settings parse_settings(int argc, char** argv, const std::vector<writer>& writers) {
  settings s;
  bool quick = false;
  bool headline = false;
  bool every_row = false;
  std::vector<std::string> fs_names = {"disk", "tmpfs"};
  std::vector<std::string> writer_ids;
  std::vector<std::uint64_t> sizes;
  std::vector<workload_kind> kinds;
  std::string disk_dir, tmpfs_dir = "/dev/shm";
  s.out_dir = program_dir();
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(argv[0], 2);
      return argv[++i];
    };
    if (flag == "--help" || flag == "-h")
      usage(argv[0], 0);
    else if (flag == "--quick")
      quick = true;
    else if (flag == "--headline")
      headline = true;
    else if (flag == "--list")
      s.list_writers = true;
    else if (flag == "--every-row")
      every_row = true;
    else if (flag == "--fs")
      fs_names = split(value());
    else if (flag == "--writers")
      writer_ids = split(value());
    else if (flag == "--rounds")
      s.what.rounds = std::atoi(value().c_str());
    else if (flag == "--out")
      s.out_dir = value();
    else if (flag == "--disk-dir")
      disk_dir = value();
    else if (flag == "--tmpfs-dir")
      tmpfs_dir = value();
    else if (flag == "--include")
      s.include_dir = value();
    else if (flag == "--text-cap")
      s.text_cap = parse_size(value());
    else if (flag == "--sizes") {
      for (const std::string& size : split(value())) sizes.push_back(parse_size(size));
    } else if (flag == "--workloads") {
      kinds.clear();
      for (const std::string& name : split(value())) {
        workload_kind kind;
        if (!parse_workload_kind(name, kind)) {
          std::vector<std::string> known;
          for (workload_kind k : all_workload_kinds) known.push_back(name_of(k));
          unknown_name("--workloads", name, known);
        }
        kinds.push_back(kind);
      }
    } else {
      usage(argv[0], 2);
    }
  }
  if (quick && headline) usage(argv[0], 2);
  // A seek that flushes makes patch run minutes per writer: only the full run has it by default.
  if (kinds.empty() && (quick || headline)) {
    kinds.assign(std::begin(streaming_workload_kinds), std::end(streaming_workload_kinds));
    if (headline) kinds.push_back(workload_kind::log_lines);
  } else if (kinds.empty()) {
    kinds.assign(std::begin(all_workload_kinds), std::end(all_workload_kinds));
  }
  if (headline && writer_ids.empty()) {
    writer_ids = headline_writers;
    // Every row of the log: each writer with a log-lines call, or missing from this build.
    for (const writer& w : writers) {
      const bool listed = std::find(writer_ids.begin(), writer_ids.end(), w.id) != writer_ids.end();
      if (w.api(workload_kind::log_lines) && !listed) writer_ids.push_back(w.id);
    }
  }
  if (sizes.empty()) {
    sizes = headline ? std::vector<std::uint64_t>{headline_size}
            : quick  ? std::vector<std::uint64_t>{16 * mib, 256 * mib}
                     : std::vector<std::uint64_t>{16 * mib, 256 * mib, 1024 * mib};
  }
  if (s.what.rounds < 1) usage(argv[0], 2);
  if (disk_dir.empty()) disk_dir = s.out_dir + "/files";
  for (const std::string& name : fs_names) {
    if (name == "disk")
      s.what.file_systems.push_back({name, disk_dir});
    else if (name == "tmpfs")
      s.what.file_systems.push_back(
          {name, tmpfs_dir + "/mapout-perf-" + std::to_string(::getpid())});
    else
      unknown_name("--fs", name, {"disk", "tmpfs"});
  }
  for (const std::string& id : writer_ids) {
    const auto named = [&](const writer& w) { return w.id == id; };
    if (std::none_of(writers.begin(), writers.end(), named)) {
      std::vector<std::string> known;
      for (const writer& w : writers) known.push_back(w.id);
      unknown_name("--writers", id, known);
    }
  }
  for (std::size_t i = 0; i < writers.size(); ++i) {
    const bool chosen = writer_ids.empty() ? !quick || writers[i].quick
                                           : std::find(writer_ids.begin(), writer_ids.end(),
                                                       writers[i].id) != writer_ids.end();
    if (chosen) s.what.writers.push_back(i);
  }
  if (!every_row && writer_ids.empty()) {
    // log-lines writes the same lines at every size below 1 GiB: once, at the largest of them.
    std::uint64_t log_lines_size = 0;
    for (std::uint64_t size : sizes) {
      if (size < gib) log_lines_size = std::max(log_lines_size, size);
    }
    s.what.includes = [log_lines_size](const file_system& fs, std::uint64_t size,
                                       workload_kind kind, const writer& w) {
      if (kind == workload_kind::log_lines && size < gib) return size == log_lines_size;
      return size < gib || compared_at_1gib(fs, kind, w.id);
    };
  }
  if (!every_row) {
    s.what.skips = [](const file_system&, std::uint64_t size, workload_kind kind, const writer& w) {
      return skipped_at_1gib(size, kind, w.id);
    };
  }
  s.what.sizes = sizes;
  s.what.kinds = kinds;
  return s;
}

}  // namespace perf
