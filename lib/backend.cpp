// What both backends share: recording failures, fsync and closing the descriptor.
#include "backend.hpp"

#include <cerrno>

#include "sys.hpp"

namespace mapout::detail {

failure errno_failure(const char* operation) noexcept {
  return {std::error_code(errno, std::system_category()), operation};
}

failure backend::fail(const char* operation) noexcept {
  return fail(errno_failure(operation));
}

failure backend::fail(failure why) noexcept {
  if (!error_) error_ = why;
  return why;
}

failure backend::persist(char* put) noexcept {
  if (failure why = publish(put)) return why;
  if (sys().fsync(fd_) != 0) return fail("fsync");
  return {};
}

failure backend::close_descriptor() noexcept {
  const int fd = fd_;
  fd_ = -1;
  if (fd >= 0 && sys().close(fd) != 0) return fail("close");
  return error_;
}

}  // namespace mapout::detail
