// The writers compared: each one's natural way of putting a workload into a file.
#pragma once

#include <array>
#include <initializer_list>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "digest.hpp"
#include "mapout/detail/copy_short.hpp"
#include "workloads.hpp"

namespace perf {

struct writer {
  // Stable name: the CSV key and what --writers selects.
  std::string id;
  // What the table shows.
  std::string label;
  // The call each workload is written with ("putc_unlocked", "<<"), or nullptr when the writer
  // has nothing to add to that workload; "n/a: <why>" when it cannot run it, "missing: <why>"
  // when this build lacks what it needs (the table says so).
  std::array<const char*, workload_kind_count> apis{};
  // Whether --quick keeps it.
  bool quick = true;
  // Untimed setup in the child before the baseline is taken (the ceiling's prefaulted buffer).
  void (*prepare)(const workload&) = nullptr;
  // Writes the workload to `path`, everything up to and including the close; throws on failure.
  void (*run)(const workload&, const std::string& path) = nullptr;
  // For a writer into memory instead of a file, the digest of what it wrote.
  digest (*memory_digest)() = nullptr;
  // The digest its output must have when it is not the workload's expected_digest (print's "{}"
  // of doubles: shortest_digest).
  digest (*reference)(const workload&) = nullptr;

  const char* api(workload_kind kind) const { return apis[static_cast<std::size_t>(kind)]; }
};

// Whether `api` marks a workload the writer cannot run (a stream without seek).
inline bool is_not_applicable(const char* api) noexcept {
  return api && std::string_view(api).substr(0, 3) == "n/a";
}
constexpr const char* cannot_seek = "n/a: no seek";

// Whether `api` marks a row this build lacks (a library not found when it was configured): the
// table shows it missing, with why, rather than leaving it out.
inline bool is_missing(const char* api) noexcept {
  return api && std::string_view(api).substr(0, 8) == "missing:";
}

// Every writer this build has, in the order the table shows them.
std::vector<writer> all_writers();

// Opens a Sink on `path`, emits the workload into it and closes it: every writer's `run`.
template <class Sink>
void run_sink(const workload& work, const std::string& path) {
  Sink out(path);
  emit(work, out);
  out.close();
}

// A Sink with one formatting workload's call alone (printf_row, log): the calls of the streaming
// workloads, which emit() names for every Sink, stand in as calls that write nothing.
template <class Sink>
struct formatting_only : Sink {
  using Sink::Sink;
  void byte(char) {}
  void token(std::string_view) {}
  void line(std::uint32_t, std::uint32_t) {}
  void block(const char*, std::size_t) {}
};

// The hand-written writers' copy: mapout's own, so that the rows differ by what each writer does
// around its copies. A plain memcpy whose size the compiler can bound becomes rep movsq, which
// costs records of 17 to 200 bytes twice the call's time (docs/decisions.md, "rep movsq").
inline void copy_bytes(char* to, const char* from, std::size_t size) noexcept {
  mapout::detail::copy_short(to, from, size);
}

// Throws the std::system_error for errno after `operation` on `path` failed.
[[noreturn]] void throw_errno(const char* operation, const std::string& path);

// `api` for each of `kinds`, nothing for the other workloads.
std::array<const char*, workload_kind_count> apis_for(std::initializer_list<workload_kind> kinds,
                                                      const char* api);

// A row of the log-lines workload alone, written with `api`; where the build lacks it, `api` is
// "missing: <why>" and `run` null.
writer log_writer(std::string id, std::string label, const char* api,
                  void (*run)(const workload&, const std::string&));

// Fills blocks [first, last) of a blocks workload into `path`, which exists, from its own offset.
using fill_blocks_fn = void (*)(const workload&, const std::string& path, std::uint64_t first,
                                std::uint64_t last);
// parallel: creates `path` empty, then two threads fill its two halves with `fill`.
void run_in_two_halves(const workload& work, const std::string& path, fill_blocks_fn fill);
template <fill_blocks_fn Fill>
void run_halves(const workload& work, const std::string& path) {
  run_in_two_halves(work, path, Fill);
}
// A parallel row of the two blocks workloads, written with `api`.
template <fill_blocks_fn Fill>
writer two_halves_writer(std::string id, std::string label, const char* api) {
  writer w;
  w.id = std::move(id);
  w.label = std::move(label);
  w.apis = apis_for({workload_kind::blocks_4k, workload_kind::blocks_1m}, api);
  w.quick = false;
  w.run = run_halves<Fill>;
  return w;
}

// Each family's writers, in writers_<family>.cpp.
void add_memory_writers(std::vector<writer>& list);
void add_stdio_writers(std::vector<writer>& list);
void add_iostream_writers(std::vector<writer>& list);
void add_fmt_writers(std::vector<writer>& list);
void add_llvm_writers(std::vector<writer>& list);
void add_boost_writers(std::vector<writer>& list);
// The boost-archive workload on the rows that run it (writers_archive.cpp).
void add_archive_rows(std::vector<writer>& list);
void add_syscall_writers(std::vector<writer>& list);
void add_mmap_writers(std::vector<writer>& list);
void add_mapout_writers(std::vector<writer>& list);
void add_cursor_writers(std::vector<writer>& list);
void add_parallel_writers(std::vector<writer>& list);
// print compiled as C++20, where a literal format is cut when compiling (writers_print_cxx20.cpp).
void add_print_cxx20_writers(std::vector<writer>& list);
void add_printf_writers(std::vector<writer>& list);
// spdlog's file logger and mapout's spdlog sink, on the log-lines workload; rows marked missing
// where the build lacks them.
void add_spdlog_writers(std::vector<writer>& list);

}  // namespace perf
