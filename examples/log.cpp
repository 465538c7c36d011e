// log: a program's log that survives the program. Each line of standard input becomes a line of
// FILE with a timestamp, appended as a service appends to its log; `kill -9` at any moment keeps
// every line written so far. Run it again and it goes on after the last line, with nothing of the
// mapping's reserve left between (docs/logs.md).
//
//   some-service | log service.log               each line flushed with std::endl
//   some-service | log --crash-safe service.log  no flush at all: every line stored is kept
//   log --recover service.log                    cut what a killed writer left, for a reader
#include <chrono>
#include <cstring>
#include <ctime>
#include <iostream>
#include <string>

#include <mapout/ostream.hpp>

namespace {

// "2026-12-06 04:30:17.123456", the local time of now.
void timestamp(std::ostream& out) {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() %
      1000000;
  std::tm local{};
#ifdef _WIN32
  localtime_s(&local, &seconds);
#else
  localtime_r(&seconds, &local);
#endif
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &local);
  out << text << '.' << std::string(6 - std::to_string(micros).size(), '0') << micros;
}

}  // namespace

int main(int argc, char** argv) {
  const bool crash_safe = argc == 3 && std::strcmp(argv[1], "--crash-safe") == 0;
  const bool recover = argc == 3 && std::strcmp(argv[1], "--recover") == 0;
  if (argc != 2 && !crash_safe && !recover) {
    std::cerr << "usage: log [--crash-safe | --recover] FILE\n";
    return 2;
  }
  const char* path = argv[argc - 1];
  if (recover) {
    if (const std::error_code ec = mapout::recover(path)) {
      std::cerr << "log: recover '" << path << "': " << ec.message() << '\n';
      return 1;
    }
    return 0;
  }
  mapout::options opts;
  opts.crash_safe = crash_safe;
  mapout::ostream log(path, std::ios::app, opts);
  if (!log) {
    std::cerr << log.rdbuf()->error_message() << '\n';
    return 1;
  }
  std::string line;
  for (unsigned long n = 1; std::getline(std::cin, line); ++n) {
    timestamp(log);
    log << " [" << n << "] " << line;
    // std::endl's promise holds through a death: the line is in the file once it returns. With
    // crash_safe the line is there as soon as it is stored, and no flush is needed.
    if (crash_safe) {
      log << '\n';
    } else {
      log << std::endl;
    }
  }
  log.close();
  if (!log) {
    std::cerr << log.rdbuf()->error_message() << '\n';
    return 1;
  }
  return 0;
}
