// The list of writers, in table order: the ceiling, the peers, then mapout's variants.
#include "writers.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <exception>
#include <thread>

namespace perf {

std::vector<writer> all_writers() {
  std::vector<writer> list;
#ifdef PERF_PORTABLE_WRITERS_ONLY
  // Where perf/meson.build builds only the writers every system has (Windows).
  add_stdio_writers(list);
  add_iostream_writers(list);
  add_mapout_writers(list);
  add_cursor_writers(list);
#else
  add_memory_writers(list);
  add_stdio_writers(list);
  add_iostream_writers(list);
  add_fmt_writers(list);
  add_llvm_writers(list);
#ifdef PERF_HAVE_BOOST
  add_boost_writers(list);
#endif
  add_syscall_writers(list);
  add_mmap_writers(list);
  add_mapout_writers(list);
  add_cursor_writers(list);
  add_parallel_writers(list);
  add_print_cxx20_writers(list);
  add_printf_writers(list);
  add_spdlog_writers(list);
#endif
#ifdef PERF_HAVE_BOOST_SERIALIZATION
  add_archive_rows(list);
#endif
  return list;
}

void throw_errno(const char* operation, const std::string& path) {
  throw std::system_error(errno, std::generic_category(), std::string(operation) + " " + path);
}

std::array<const char*, workload_kind_count> apis_for(std::initializer_list<workload_kind> kinds,
                                                      const char* api) {
  std::array<const char*, workload_kind_count> apis{};
  for (const workload_kind kind : kinds) apis[static_cast<std::size_t>(kind)] = api;
  return apis;
}

#ifdef _WIN32
// The bytes as they are (the C runtime translates line ends without O_BINARY), not inherited.
constexpr int unshared = O_BINARY | O_NOINHERIT;
#else
constexpr int unshared = O_CLOEXEC;
#endif

writer log_writer(std::string id, std::string label, const char* api,
                  void (*run)(const workload&, const std::string&)) {
  writer w;
  w.id = std::move(id);
  w.label = std::move(label);
  w.apis = apis_for({workload_kind::log_lines}, api);
  w.run = run;
  return w;
}

void run_in_two_halves(const workload& work, const std::string& path, fill_blocks_fn fill) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | unshared, 0666);
  if (fd < 0 || ::close(fd) != 0) throw_errno("create", path);
  const std::uint64_t blocks = work.bytes / block_size(work.kind);
  std::exception_ptr failed;
  std::thread second([&] {
    try {
      fill(work, path, blocks / 2, blocks);
    } catch (...) {
      failed = std::current_exception();
    }
  });
  try {
    fill(work, path, 0, blocks / 2);
  } catch (...) {
    second.join();
    throw;
  }
  second.join();
  if (failed) std::rethrow_exception(failed);
}

}  // namespace perf
