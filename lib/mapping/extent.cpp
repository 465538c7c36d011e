// Extending by reserving blocks rather than by ftruncate: it costs nothing measurable more and
// turns a full disk into ENOSPC from the extension instead of a SIGBUS from a store into a hole
// (docs/decisions.md, "fallocate").
#include "mapping/extent.hpp"

#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>

#include "platform/platform.hpp"
#include "platform/sys.hpp"

namespace mapout::detail {
namespace {

// The file's size now: a failed reservation may have grown it part of the way.
std::uint64_t size_of(int fd, std::uint64_t otherwise) noexcept {
  struct stat st;
  return sys().fstat(fd, &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : otherwise;
}

extension_result grow(int fd, std::uint64_t extent, std::uint64_t from,
                      std::uint64_t target) noexcept {
  if (from > extent) {
    if (retry_on_eintr(sys().ftruncate, fd, static_cast<off_t>(from)) != 0) {
      const error_cause why = errno_failure("ftruncate");
      return {why, size_of(fd, extent)};
    }
    extent = from;
  }
  if (target <= extent) return {{}, extent};
  const error_cause reserved = platform::reserve(fd, extent, target - extent);
  if (!reserved) return {{}, target};
  // Where the file cannot reserve, a hole is the best there is: the full disk then shows at the
  // store, caught only by the guard.
  if (reserved.error != ENOTSUP) return {reserved, size_of(fd, extent)};
  if (retry_on_eintr(sys().ftruncate, fd, static_cast<off_t>(target)) == 0) return {{}, target};
  const error_cause why = errno_failure("ftruncate");
  return {why, size_of(fd, extent)};
}

bool out_of_room(int error) noexcept {
  return error == ENOSPC || error == EDQUOT || error == EFBIG;
}

}  // namespace

extension_result extend_file(int fd, const extension_request& request) noexcept {
  const int saved_errno = errno;
  // From the size the file has: another writer may have grown it, and an ftruncate from a smaller
  // size would cut that writer's bytes.
  const std::uint64_t extent = std::max(request.extent, size_of(fd, request.extent));
  const std::uint64_t from = std::max(request.from, extent);
  extension_result result = grow(fd, extent, from, request.target);
  if (out_of_room(result.why.error) && request.minimal < request.target) {
    result = grow(fd, result.extent, from, request.minimal);
  }
  if (result.why && request.whole_pages && result.extent > extent &&
      retry_on_eintr(sys().ftruncate, fd, static_cast<off_t>(extent)) == 0) {
    result.extent = extent;
  }
  rlimit limit;
  if (result.why.error == EFBIG && !request.whole_pages && getrlimit(RLIMIT_FSIZE, &limit) == 0 &&
      limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur > result.extent &&
      limit.rlim_cur < request.minimal) {
    const extension_result fits = grow(fd, result.extent, from, limit.rlim_cur);
    // The bytes up to the limit can be written; the call that needs more fails with EFBIG.
    if (!fits.why) result.extent = fits.extent;
  }
  errno = saved_errno;
  return result;
}

}  // namespace mapout::detail
