// The end mark, in decimal, in the file's attribute where the platform keeps attributes
// (platform::set_attribute); where it refuses, the file has no mark.
#include "mapping/end_mark.hpp"

#include <cerrno>
#include <charconv>

#include "platform/platform.hpp"

namespace mapout::detail {
namespace {

constexpr char end_attribute[] = "mapout.end";

}  // namespace

bool read_end_mark(int fd, std::uint64_t& end) noexcept {
  const int saved_errno = errno;
  char text[24];
  const ssize_t length = platform::get_attribute(fd, end_attribute, text, sizeof text);
  errno = saved_errno;
  end = 0;
  if (length <= 0) return false;
  const std::from_chars_result read = std::from_chars(text, text + length, end);
  return read.ec == std::errc() && read.ptr == text + length;
}

void set_end_mark(int fd, std::uint64_t end) noexcept {
  const int saved_errno = errno;
  char text[24];
  const std::to_chars_result written = std::to_chars(text, text + sizeof text, end);
  // Refused (no user attributes here, or no room): the bytes are what is left to go by.
  static_cast<void>(platform::set_attribute(fd, end_attribute, text,
                                            static_cast<std::size_t>(written.ptr - text)));
  errno = saved_errno;
}

void raise_end_mark(int fd, std::uint64_t end) noexcept {
  std::uint64_t marked = 0;
  if (read_end_mark(fd, marked) && marked >= end) return;
  set_end_mark(fd, end);
}

void remove_end_mark(int fd) noexcept {
  const int saved_errno = errno;
  static_cast<void>(platform::remove_attribute(fd, end_attribute));
  errno = saved_errno;
}

}  // namespace mapout::detail
