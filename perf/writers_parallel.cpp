// parallel: the parallel-csv (the numbers workload's CSV rows) and parallel-tokens workloads cut in
// two halves, each made by a thread of its own: into the two parts of one mapout::parallel_output;
// into two std::ostringstreams then one std::ofstream, the way programs do it by hand; and into
// the two halves of one file whose split is known beforehand, the limit, with nothing to join; and
// into two files, a half each, which share nothing at all.
#include <unistd.h>

#include <exception>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "digest.hpp"
#include "mapout/ostream.hpp"
#include "mapout/parallel.hpp"
#include "writers.hpp"

namespace perf {
namespace {

// The half of the workload's rows or tokens [first, last), through `out`'s << and write.
template <class Stream>
void emit_half(const workload& work, Stream& out, std::uint64_t first, std::uint64_t last) {
  const corpus& input = *work.input;
  if (bytes_of(work.kind) == workload_kind::numbers) {
    for (std::uint64_t i = first; i < last; ++i) {
      out << static_cast<long>(i) << ',' << number_value(input, i) << ','
          << number_value(input, i + 1) << '\n';
    }
    return;
  }
  for (std::uint64_t i = first; i < last; ++i) {
    const std::string_view token = input.tokens[i % input.tokens.size()];
    out.write(token.data(), static_cast<std::streamsize>(token.size()));
  }
}

// Runs `second` on a thread of its own and `first` on this one; rethrows either's failure.
template <class First, class Second>
void on_two_threads(First first, Second second) {
  std::exception_ptr failed;
  std::thread other([&] {
    try {
      second();
    } catch (...) {
      failed = std::current_exception();
    }
  });
  try {
    first();
  } catch (...) {
    other.join();
    throw;
  }
  other.join();
  if (failed) std::rethrow_exception(failed);
}

void run_parallel_output(const workload& work, const std::string& path) {
  mapout::parallel_output out(path, 2);
  const std::uint64_t half = work.count / 2;
  on_two_threads([&] { emit_half(work, out.part(0), 0, half); },
                 [&] { emit_half(work, out.part(1), half, work.count); });
  if (out.close()) throw std::runtime_error(out.error_message());
}

void run_two_strings(const workload& work, const std::string& path) {
  std::ostringstream halves[2];
  const std::uint64_t half = work.count / 2;
  on_two_threads([&] { emit_half(work, halves[0], 0, half); },
                 [&] { emit_half(work, halves[1], half, work.count); });
  std::ofstream out(path, std::ios::binary);
  for (const std::ostringstream& part : halves) {
    const std::string bytes = part.str();
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  out.close();
  if (!out) throw_errno("write", path);
}

// The limit's split: the first half's size, found before the timed run (prepare).
std::uint64_t first_half_bytes = 0;

void find_split(const workload& work) {
  const std::uint64_t half = work.count / 2;
  if (bytes_of(work.kind) == workload_kind::numbers) {
    std::ostringstream text;
    emit_half(work, text, 0, half);
    first_half_bytes = text.str().size();
    return;
  }
  const corpus& input = *work.input;
  first_half_bytes = 0;
  for (std::uint64_t i = 0; i < half; ++i) {
    first_half_bytes += input.tokens[i % input.tokens.size()].size();
  }
}

void run_two_halves_of_one_file(const workload& work, const std::string& path) {
  {
    mapout::ostream create(path);
    if (!create) throw_errno("open", path);
  }
  const std::uint64_t half = work.count / 2;
  const auto fill = [&](std::uint64_t first, std::uint64_t last, std::uint64_t offset) {
    mapout::ostream out(path, std::ios::in | std::ios::out);
    out.seekp(static_cast<std::streamoff>(offset));
    emit_half(work, out, first, last);
    out.close();
    if (!out) throw_errno("write", path);
  };
  on_two_threads([&] { fill(0, half, 0); }, [&] { fill(half, work.count, first_half_bytes); });
}

// The two files' names: the row's own, and the second half's beside it.
std::string first_file;
std::string second_file;

void run_two_files(const workload& work, const std::string& path) {
  first_file = path;
  second_file = path + ".second";
  const std::uint64_t half = work.count / 2;
  const auto fill = [&](std::uint64_t first, std::uint64_t last, const std::string& to) {
    mapout::ostream out(to);
    emit_half(work, out, first, last);
    out.close();
    if (!out) throw_errno("write", to);
  };
  try {
    on_two_threads([&] { fill(0, half, first_file); },
                   [&] { fill(half, work.count, second_file); });
  } catch (...) {
    ::unlink(second_file.c_str());
    throw;
  }
}

// After the timed run: the two files one after the other, as one output is checked, and the
// second file removed (the runner removes the first).
digest two_files_digest() {
  const digest both = file_digest(second_file, file_digest(first_file));
  ::unlink(second_file.c_str());
  return both;
}

writer parallel_writer(std::string id, std::string label,
                       void (*run)(const workload&, const std::string&)) {
  writer w;
  w.id = std::move(id);
  w.label = std::move(label);
  w.apis = apis_for({workload_kind::parallel_csv}, "<<");
  w.apis[static_cast<std::size_t>(workload_kind::parallel_tokens)] = "write";
  w.quick = false;
  w.run = run;
  return w;
}

}  // namespace

void add_parallel_writers(std::vector<writer>& list) {
  list.push_back(parallel_writer("parallel-output", "mapout::parallel_output, 2 threads",
                                 run_parallel_output));
  list.push_back(parallel_writer("parallel-ostringstream",
                                 "2 std::ostringstream + std::ofstream, 2 threads",
                                 run_two_strings));
  writer limit = parallel_writer("parallel-limit", "2 mapout::ostream, halves known, 2 threads",
                                 run_two_halves_of_one_file);
  limit.prepare = find_split;
  list.push_back(limit);
  writer files = parallel_writer("parallel-two-files", "2 mapout::ostream, a file each, 2 threads",
                                 run_two_files);
  files.memory_digest = two_files_digest;
  list.push_back(files);
}

}  // namespace perf
