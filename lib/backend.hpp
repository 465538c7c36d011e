// The interface output_file drives: one implementation stores into a mapping of the file
// (mapped_backend.cpp), the other buffers for write(2) (buffered_backend.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <ios>
#include <system_error>

#include "mapout/output_file.hpp"

namespace mapout::detail {

// A failed system call: what errno said and which call it was.
struct failure {
  std::error_code code;
  const char* operation = nullptr;

  explicit operator bool() const noexcept { return static_cast<bool>(code); }
};

// The failure of the system call that just returned -1.
failure errno_failure(const char* operation) noexcept;

// The members mirror output_file's: `put` is the caller's cursor in window(), and each call leaves
// window().begin at the new cursor. A failure that loses written bytes is sticky: the backend
// records the first in error() and refuses to write after it.
class backend {
 public:
  using window = output_file::window;

  explicit backend(int fd) noexcept : fd_(fd) {}
  backend(const backend&) = delete;
  backend& operator=(const backend&) = delete;
  // Releases the descriptor and memory without reporting; close() is the reporting way.
  virtual ~backend() = default;

  const window& current() const noexcept { return window_; }
  const failure& error() const noexcept { return error_; }
  int descriptor() const noexcept { return fd_; }
  virtual bool is_mapped() const noexcept = 0;

  virtual failure advance(char* put, std::size_t wanted) noexcept = 0;
  virtual failure write(char* put, const char* data, std::size_t size) noexcept = 0;
  virtual std::int64_t tell(const char* put) const noexcept = 0;
  virtual std::int64_t seek(char* put, std::int64_t offset, std::ios_base::seekdir dir,
                            failure& why) noexcept = 0;
  virtual failure sync(char* put) noexcept = 0;
  virtual failure publish(char* put) noexcept = 0;
  failure persist(char* put) noexcept;
  // Finishes the file and closes the descriptor, whatever failed before.
  virtual failure close(char* put) noexcept = 0;

 protected:
  // Records the first sticky failure and returns it.
  failure fail(const char* operation) noexcept;
  failure fail(failure why) noexcept;
  failure close_descriptor() noexcept;

  int fd_;
  window window_;
  failure error_;
};

}  // namespace mapout::detail
