// mapout::recover: a dead writer's reserve cut, for a tool that only reads the file.
#include <fcntl.h>

#include <string>

#include "backends/crash_recovery.hpp"
#include "mapout/output_file.hpp"
#include "platform/platform.hpp"
#include "platform/sys.hpp"

namespace mapout {

std::error_code recover(const std::filesystem::path& path) noexcept {
  std::string name;
  try {
    name = detail::platform::path_text(path);
  } catch (...) {
    return std::make_error_code(std::errc::not_enough_memory);
  }
  const detail::descriptor fd(
      detail::retry_on_eintr(detail::sys().open, name.c_str(), O_RDWR | O_CLOEXEC, mode_t{0}));
  if (!fd) return detail::code_of(detail::errno_failure("open"));
  return detail::code_of(detail::recover_after_crash(fd.get()));
}

}  // namespace mapout
