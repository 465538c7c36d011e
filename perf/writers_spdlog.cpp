// spdlog's rows of the log: a logger on spdlog's own file sink and one on mapout::spdlog_sink_mt,
// each unflushed and with flush_on(trace), one logger->info a line. The pattern "%v" leaves the
// message and spdlog's '\n', the bytes every other log row writes.
#include "writers.hpp"

#ifdef PERF_HAVE_SPDLOG
#include <fcntl.h>
#include <spdlog/logger.h>
#include <spdlog/sinks/base_sink.h>
#include <unistd.h>

#include <spdlog/sinks/basic_file_sink.h>
#include <chrono>
#include <cstring>
#include <mapout/spdlog.hpp>
#include <mutex>

#include <memory>
#include <stdexcept>
#endif

namespace perf {
namespace {

#ifdef PERF_HAVE_SPDLOG
// When the logger flushes its sink: at close, or after every line.
enum class flushing { at_close, every_line };

// A logger on a new `FileSink` of the path, truncated, as a program makes its file logger.
// spdlog hands a failed write to the error handler, which keeps the first for close() to throw.
template <class FileSink, flushing Flush>
class spdlog_sink {
 public:
  explicit spdlog_sink(const std::string& path)
      : path_(path),
        logger_(
            std::make_shared<spdlog::logger>("log-lines", std::make_shared<FileSink>(path, true))) {
    logger_->set_pattern("%v");
    if constexpr (Flush == flushing::every_line) logger_->flush_on(spdlog::level::trace);
    logger_->set_error_handler([this](const std::string& message) {
      if (error_.empty()) error_ = message;
    });
  }
  spdlog_sink(const spdlog_sink&) = delete;
  spdlog_sink& operator=(const spdlog_sink&) = delete;

  void log(const log_entry& entry) {
    logger_->info("{}.{} [info] worker {} handled request {} in {} us, status {}", entry.clock,
                  entry.micros, entry.worker, entry.request, entry.elapsed, entry.status);
  }
  void close() {
    logger_->flush();
    // The last owner of the sink: its file is closed here.
    logger_.reset();
    if (!error_.empty()) throw std::runtime_error("spdlog " + path_ + ": " + error_);
  }

 private:
  std::string path_;
  std::shared_ptr<spdlog::logger> logger_;
  std::string error_;
};

// The limit of a file sink: spdlog's formatting, then a copy into a 64 KiB buffer of its own
// handed to write(2) when full, as a sink written by hand for this log would do.
class hand_written_sink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  hand_written_sink(const std::string& path, bool) : fd_(::open(path.c_str(), flags, 0666)) {
    if (fd_ < 0) throw std::runtime_error("open " + path);
  }
  ~hand_written_sink() override {
    flush_();
    ::close(fd_);
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    formatted_.clear();
    formatter_->format(msg, formatted_);
    if (formatted_.size() > sizeof buffer_ - used_) flush_();
    std::memcpy(buffer_ + used_, formatted_.data(), formatted_.size());
    used_ += formatted_.size();
  }
  void flush_() override {
    if (used_ > 0 && ::write(fd_, buffer_, used_) != static_cast<ssize_t>(used_)) {
      throw std::runtime_error("write");
    }
    used_ = 0;
  }

 private:
  static constexpr int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
  int fd_;
  spdlog::memory_buf_t formatted_;
  std::size_t used_ = 0;
  char buffer_[64 << 10];
};

// mapout's sink with crash_safe: every line in the file as it is stored, no flush needed.
mapout::options crash_safe() {
  mapout::options opts;
  opts.crash_safe = true;
  return opts;
}

// Publishing at most every 10 ms: a flush between is a store into the tail file, and the log
// still grows by write(2) through O_APPEND, for tail -f and copytruncate.
mapout::options publishing_every_10ms() {
  mapout::options opts;
  opts.flush_publishes = true;
  opts.publish_every = std::chrono::milliseconds(10);
  return opts;
}

// mapout's sink opened with the options `Options` makes.
template <mapout::options (*Options)()>
class options_sink final : public mapout::spdlog_sink<std::mutex> {
 public:
  options_sink(const std::string& path, bool truncate)
      : mapout::spdlog_sink<std::mutex>(path, truncate, Options()) {}
};
using crash_safe_sink = options_sink<crash_safe>;
using publishing_sink = options_sink<publishing_every_10ms>;

template <class FileSink, flushing Flush>
constexpr auto run_spdlog = run_sink<formatting_only<spdlog_sink<FileSink, Flush>>>;

constexpr const char* spdlog_call = "logger->info";
#else
constexpr const char* spdlog_call =
    "missing: perf/compare was configured without spdlog (install libspdlog-dev)";
#endif

}  // namespace

void add_spdlog_writers(std::vector<writer>& list) {
  using run_fn = void (*)(const workload&, const std::string&);
  run_fn plain = nullptr, flush_on = nullptr, mapout_plain = nullptr, mapout_flush_on = nullptr,
         hand_written = nullptr, mapout_crash_safe = nullptr, mapout_crash_safe_flush_on = nullptr,
         mapout_publishing_flush_on = nullptr;
#ifdef PERF_HAVE_SPDLOG
  using spdlog::sinks::basic_file_sink_mt;
  plain = run_spdlog<basic_file_sink_mt, flushing::at_close>;
  flush_on = run_spdlog<basic_file_sink_mt, flushing::every_line>;
  mapout_plain = run_spdlog<mapout::spdlog_sink_mt, flushing::at_close>;
  mapout_flush_on = run_spdlog<mapout::spdlog_sink_mt, flushing::every_line>;
  hand_written = run_spdlog<hand_written_sink, flushing::at_close>;
  mapout_crash_safe = run_spdlog<crash_safe_sink, flushing::at_close>;
  mapout_crash_safe_flush_on = run_spdlog<crash_safe_sink, flushing::every_line>;
  mapout_publishing_flush_on = run_spdlog<publishing_sink, flushing::every_line>;
#endif
  list.push_back(log_writer("spdlog", "spdlog", spdlog_call, plain));
  list.push_back(log_writer("spdlog-flush-on", "spdlog + flush_on", spdlog_call, flush_on));
  list.push_back(log_writer("mapout-spdlog", "mapout spdlog sink", spdlog_call, mapout_plain));
  list.push_back(log_writer("mapout-spdlog-flush-on", "mapout spdlog sink+flush", spdlog_call,
                            mapout_flush_on));
  list.push_back(log_writer("mapout-spdlog-crash-safe", "mapout spdlog sink safe", spdlog_call,
                            mapout_crash_safe));
  list.push_back(
      log_writer("spdlog-hand-written", "spdlog hand sink (limit)", spdlog_call, hand_written));
  list.push_back(log_writer("mapout-spdlog-crash-safe-flush-on", "mapout spdlog safe+flush",
                            spdlog_call, mapout_crash_safe_flush_on));
  list.push_back(log_writer("mapout-spdlog-publish-10ms-flush-on", "mapout spdlog 10ms+flush",
                            spdlog_call, mapout_publishing_flush_on));
}

}  // namespace perf
