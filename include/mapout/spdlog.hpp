// mapout::spdlog_sink: an spdlog sink that stores each formatted message straight into the window
// of a mapout::output_file. Needs spdlog 1.10 or later (Debian libspdlog-dev); nothing else in
// mapout does.
#pragma once

#include <spdlog/common.h>
#include <spdlog/details/log_msg.h>
#include <spdlog/details/null_mutex.h>
#include <spdlog/sinks/base_sink.h>

#include <cstddef>
#include <cstring>
#include <filesystem>
#include <ios>
#include <mutex>
#include <system_error>

#include "mapout/options.hpp"
#include "mapout/output_file.hpp"
#include "mapout/window.hpp"

namespace mapout {

// A drop-in for spdlog::sinks::basic_file_sink: the same path and truncate arguments, file and
// bytes, with mapout's options where basic_file_sink takes its file event handlers.
//
//   auto sink = std::make_shared<mapout::spdlog_sink_mt>("logs/app.log");
//   spdlog::logger log("app", sink);
//   log.info("started with {} threads", 4);
//
//   mapout::options opts;
//   opts.crash_safe = true;  // every line logged is in the file, even if the process is killed
//   auto kept = std::make_shared<mapout::spdlog_sink_mt>("logs/app.log", false, opts);
//
// It opens as basic_file_sink does: the file's directories are made, `truncate` empties the file
// first, and the messages are appended, so that flush() (flush_on, flush_every) hands the bytes
// to write(2) where a reader sees them. A message is formatted by the sink's formatter into a
// buffer, then copied into the window; only a message the window cannot hold makes a call.
// Errors are thrown as spdlog::spdlog_ex, whose what() is "mapout: <operation> '<path>': <reason>";
// the logger hands one from a message to its error handler. The destructor closes the file and
// loses its error: flush first to see the last one.
template <typename Mutex>
class spdlog_sink : public spdlog::sinks::base_sink<Mutex> {
 public:
  explicit spdlog_sink(const spdlog::filename_t& path, bool truncate = false,
                       const options& opts = {})
      : path_(path) {
    const std::filesystem::path where(path);
    // Missing directories are made as basic_file_sink makes them; a failure shows at the open.
    std::error_code ignored;
    if (where.has_parent_path()) std::filesystem::create_directories(where.parent_path(), ignored);
    if (truncate) empty(where);
    if (file_.open(where, std::ios::app | std::ios::binary, opts)) fail();
    view_ = file_.current();
  }

  ~spdlog_sink() override { file_.close(view_); }

  const spdlog::filename_t& filename() const { return path_; }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    formatted_.clear();
    this->formatter_->format(msg, formatted_);
    const std::size_t size = formatted_.size();
    // Strictly less: an empty message never copies into a window that may be null.
    if (size < static_cast<std::size_t>(view_.end - view_.begin)) {
      std::memcpy(view_.begin, formatted_.data(), size);
      view_.begin += size;
    } else if (file_.write(view_, formatted_.data(), size)) {
      fail();
    }
  }

  void flush_() override {
    if (file_.flush(view_)) fail();
  }

 private:
  // Truncates as basic_file_sink does, by a truncating open closed at once, so that the file the
  // sink writes is open for appending whether or not it was emptied.
  static void empty(const std::filesystem::path& where) {
    output_file emptied;
    std::error_code ec = emptied.open(where, std::ios::out | std::ios::trunc | std::ios::binary);
    if (!ec) {
      window view = emptied.current();
      ec = emptied.close(view);
    }
    if (ec) spdlog::throw_spdlog_ex(emptied.error_message());
  }

  [[noreturn]] void fail() const { spdlog::throw_spdlog_ex(file_.error_message()); }

  spdlog::filename_t path_;
  output_file file_;
  // The caller's side of file_'s window: begin is where the next message goes.
  window view_;
  // Kept between messages so that a long one allocates once, not at every message.
  spdlog::memory_buf_t formatted_;
};

using spdlog_sink_mt = spdlog_sink<std::mutex>;
using spdlog_sink_st = spdlog_sink<spdlog::details::null_mutex>;

}  // namespace mapout
