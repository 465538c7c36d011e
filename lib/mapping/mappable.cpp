// Whether a descriptor's file can be mapped: its type and its file system.
#include "mapping/mappable.hpp"

#include <sys/stat.h>

#include "platform/sys.hpp"

namespace mapout::detail {

bool mappable(int fd, platform::file_system_kind& kind) noexcept {
  struct stat st;
  if (sys().fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return false;
  kind = platform::file_system_of(fd);
  return kind != platform::file_system_kind::unknown && kind != platform::file_system_kind::remote;
}

}  // namespace mapout::detail
