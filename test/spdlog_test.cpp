// mapout::spdlog_sink against spdlog's own basic_file_sink: the same bytes for random messages,
// levels and patterns, appending and truncating; threads logging at once; flush_on; errors as
// spdlog_ex; and, with options.crash_safe, every line logged before a SIGKILL in the file.
#include "mapout/spdlog.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <spdlog/logger.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bytes.hpp"
#include "platform/sys.hpp"
#include "sanitized.hpp"
#include "system_call_override.hpp"
#include "temp_dir.hpp"

using mapout::test::pattern;
using mapout::test::read_file;
using mapout::test::temp_dir;

namespace {

struct options_case {
  const char* name;
  mapout::options opts;
};

// The default buffer, a buffer much shorter than a message, a flush that publishes, and the
// crash-safe mapping.
std::vector<options_case> options_cases() {
  mapout::options small_buffer;
  small_buffer.strategy = mapout::strategy::buffered;
  small_buffer.buffer_size = 100;
  mapout::options publishing;
  publishing.flush_publishes = true;
  mapout::options crash_safe;
  crash_safe.crash_safe = true;
  return {{"default", {}},
          {"buffer 100", small_buffer},
          {"flush_publishes", publishing},
          {"crash_safe", crash_safe}};
}

// Most messages 0 to 200 bytes, one in 50 past 64 KiB, so that some never fit a window.
std::string random_text(std::mt19937& random) {
  const bool large = random() % 50 == 0;
  const std::size_t size =
      large ? (std::size_t{64} << 10) + random() % (std::size_t{100} << 10) : random() % 201;
  return pattern(size, static_cast<unsigned>(random() % 90), random() % 4093);
}

spdlog::level::level_enum random_level(std::mt19937& random) {
  return static_cast<spdlog::level::level_enum>(random() % spdlog::level::off);
}

// spdlog's default pattern, time and thread included: both sinks format the same message.
// An empty end of line makes an empty message zero bytes.
void set_random_pattern(spdlog::logger& log, std::mt19937& random) {
  switch (random() % 5) {
    case 0:
      log.set_pattern("%+");
      break;
    case 1:
      log.set_pattern("%v");
      break;
    case 2:
      log.set_pattern("[%l] %v");
      break;
    case 3:
      log.set_pattern("%L %n %t|%v|%Y-%m-%d %H:%M:%S.%f %z");
      break;
    default:
      log.set_formatter(
          std::make_unique<spdlog::pattern_formatter>("%v", spdlog::pattern_time_type::local, ""));
  }
}

// Logs random messages through one logger to both sinks, with a new pattern now and then and a
// flush now and then.
void log_random_messages(spdlog::logger& log, unsigned seed, int count) {
  std::mt19937 random(seed);
  log.set_level(spdlog::level::trace);
  for (int i = 0; i < count; ++i) {
    if (random() % 40 == 0) set_random_pattern(log, random);
    if (random() % 30 == 0) log.flush();
    const std::string text = random_text(random);
    log.log(random_level(random), spdlog::string_view_t(text.data(), text.size()));
  }
}

template <typename Mapout, typename Reference>
void expect_same_bytes_as_basic_file_sink(const char* kind) {
  for (const options_case& which : options_cases()) {
    for (const bool truncate : {false, true}) {
      for (unsigned seed = 0; seed < 3; ++seed) {
        SCOPED_TRACE(std::string(kind) + ", " + which.name + (truncate ? ", truncate" : "") +
                     ", seed " + std::to_string(seed));
        temp_dir dir;
        const auto expected_path = dir / "expected.log";
        const auto actual_path = dir / "actual.log";
        // Bytes already there: appended to, or cut away.
        const std::string before = pattern(seed * 5000, 7);
        mapout::test::write_file(expected_path, before);
        mapout::test::write_file(actual_path, before);
        {
          auto actual = std::make_shared<Mapout>(actual_path.string(), truncate, which.opts);
          EXPECT_EQ(actual->filename(), actual_path.string());
          spdlog::logger log(
              "random", {std::make_shared<Reference>(expected_path.string(), truncate), actual});
          log.set_error_handler([](const std::string& message) { ADD_FAILURE() << message; });
          log_random_messages(log, seed, 400);
        }
        const std::string expected = read_file(expected_path);
        if (!truncate) {
          EXPECT_EQ(expected.substr(0, before.size()), before);
        }
        ASSERT_EQ(read_file(actual_path), expected);
      }
    }
  }
}

TEST(SpdlogSink, RandomMessagesMatchBasicFileSinkMt) {
  expect_same_bytes_as_basic_file_sink<mapout::spdlog_sink_mt, spdlog::sinks::basic_file_sink_mt>(
      "mt");
}

TEST(SpdlogSink, RandomMessagesMatchBasicFileSinkSt) {
  expect_same_bytes_as_basic_file_sink<mapout::spdlog_sink_st, spdlog::sinks::basic_file_sink_st>(
      "st");
}

// Each flush hands the bytes over, so that another reader of the file sees every line at once,
// as it sees basic_file_sink's.
TEST(SpdlogSink, FlushOnTraceShowsEveryLineToAReader) {
  for (const options_case& which : options_cases()) {
    for (const bool truncate : {false, true}) {
      SCOPED_TRACE(std::string(which.name) + (truncate ? ", truncate" : ""));
      temp_dir dir;
      const auto expected_path = dir / "expected.log";
      const auto actual_path = dir / "actual.log";
      mapout::test::write_file(expected_path, "an old line\n");
      mapout::test::write_file(actual_path, "an old line\n");
      spdlog::logger log(
          "flushed",
          {std::make_shared<spdlog::sinks::basic_file_sink_mt>(expected_path.string(), truncate),
           std::make_shared<mapout::spdlog_sink_mt>(actual_path.string(), truncate, which.opts)});
      log.set_level(spdlog::level::trace);
      log.flush_on(spdlog::level::trace);
      std::mt19937 random(1);
      for (int i = 0; i < 100; ++i) {
        const std::string text = random_text(random);
        log.log(random_level(random), spdlog::string_view_t(text.data(), text.size()));
        // Up to the first NUL: a crash-safe file may hold zeros past the bytes while open.
        const std::string actual = read_file(actual_path);
        ASSERT_EQ(actual.substr(0, actual.find('\0')), read_file(expected_path)) << "message " << i;
      }
    }
  }
}

// Four threads log at once through one logger: every line whole and every line there.
TEST(SpdlogSink, FourThreadsLoggingAtOnceLoseAndTearNoLine) {
  constexpr int threads = 4;
  const int lines = mapout::test::sanitized ? 300 : 1000;
  for (const options_case& which : options_cases()) {
    SCOPED_TRACE(which.name);
    temp_dir dir;
    const auto path = dir / "threads.log";
    std::vector<std::string> expected;
    {
      spdlog::logger log("threads",
                         std::make_shared<mapout::spdlog_sink_mt>(path.string(), true, which.opts));
      log.set_pattern("%v");
      std::vector<std::vector<std::string>> texts(threads);
      for (int t = 0; t < threads; ++t) {
        std::mt19937 random(static_cast<unsigned>(t));
        for (int i = 0; i < lines; ++i) {
          texts[t].push_back("thread " + std::to_string(t) + " line " + std::to_string(i) + " " +
                             random_text(random));
          expected.push_back(texts[t].back());
        }
      }
      std::vector<std::thread> loggers;
      for (int t = 0; t < threads; ++t) {
        loggers.emplace_back([&log, &texts, t] {
          for (const std::string& text : texts[t]) log.info("{}", text);
        });
      }
      for (std::thread& logger : loggers) logger.join();
    }
    const std::string bytes = read_file(path);
    ASSERT_FALSE(bytes.empty());
    ASSERT_EQ(bytes.back(), '\n');
    std::vector<std::string> found;
    for (std::size_t at = 0; at < bytes.size();) {
      const std::size_t end = bytes.find('\n', at);
      found.push_back(bytes.substr(at, end - at));
      at = end + 1;
    }
    std::sort(expected.begin(), expected.end());
    std::sort(found.begin(), found.end());
    ASSERT_EQ(found.size(), expected.size());
    EXPECT_TRUE(found == expected) << "a line torn or lost";
  }
}

// Where basic_file_sink fails to open, so does the sink, naming the path and errno's text.
TEST(SpdlogSink, BadPathThrowsSpdlogExNamingThePath) {
  temp_dir dir;
  mapout::test::write_file(dir / "file", "not a directory\n");
  const std::string path = (dir / "file" / "x.log").string();
  for (const bool truncate : {false, true}) {
    SCOPED_TRACE(truncate ? "truncate" : "append");
    EXPECT_THROW(spdlog::sinks::basic_file_sink_mt(path, truncate), spdlog::spdlog_ex);
    try {
      mapout::spdlog_sink_mt sink(path, truncate);
      ADD_FAILURE() << "opened " << path;
    } catch (const spdlog::spdlog_ex& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(path), std::string::npos) << what;
      EXPECT_NE(what.find(std::strerror(ENOTDIR)), std::string::npos) << what;
    }
  }
}

// As basic_file_sink does, the directories of the path are made.
TEST(SpdlogSink, MissingDirectoriesAreMade) {
  temp_dir dir;
  const auto path = dir / "logs" / "today" / "app.log";
  {
    spdlog::logger log("nested", std::make_shared<mapout::spdlog_sink_st>(path.string()));
    log.set_pattern("%v");
    log.info("made");
  }
  EXPECT_EQ(read_file(path), "made\n");
}

// A write that fails reaches the logger's error handler as spdlog_ex, with the path and the
// errno text; the sink's own flush throws it.
TEST(SpdlogSink, FailedWriteReachesTheErrorHandler) {
  temp_dir dir;
  const auto path = dir / "full.log";
  auto sink = std::make_shared<mapout::spdlog_sink_mt>(path.string());
  spdlog::logger log("full", sink);
  std::vector<std::string> errors;
  log.set_error_handler([&errors](const std::string& message) { errors.push_back(message); });
  log.info("before the disk filled up");
  using calls = mapout::detail::system_calls;
  mapout::test::system_call_override<&calls::write> write{
      [](int, const void*, std::size_t) -> ssize_t {
        errno = ENOSPC;
        return -1;
      }};
  mapout::test::system_call_override<&calls::pwrite> pwrite{
      [](int, const void*, std::size_t, off_t) -> ssize_t {
        errno = ENOSPC;
        return -1;
      }};
  log.flush();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find(path.string()), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find(std::strerror(ENOSPC)), std::string::npos) << errors[0];
  EXPECT_THROW(sink->flush(), spdlog::spdlog_ex);
  const std::string large(std::size_t{100} << 10, 'x');
  log.info("{}", large);
  EXPECT_EQ(errors.size(), 2u);
}

// A child logs numbered lines with crash_safe and no flush, then kills itself: every line it
// logged is in the file, before any zeros the mapping reserved past them.
TEST(SpdlogSink, CrashSafeKeepsEveryLineLoggedBeforeSigkill) {
  std::mt19937 random(3);
  const int rounds = mapout::test::sanitized ? 3 : 8;
  for (int round = 0; round < rounds; ++round) {
    const int count = static_cast<int>(random() % 5000);
    SCOPED_TRACE("round " + std::to_string(round) + ", " + std::to_string(count) + " lines");
    temp_dir dir;
    const auto path = dir / "killed.log";
    std::string expected;
    std::mt19937 texts(static_cast<unsigned>(round));
    std::vector<std::string> lines;
    for (int i = 0; i < count; ++i) {
      lines.push_back("line " + std::to_string(i) + " " + random_text(texts));
      expected += lines.back() + "\n";
    }
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      // The child touches no GoogleTest: it logs, then dies.
      try {
        mapout::options opts;
        opts.crash_safe = true;
        spdlog::logger log("killed",
                           std::make_shared<mapout::spdlog_sink_mt>(path.string(), true, opts));
        log.set_pattern("%v");
        for (const std::string& line : lines) log.info("{}", line);
        ::raise(SIGKILL);
      } catch (...) {
      }
      ::_exit(1);
    }
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;
    const std::string bytes = read_file(path);
    const std::string kept = bytes.substr(0, bytes.find('\0'));
    ASSERT_EQ(kept.size(), expected.size());
    EXPECT_TRUE(kept == expected) << "the lines before the kill differ";
  }
}

}  // namespace
