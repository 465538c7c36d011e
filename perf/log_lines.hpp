// The log-lines workload: a server's log, one line per request, each line made of a clock's text
// and five integers, as a program's logger writes it:
//     2026-12-06 04:30:17.123456 [info] worker 3 handled request 123456 in 789 us, status 201
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace perf {

// A log is counted in lines, not bytes: 1,000,000 lines (about 90 MB) at every size below 1 GiB,
// 10,000,000 (about 0.9 GB) from 1 GiB up.
constexpr std::uint32_t log_lines_small = 1000000;
constexpr std::uint32_t log_lines_large = 10000000;
constexpr std::uint32_t log_line_count(std::uint64_t size) noexcept {
  return size >= (std::uint64_t{1} << 30) ? log_lines_large : log_lines_small;
}

// One line's fields. The clock's text is NUL-terminated, for printf's %s and << of a const char*.
struct log_entry {
  const char* clock;     // "2026-12-06 04:30:17", to the second
  std::uint32_t micros;  // six digits, so that no writer pads
  std::uint32_t worker;
  std::uint32_t request;
  std::uint32_t elapsed;  // microseconds
  std::uint32_t status;
};

// The clock's text for each line, made again only when the second changes (every
// log_lines_per_second lines), as loggers keep the text of the current second.
class log_clock {
 public:
  static constexpr std::uint32_t log_lines_per_second = 1000;

  const char* at(std::uint32_t line) noexcept {
    const std::uint32_t second = line / log_lines_per_second;
    if (second != second_) {
      second_ = second;
      // From 04:30:17 on 2026-12-06; 10,000,000 lines end before 07:17 of the same day.
      const std::uint32_t of_day = (start_of_day + second) % 86400;
      put_two_digits(text_ + 11, of_day / 3600);
      put_two_digits(text_ + 14, of_day / 60 % 60);
      put_two_digits(text_ + 17, of_day % 60);
    }
    return text_;
  }

 private:
  static constexpr std::uint32_t start_of_day = 4 * 3600 + 30 * 60 + 17;
  static void put_two_digits(char* out, std::uint32_t value) noexcept {
    out[0] = static_cast<char>('0' + value / 10);
    out[1] = static_cast<char>('0' + value % 10);
  }

  std::uint32_t second_ = ~std::uint32_t{0};
  char text_[20] = "2026-12-06 00:00:00";
};

// Line i's fields; the clock must be the one every earlier line of the log was taken from.
inline log_entry log_entry_of(log_clock& clock, std::uint32_t i) noexcept {
  static constexpr std::uint32_t statuses[] = {200, 200, 200, 201, 204, 304, 404, 500};
  const std::uint32_t hash = i * 2654435761u;
  return {clock.at(i),
          100000 + i % log_clock::log_lines_per_second * 900 + hash % 900,
          hash >> 29,
          i,
          20 + (hash >> 8) % 50000,
          statuses[(hash >> 13) % 8]};
}

// The words between the fields.
constexpr std::string_view log_level = " [info] worker ";
constexpr std::string_view log_request = " handled request ";
constexpr std::string_view log_elapsed = " in ";
constexpr std::string_view log_status = " us, status ";

// Formats one line, its '\n' included, into `out`, which has room for max_log_line bytes; returns
// its end. The reference every log-lines writer's bytes are checked against.
constexpr std::size_t max_log_line = 128;
inline char* format_log_line(char* out, const log_entry& entry) noexcept {
  const std::string_view clock(entry.clock);
  out = std::copy(clock.begin(), clock.end(), out);
  *out++ = '.';
  out = std::to_chars(out, out + 10, entry.micros).ptr;
  out = std::copy(log_level.begin(), log_level.end(), out);
  out = std::to_chars(out, out + 10, entry.worker).ptr;
  out = std::copy(log_request.begin(), log_request.end(), out);
  out = std::to_chars(out, out + 10, entry.request).ptr;
  out = std::copy(log_elapsed.begin(), log_elapsed.end(), out);
  out = std::to_chars(out, out + 10, entry.elapsed).ptr;
  out = std::copy(log_status.begin(), log_status.end(), out);
  out = std::to_chars(out, out + 10, entry.status).ptr;
  *out++ = '\n';
  return out;
}

}  // namespace perf
