// mapout::output_file's reports: the first failure as a std::error_code and a message, the
// refusals while a cursor holds the window, and the calls made while not open.
#include "base/error_text.hpp"
#include "file/output_file_state.hpp"
#include "mapout/output_file.hpp"

namespace mapout {

using detail::code_of;
using detail::error_cause;

std::error_code output_file::not_open(const char* operation) noexcept {
  if (state_ && !state_->file.error) state_->file.error = {EBADF, operation};
  return std::make_error_code(std::errc::bad_file_descriptor);
}

bool output_file::held_by_cursor() const noexcept {
  return state_ && state_->held_by_cursor;
}

void output_file::set_held_by_cursor(bool held, const window& owner_view) noexcept {
  if (!state_) return;
  if (state_->backend) state_->keep_stored(owner_view);
  state_->held_by_cursor = held;
  state_->refused = nullptr;
}

std::error_code output_file::refuse(const char* operation) noexcept {
  state_->refused = operation;
  return std::make_error_code(std::errc::device_or_resource_busy);
}

std::string output_file::held_message() const {
  const char* operation = state_->refused != nullptr ? state_->refused : "use";
  return detail::error_context(operation, state_->path, "held by a mapout::cursor");
}

std::error_code output_file::unavailable(const char* operation) noexcept {
  if (held_by_cursor()) return refuse(operation);
  if (!is_open()) return not_open(operation);
  return {};
}

std::error_code output_file::error() const noexcept {
  return state_ ? code_of(state_->file.error) : std::error_code{};
}

std::string output_file::error_message() const {
  if (state_ && !state_->file.error && state_->held_by_cursor && state_->refused)
    return held_message();
  if (!state_ || !state_->file.error) return {};
  return error_exception().what();
}

std::ios_base::failure output_file::error_exception() const {
  if (!state_ || !state_->file.error) {
    return detail::not_open_failure(std::make_error_code(std::errc::bad_file_descriptor));
  }
  const error_cause& why = state_->file.error;
  return std::ios_base::failure(detail::error_context(why.operation, state_->path, why.detail),
                                code_of(why));
}

std::ios_base::failure output_file::exception_for(std::error_code ec) const {
  if (error() || ec != std::errc::device_or_resource_busy || !held_by_cursor())
    return error_exception();
  return std::ios_base::failure(held_message(), ec);
}

}  // namespace mapout
