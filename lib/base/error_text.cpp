// The one place mapout's error messages are put together.
#include "base/error_text.hpp"

#include "platform/platform.hpp"

namespace mapout::detail {

std::string error_context(const char* operation, const std::filesystem::path& path,
                          const char* detail) {
  std::string text = "mapout: " + std::string(operation) + " '" + platform::path_shown(path) + "'";
  if (detail != nullptr) text += std::string(": ") + detail;
  return text;
}

std::string error_text(const char* operation, const std::filesystem::path& path,
                       const std::string& reason) {
  return error_context(operation, path, reason.c_str());
}

std::ios_base::failure not_open_failure(std::error_code code) {
  return std::ios_base::failure("mapout: not open", code);
}

std::ios_base::failure stream_state_failure(bool is_open) {
  const std::error_code code = std::make_error_code(std::io_errc::stream);
  return is_open ? std::ios_base::failure("mapout: open: already open", code)
                 : not_open_failure(code);
}

}  // namespace mapout::detail
