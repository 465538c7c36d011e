// spdlog's rows of the log: a logger on spdlog's own file sink and one on mapout::spdlog_sink_mt,
// each unflushed and with flush_on(trace), one logger->info a line. The pattern "%v" leaves the
// message and spdlog's '\n', the bytes every other log row writes.
#include "writers.hpp"

#ifdef PERF_HAVE_SPDLOG
#include <spdlog/logger.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <mapout/spdlog.hpp>

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
  run_fn plain = nullptr, flush_on = nullptr, mapout_plain = nullptr, mapout_flush_on = nullptr;
#ifdef PERF_HAVE_SPDLOG
  using spdlog::sinks::basic_file_sink_mt;
  plain = run_spdlog<basic_file_sink_mt, flushing::at_close>;
  flush_on = run_spdlog<basic_file_sink_mt, flushing::every_line>;
  mapout_plain = run_spdlog<mapout::spdlog_sink_mt, flushing::at_close>;
  mapout_flush_on = run_spdlog<mapout::spdlog_sink_mt, flushing::every_line>;
#endif
  list.push_back(log_writer("spdlog", "spdlog", spdlog_call, plain));
  list.push_back(log_writer("spdlog-flush-on", "spdlog + flush_on", spdlog_call, flush_on));
  list.push_back(log_writer("mapout-spdlog", "mapout spdlog sink", spdlog_call, mapout_plain));
  list.push_back(log_writer("mapout-spdlog-flush-on", "mapout spdlog sink+flush", spdlog_call,
                            mapout_flush_on));
}

}  // namespace perf
