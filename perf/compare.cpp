// perf/compare: mapout against stdio, iostreams, fmt, LLVM, Boost and a hand-written write(2)
// buffer, every writer in a fresh child, in rotating rounds; prints the matrix and the targets and
// leaves summary.txt, details.txt, results.csv and throughput.svg in the output directory.
#include <unistd.h>

#include <thread>
#ifndef _WIN32
#include <sys/utsname.h>
#include <sys/wait.h>
#endif

#include <chrono>
#include <cstdio>
#include <ctime>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>

#include "options.hpp"
#include "report.hpp"
#include "targets.hpp"

namespace {

std::string first_line_with(const char* path, const std::string& prefix) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "?";
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

// The machine and the moment, for the table's reader: CPU noise is the largest error here.
void print_machine(std::FILE* out) {
#ifdef _WIN32
  // Under Wine the kernel and the CPU are Linux's: /proc/cpuinfo reads through Z: as elsewhere.
  struct {
    const char* sysname = "Windows (Wine)";
    const char* release = "x86-64";
  } name;
  const long cpus = static_cast<long>(std::thread::hardware_concurrency());
#else
  utsname name{};
  ::uname(&name);
  const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
#endif
  const std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::fprintf(out, "%s; %s %s; %s; %ld CPUs; load average %s\n", date, name.sysname, name.release,
               first_line_with("/proc/cpuinfo", "model name").c_str(), cpus,
               load_average().c_str());
}

// Draws throughput.svg with gnuplot (when this build found it) from chart.dat; true if it did.
bool draw_chart(const std::string& data, const std::string& svg, const perf::chart_layout& layout) {
#ifdef PERF_GNUPLOT
  std::string settings =
      "data='" + data + "'; output='" + svg + "'; panels=" + std::to_string(layout.titles.size()) +
      "; marks='" + layout.marks + "'; low=" + std::to_string(layout.low) +
      "; high=" + std::to_string(layout.high) + "; workloads=" + std::to_string(layout.workloads);
  for (std::size_t i = 0; i < layout.titles.size(); ++i) {
    settings += "; title_" + std::to_string(i + 1) + "='" + layout.titles[i] + "'";
  }
  const pid_t child = ::fork();
  if (child == 0) {
    ::execl(PERF_GNUPLOT, PERF_GNUPLOT, "-e", settings.c_str(), PERF_CHART_SCRIPT, nullptr);
    ::_exit(127);
  }
  int status = 0;
  if (child > 0) ::waitpid(child, &status, 0);
  if (child < 0 || status != 0) {
    std::fprintf(stderr, "gnuplot failed: no %s\n", svg.c_str());
    return false;
  }
  return true;
#else
  (void)layout;
  std::fprintf(stderr, "gnuplot was not found at configure time: no %s (data in %s)\n", svg.c_str(),
               data.c_str());
  return false;
#endif
}

void tee(const std::string& path, void (*print)(std::FILE*, const std::vector<perf::summary>&),
         const std::vector<perf::summary>& rows, bool to_stdout) {
  if (to_stdout) print(stdout, rows);
  if (std::FILE* file = std::fopen(path.c_str(), "a")) {
    print(file, rows);
    std::fclose(file);
  }
}

}  // namespace

int main(int argc, char** argv) try {
  const std::vector<perf::writer> writers = perf::all_writers();
  const perf::settings s = perf::parse_settings(argc, argv, writers);
  if (s.list_writers) {
    for (const perf::writer& w : writers) {
      std::printf("%-18s %-28s%s\n", w.id.c_str(), w.label.c_str(), w.quick ? " (quick)" : "");
    }
    return 0;
  }
  std::filesystem::create_directories(s.out_dir);
  for (const perf::file_system& fs : s.what.file_systems)
    std::filesystem::create_directories(fs.dir);

  const auto started = std::chrono::steady_clock::now();
  const perf::plan_cost cost = perf::cost_of(s.what, writers);
  std::fprintf(stderr,
               "%zu rows, %zu runs: about %.0f min here (%.0f s; the lines below count them)\n",
               cost.rows, cost.runs, cost.seconds / 60, cost.seconds);
  print_machine(stdout);
  std::fprintf(stderr, "reading headers under %s...\n", s.include_dir.c_str());
  const perf::corpus input = perf::make_corpus(s.include_dir, s.text_cap);
  std::fprintf(stderr, "%zu tokens in %zu bytes of headers\n", input.tokens.size(),
               input.token_text.size() - input.tokens.size());
  const std::vector<perf::cell> cells =
      perf::run_plan(s.what, writers, input,
                     [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); });
  for (const perf::file_system& fs : s.what.file_systems) {
    std::error_code ignored;
    std::filesystem::remove(fs.dir, ignored);
  }
  const std::vector<perf::summary> rows = perf::summarize(cells, writers);

  const std::string summary_path = s.out_dir + "/summary.txt";
  if (std::FILE* file = std::fopen(summary_path.c_str(), "w")) {
    print_machine(file);
    std::fclose(file);
  }
  tee(summary_path, perf::print_matrix, rows, true);
  std::FILE* details = std::fopen((s.out_dir + "/details.txt").c_str(), "w");
  if (details) {
    print_machine(details);
    perf::print_details(details, rows);
    std::fclose(details);
  }
  tee(
      summary_path,
      [](std::FILE* out, const std::vector<perf::summary>& r) { perf::print_targets(out, r); },
      rows, true);
  perf::write_csv(s.out_dir + "/results.csv", rows);
  const perf::chart_layout layout = perf::write_chart_data(s.out_dir + "/chart.dat", rows);
  const bool drawn = !layout.titles.empty() &&
                     draw_chart(s.out_dir + "/chart.dat", s.out_dir + "/throughput.svg", layout);
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf(
      "\n%.0f s; load average now %s. Every figure per run: %s/details.txt, %s/results.csv\n", took,
      load_average().c_str(), s.out_dir.c_str(), s.out_dir.c_str());
  if (drawn) std::printf("Chart: %s/throughput.svg\n", s.out_dir.c_str());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "compare: %s\n", e.what());
  return 1;
}
