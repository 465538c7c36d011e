// Descriptors' handles, UTF-8 and UTF-16, and Windows errors as errno values.
#include "platform/windows_support.hpp"

#include <io.h>

#include <cerrno>
#include <system_error>

#include "platform/sys.hpp"

namespace mapout::detail::platform::windows {

HANDLE handle_of(int fd) noexcept {
  const auto handle = reinterpret_cast<HANDLE>(_get_osfhandle(fd));
  if (handle == INVALID_HANDLE_VALUE) errno = EBADF;
  return handle;
}

bool utf16_of(const char* text, std::wstring& wide) noexcept {
  const int length = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, text, -1, nullptr, 0);
  if (length <= 0) {
    errno = EILSEQ;
    return false;
  }
  try {
    wide.resize(static_cast<std::size_t>(length));
  } catch (...) {
    errno = ENOMEM;
    return false;
  }
  MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, text, -1, wide.data(), length);
  wide.pop_back();  // the terminating NUL, which c_str() gives again
  return true;
}

std::string utf8_of(const wchar_t* wide, std::size_t length) {
  if (length == 0) return {};
  const int wide_length = static_cast<int>(length);
  const int size = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, wide, wide_length, nullptr, 0,
                                       nullptr, nullptr);
  if (size <= 0) return {};
  std::string text(static_cast<std::size_t>(size), '\0');
  WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, wide, wide_length, text.data(), size, nullptr,
                      nullptr);
  return text;
}

// As the C runtime's own table maps them (its _dosmaperr), and the few it leaves as EINVAL that a
// file writer meets.
int errno_of(DWORD code) noexcept {
  switch (code) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_DRIVE:
    case ERROR_BAD_NETPATH:
    case ERROR_BAD_NET_NAME:
    case ERROR_INVALID_NAME:
      return ENOENT;
    case ERROR_TOO_MANY_OPEN_FILES:
      return EMFILE;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
    case ERROR_CURRENT_DIRECTORY:
    case ERROR_NETWORK_ACCESS_DENIED:
    case ERROR_CANNOT_MAKE:
    case ERROR_FAIL_I24:
    case ERROR_DRIVE_LOCKED:
    case ERROR_SEEK_ON_DEVICE:
    case ERROR_NOT_LOCKED:
    case ERROR_LOCK_FAILED:
    case ERROR_WRITE_PROTECT:
      return EACCES;
    case ERROR_INVALID_HANDLE:
    case ERROR_INVALID_TARGET_HANDLE:
    case ERROR_DIRECT_ACCESS_HANDLE:
      return EBADF;
    case ERROR_ARENA_TRASHED:
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_INVALID_BLOCK:
    case ERROR_NOT_ENOUGH_QUOTA:
    case ERROR_COMMITMENT_LIMIT:
    case ERROR_OUTOFMEMORY:
      return ENOMEM;
    case ERROR_NOT_SAME_DEVICE:
      return EXDEV;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS:
      return EEXIST;
    case ERROR_BROKEN_PIPE:
    case ERROR_NO_DATA:
      return EPIPE;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL:
      return ENOSPC;
    case ERROR_DIR_NOT_EMPTY:
      return ENOTEMPTY;
    case ERROR_FILENAME_EXCED_RANGE:
      return ENAMETOOLONG;
    case ERROR_DIRECTORY:
      return ENOTDIR;
    case ERROR_NOT_SUPPORTED:
    case ERROR_INVALID_FUNCTION:
    case ERROR_CALL_NOT_IMPLEMENTED:
      return ENOTSUP;
    case ERROR_USER_MAPPED_FILE:
      return EBUSY;
    case ERROR_FILE_TOO_LARGE:
      return EFBIG;
    default:
      return EINVAL;
  }
}

namespace {

// The Windows error this thread's last failed call met, and the errno it became: the message of
// EACCES then gives Windows' own words (a sharing violation, not only "access denied").
thread_local DWORD last_code = 0;
thread_local int last_errno = 0;

// The Windows error that stands for an errno no call of this thread met last.
DWORD code_for(int error) noexcept {
  switch (error) {
    case ENOENT:
      return ERROR_FILE_NOT_FOUND;
    case EACCES:
    case EPERM:
      return ERROR_ACCESS_DENIED;
    case EEXIST:
      return ERROR_FILE_EXISTS;
    case ENOSPC:
      return ERROR_DISK_FULL;
    case EBADF:
      return ERROR_INVALID_HANDLE;
    case ENOMEM:
      return ERROR_NOT_ENOUGH_MEMORY;
    case EINVAL:
      return ERROR_INVALID_PARAMETER;
    case ENOTSUP:
      return ERROR_NOT_SUPPORTED;
    case ENAMETOOLONG:
      return ERROR_FILENAME_EXCED_RANGE;
    case ENOTDIR:
      return ERROR_DIRECTORY;
    case EMFILE:
      return ERROR_TOO_MANY_OPEN_FILES;
    case EXDEV:
      return ERROR_NOT_SAME_DEVICE;
    case EPIPE:
      return ERROR_BROKEN_PIPE;
    case EBUSY:
      return ERROR_USER_MAPPED_FILE;
    default:
      return 0;
  }
}

// FormatMessageW's text of `code` in UTF-8, without its final line break; empty when it has none.
std::string text_of(DWORD code) {
  wchar_t* text = nullptr;
  const DWORD length = FormatMessageW(
      FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
      nullptr, code, 0, reinterpret_cast<wchar_t*>(&text), 0, nullptr);
  if (length == 0 || text == nullptr) return {};
  std::size_t end = length;
  while (end > 0 && (text[end - 1] == L'\r' || text[end - 1] == L'\n' || text[end - 1] == L' ')) {
    --end;
  }
  std::string message;
  try {
    message = utf8_of(text, end);
  } catch (...) {
    LocalFree(text);
    throw;
  }
  LocalFree(text);
  return message;
}

// errno values, equal to std::errc's, whose messages are Windows' texts.
class windows_errno_category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "mapout"; }
  std::error_condition default_error_condition(int error) const noexcept override {
    return {error, std::generic_category()};
  }
  std::string message(int error) const override {
    // Windows' access denied, sharing and lock violations are all EACCES.
    const bool met = error == EACCES && last_errno == EACCES && last_code != 0;
    const DWORD code = met ? last_code : code_for(error);
    std::string text = code != 0 ? text_of(code) : std::string{};
    return text.empty() ? std::generic_category().message(error) : text;
  }
};

}  // namespace

int fail_from_last_error() noexcept {
  last_code = GetLastError();
  last_errno = errno_of(last_code);
  errno = last_errno;
  return -1;
}

int fail_with(int error) noexcept {
  last_code = 0;
  errno = error;
  return -1;
}

}  // namespace mapout::detail::platform::windows

const std::error_category& mapout::detail::errno_category() noexcept {
  static const platform::windows::windows_errno_category category;
  return category;
}
