// stdio writers: putc_unlocked per byte, fwrite_unlocked per token and block, fprintf per line;
// fputs per token; and fprintf then fflush per log line.
#include <cstdio>

#include "writers.hpp"

#ifdef _WIN32
// The C runtime's name for putc without the stream's lock; msvcrt has no fwrite without it.
#define putc_unlocked _putc_nolock
#define fwrite_unlocked fwrite
#endif

namespace perf {
namespace {

class stdio_sink {
 public:
  explicit stdio_sink(const std::string& path)
      : path_(path), file_(std::fopen(path.c_str(), "wb")) {
    if (!file_) throw_errno("fopen", path);
  }
  stdio_sink(const stdio_sink&) = delete;
  stdio_sink& operator=(const stdio_sink&) = delete;
  ~stdio_sink() {
    if (file_) std::fclose(file_);
  }

  void byte(char c) { putc_unlocked(c, file_); }
  void token(std::string_view text) { fwrite_unlocked(text.data(), 1, text.size(), file_); }
  void line(std::uint32_t i, std::uint32_t value) {
    std::fprintf(file_, "    { \"field_%u\", %u, %u },\n", i, i, value);
  }
  void block(const char* data, std::size_t size) { fwrite_unlocked(data, 1, size, file_); }
  void row(long id, double x, double y) { std::fprintf(file_, "%ld,%g,%g\n", id, x, y); }
  void number(double x) { std::fprintf(file_, "%g\n", x); }
  std::uint64_t tell() const { return static_cast<std::uint64_t>(ftello(file_)); }
  void seek(std::uint64_t offset) {
    if (fseeko(file_, static_cast<off_t>(offset), SEEK_SET) != 0) throw_errno("fseeko", path_);
  }
  void write_at(std::uint64_t offset, const char* data, std::size_t size) {
    const std::uint64_t end = tell();
    seek(offset);
    block(data, size);
    seek(end);
  }
  void close() {
    const bool failed = std::ferror(file_) != 0;
    const int closed = std::fclose(file_);
    file_ = nullptr;
    if (failed || closed != 0) throw_errno("fclose", path_);
  }

 protected:
  std::FILE* file() const { return file_; }

 private:
  std::string path_;
  std::FILE* file_;
};

class stdio_fputs_sink : public stdio_sink {
 public:
  using stdio_sink::stdio_sink;
  void token(std::string_view text) { std::fputs(text.data(), file()); }
};

// A log that flushes every line, so that a reader (tail -f) sees it at once.
class stdio_fflush_sink : public stdio_sink {
 public:
  using stdio_sink::stdio_sink;
  void log(const log_entry& entry) {
    std::fprintf(file(), "%s.%u [info] worker %u handled request %u in %u us, status %u\n",
                 entry.clock, entry.micros, entry.worker, entry.request, entry.elapsed,
                 entry.status);
    std::fflush(file());
  }
};

}  // namespace

void add_stdio_writers(std::vector<writer>& list) {
  writer stdio;
  stdio.id = "stdio";
  stdio.label = "stdio";
  stdio.apis = {"putc_unlocked",   "fwrite_unlocked", "fprintf",       "fwrite_unlocked",
                "fwrite_unlocked", "ftello+fseeko",   "ftello+fseeko", "fseeko",
                "fseeko+fwrite",   "fseeko+fwrite",   "fprintf %g",    "fprintf %g"};
  stdio.run = run_sink<stdio_sink>;
  list.push_back(stdio);

  writer fputs;
  fputs.id = "stdio-fputs";
  fputs.label = "stdio fputs";
  fputs.apis = {nullptr, "fputs", nullptr, nullptr, nullptr};
  fputs.quick = false;
  fputs.run = run_sink<stdio_fputs_sink>;
  list.push_back(fputs);

  writer fflush;
  fflush.id = "stdio-fflush";
  fflush.label = "stdio + fflush";
  fflush.apis = apis_for({workload_kind::log_lines}, "fprintf+fflush");
  fflush.run = run_sink<stdio_fflush_sink>;
  list.push_back(fflush);
}

}  // namespace perf
