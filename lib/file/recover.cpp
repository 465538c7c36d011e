// mapout::recover: a dead writer's reserve cut and its tail written in, for a tool that only
// reads the file.
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
  if (const detail::error_cause why = detail::recover_after_crash(fd.get())) {
    return detail::code_of(why);
  }
  return detail::code_of(detail::recover_tail(name.c_str(), fd.get(), true));
}

}  // namespace mapout
