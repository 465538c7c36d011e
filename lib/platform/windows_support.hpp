// What the Windows files share: a descriptor's handle, UTF-8 and UTF-16, and Windows errors as
// the errno values the C runtime gives them.
#pragma once

#include <windows.h>

#include <string>

namespace mapout::detail::platform::windows {

// The handle behind a C runtime descriptor; INVALID_HANDLE_VALUE with errno EBADF.
HANDLE handle_of(int fd) noexcept;

// `text` (UTF-8) in UTF-16; false with errno set (EILSEQ, ENOMEM).
bool utf16_of(const char* text, std::wstring& wide) noexcept;
// `wide` in UTF-8; empty when it is not valid UTF-16.
std::string utf8_of(const wchar_t* wide, std::size_t length);

// The errno the C runtime gives the Windows error `code`.
int errno_of(DWORD code) noexcept;
// Sets errno from GetLastError() and returns -1, for an entry of the table that failed.
int fail_from_last_error() noexcept;
// Sets errno to `error` and returns -1.
int fail_with(int error) noexcept;

// A handle, closed exactly once, by its owner.
class owned_handle {
 public:
  explicit owned_handle(HANDLE handle = INVALID_HANDLE_VALUE) noexcept : handle_(handle) {}
  owned_handle(const owned_handle&) = delete;
  owned_handle& operator=(const owned_handle&) = delete;
  ~owned_handle() {
    if (*this) CloseHandle(handle_);
  }
  HANDLE get() const noexcept { return handle_; }
  explicit operator bool() const noexcept {
    return handle_ != INVALID_HANDLE_VALUE && handle_ != nullptr;
  }
  HANDLE release() noexcept {
    const HANDLE handle = handle_;
    handle_ = INVALID_HANDLE_VALUE;
    return handle;
  }

 private:
  HANDLE handle_;
};

}  // namespace mapout::detail::platform::windows
