// The printf-row writers: a C tool's fprintf per row, and the same tool ported to mapout.h's
// mapout_printf.
#include <mapout/mapout.h>

#include <cerrno>
#include <cstdio>

#include "writers.hpp"

namespace perf {
namespace {

class fprintf_sink {
 public:
  explicit fprintf_sink(const std::string& path)
      : path_(path), file_(std::fopen(path.c_str(), "wb")) {
    if (!file_) throw_errno("fopen", path);
  }
  fprintf_sink(const fprintf_sink&) = delete;
  fprintf_sink& operator=(const fprintf_sink&) = delete;
  ~fprintf_sink() {
    if (file_) std::fclose(file_);
  }

  void printf_row(const printf_row_values& v) {
    std::fprintf(file_, printf_row_format, v.id, v.name, v.value, v.total);
  }
  void close() {
    const bool failed = std::ferror(file_) != 0;
    const int closed = std::fclose(file_);
    file_ = nullptr;
    if (failed || closed != 0) throw_errno("fclose", path_);
  }

 private:
  std::string path_;
  std::FILE* file_;
};

class mapout_printf_sink {
 public:
  explicit mapout_printf_sink(const std::string& path)
      : path_(path), file_(mapout_open(path.c_str(), "w", nullptr)) {
    if (!file_) throw_errno("mapout_open", path);
  }
  mapout_printf_sink(const mapout_printf_sink&) = delete;
  mapout_printf_sink& operator=(const mapout_printf_sink&) = delete;
  ~mapout_printf_sink() {
    if (file_) mapout_close(file_);
  }

  void printf_row(const printf_row_values& v) {
    mapout_printf(file_, printf_row_format, v.id, v.name, v.value, v.total);
  }
  void close() {
    const int closed = mapout_close(file_);
    file_ = nullptr;
    if (closed != 0) throw_errno("mapout_close", path_);
  }

 private:
  std::string path_;
  mapout_file* file_;
};

}  // namespace

void add_printf_writers(std::vector<writer>& list) {
  writer stdio;
  stdio.id = "fprintf";
  stdio.label = "stdio fprintf";
  stdio.apis = apis_for({workload_kind::printf_row}, "fprintf");
  stdio.run = run_sink<formatting_only<fprintf_sink>>;
  list.push_back(stdio);

  writer mapout;
  mapout.id = "mapout-printf";
  mapout.label = "mapout_printf";
  mapout.apis = apis_for({workload_kind::printf_row}, "mapout_printf");
  mapout.run = run_sink<formatting_only<mapout_printf_sink>>;
  list.push_back(mapout);
}

}  // namespace perf
