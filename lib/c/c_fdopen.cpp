// mapout_fdopen: a descriptor the caller opened, taken over by the rules of glibc's fdopen(3).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <new>

#include "c/c_handle.hpp"
#include "platform/platform.hpp"
#include "platform/sys.hpp"

namespace mapout::detail {
namespace {

// What an fdopen mode asks of the descriptor.
struct descriptor_request {
  bool update = false;  // '+': the descriptor must be open for reading too
  bool append = false;  // 'a': O_APPEND is set on it
};

// The mode as the C library's fdopen reads it (platform.hpp), false where that fails, and for
// "r": mapout only writes.
bool parse_descriptor_mode(const char* mode, descriptor_request& request) noexcept {
  platform::open_mode_letters letters;
  if (!platform::read_open_mode(mode, true, letters) || !letters.bytes) return false;
  request.update = letters.update;
  request.append = letters.access == 'a';
  return letters.access != 'r' || request.update;
}

// A read-only descriptor takes no mode mapout has; then, where the C library's fdopen fits the
// descriptor to the mode (glibc's), "+" needs O_RDWR, and "a" sets O_APPEND and, without "+",
// moves to the end. 0, or -1 with errno set and, as in glibc, O_APPEND left set when the seek
// failed.
int prepare(int fd, const descriptor_request& request) noexcept {
  const int status = retry_on_eintr(sys().status_flags, fd, F_GETFL, 0);
  if (status < 0) return -1;
  const int access = status & O_ACCMODE;
  const bool fits = platform::fdopen_fits_descriptor();
  if (access == O_RDONLY || (fits && request.update && access != O_RDWR)) {
    errno = EINVAL;
    return -1;
  }
  if (!fits || !request.append || (status & O_APPEND) != 0) return 0;
  if (retry_on_eintr(sys().status_flags, fd, F_SETFL, status | O_APPEND) != 0) return -1;
  if (!request.update && sys().lseek(fd, 0, SEEK_END) < 0 && errno != ESPIPE) return -1;
  return 0;
}

}  // namespace
}  // namespace mapout::detail

extern "C" mapout_file* mapout_fdopen(int fd, const char* mode, const mapout_options* options) {
  mapout::detail::descriptor_request request;
  mapout::options opts;
  if (mode == nullptr || !mapout::detail::parse_descriptor_mode(mode, request) ||
      (options != nullptr && !mapout::detail::to_options(*options, opts))) {
    errno = EINVAL;
    return nullptr;
  }
  // A successful open leaves errno as it was, as fdopen does.
  const int saved_errno = errno;
  if (mapout::detail::prepare(fd, request) != 0) return nullptr;
  auto* h = new (std::nothrow) mapout::detail::c_handle;
  if (h == nullptr) {
    errno = ENOMEM;
    return nullptr;
  }
  if (const std::error_code ec = h->file.open(fd, opts)) {
    delete h;
    errno = mapout::detail::errno_of(ec);
    return nullptr;
  }
  errno = saved_errno;
  return mapout::detail::hand_out(h);
}
