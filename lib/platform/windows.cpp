// Windows' answers: reserving through the file's allocation size, named temporaries only, memory
// reserved and committed by VirtualAlloc, file systems by their drive type, no populating ahead,
// faults in views as a vectored exception handler sees them, no range locks, no extended
// attributes, and no symbolic-link or sticky-directory rules to apply.
#include <fcntl.h>
#include <io.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cwchar>
#include <string>

#include "platform/platform.hpp"
#include "platform/windows_support.hpp"

namespace mapout::detail::platform {
namespace {

using windows::handle_of;

// Zeros from `from` to `to`, past the file's end: the file system must give them clusters.
int write_zeros(int fd, std::uint64_t from, std::uint64_t to) noexcept {
  static const char zeros[64 << 10] = {};
  for (std::uint64_t at = from; at < to;) {
    const auto size = static_cast<std::size_t>(std::min<std::uint64_t>(sizeof zeros, to - at));
    if (write_all(fd, zeros, size, static_cast<off_t>(at)) != size) return -1;
    at += size;
  }
  return 0;
}

// fallocate(2) with mode 0: a file's allocation size reserves its clusters (a full disk fails
// here), and its end of file then takes them, zero-filled. Where the file system keeps no
// allocation size apart from the end (Wine's), zeros written past the end take them.
int allocate(int fd, int mode, off_t offset, off_t length) noexcept {
  const HANDLE handle = handle_of(fd);
  if (handle == INVALID_HANDLE_VALUE) return -1;
  if (mode != 0 || offset < 0 || length <= 0) return windows::fail_with(EINVAL);
  FILE_STANDARD_INFO standard;
  if (!GetFileInformationByHandleEx(handle, FileStandardInfo, &standard, sizeof standard)) {
    return windows::fail_from_last_error();
  }
  const LONGLONG end = offset + length;
  if (standard.EndOfFile.QuadPart >= end) return 0;
  FILE_ALLOCATION_INFO allocation;
  allocation.AllocationSize.QuadPart = end;
  if (!SetFileInformationByHandle(handle, FileAllocationInfo, &allocation, sizeof allocation)) {
    const DWORD error = GetLastError();
    if (error != ERROR_CALL_NOT_IMPLEMENTED && error != ERROR_INVALID_FUNCTION &&
        error != ERROR_NOT_SUPPORTED) {
      return windows::fail_from_last_error();
    }
    return write_zeros(fd, static_cast<std::uint64_t>(standard.EndOfFile.QuadPart),
                       static_cast<std::uint64_t>(end));
  }
  FILE_END_OF_FILE_INFO end_of_file;
  end_of_file.EndOfFile.QuadPart = end;
  return SetFileInformationByHandle(handle, FileEndOfFileInfo, &end_of_file, sizeof end_of_file)
             ? 0
             : windows::fail_from_last_error();
}

// mincore(2): nothing tells which pages of a file are in memory, so each may hold bytes, and the
// cut reads them back rather than lose any.
int all_resident(void*, std::size_t length, unsigned char* resident) noexcept {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t pages = (length + page - 1) / page;
  for (std::size_t page = 0; page < pages; ++page) resident[page] = 1;
  return 0;
}

// Growing memory's largest reservation: a 64-bit process has address space for many parts this
// large; under a limit a share of what is left, and a part outgrowing it is copied into a larger
// one (growing_memory.cpp).
constexpr std::size_t memory_reservation =
    sizeof(void*) >= 8 ? static_cast<std::size_t>(std::uint64_t{1} << 36) : std::size_t{1} << 28;

fault_server server = nullptr;

// A page of a view the file could not give: its address is the second of the exception's words.
LONG CALLBACK on_exception(EXCEPTION_POINTERS* exception) {
  const EXCEPTION_RECORD& record = *exception->ExceptionRecord;
  if (!is_mapping_fault(static_cast<int>(record.ExceptionCode)) || record.NumberParameters < 2) {
    return EXCEPTION_CONTINUE_SEARCH;
  }
  const DWORD saved_error = GetLastError();
  const bool served = server(static_cast<std::uintptr_t>(record.ExceptionInformation[1]));
  SetLastError(saved_error);
  return served ? EXCEPTION_CONTINUE_EXECUTION : EXCEPTION_CONTINUE_SEARCH;
}

}  // namespace

void add_system_calls(system_calls& calls) noexcept {
  calls.fallocate = allocate;
  calls.mincore = all_resident;
  calls.virtual_alloc = [](void* address, std::size_t size, unsigned long type,
                           unsigned long protection) -> void* {
    void* const memory = VirtualAlloc(address, size, type, protection);
    if (memory == nullptr) windows::fail_from_last_error();
    return memory;
  };
  calls.virtual_free = [](void* address, std::size_t size, unsigned long type) {
    return VirtualFree(address, size, type) ? 0 : windows::fail_from_last_error();
  };
}

// The generic form: lib/ finds a file's directory and name at its last '/'.
std::string path_text(const std::filesystem::path& path) {
  const auto text = path.generic_u8string();
  return std::string(text.begin(), text.end());
}

// A file's size cannot go below a section that maps it ("File has a user-mapped section").
bool cuts_under_mapped_views() noexcept {
  return false;
}

// msvcrt's _fdopen checks neither access nor '+', and 'a' changes nothing: the descriptor
// appends only if it was opened so.
bool fdopen_fits_descriptor() noexcept {
  return false;
}

// msvcrt's fopen("a") leaves the offset at 0 and seeks to the end at each write.
bool append_starts_at_end() noexcept {
  return false;
}

// msvcrt's fopen and _fdopen: spaces, 'r', 'w' or 'a' in either case, then letters up to a ','
// of which only '+' counts, anywhere in the string; then "ccs" and '=', spaces around each, and
// one of its three sets, with nothing after. 'x' is exclusive as ucrt and glibc read it
// (msvcrt.dll ignores it).
bool read_open_mode(const char* mode, bool, open_mode_letters& letters) noexcept {
  const auto skip_spaces = [&mode] {
    while (*mode == ' ') ++mode;
  };
  const auto starts = [&mode](const char* word) {
    const std::size_t length = std::strlen(word);
    if (_strnicmp(mode, word, length) != 0) return false;
    mode += length;
    return true;
  };
  letters = {};
  letters.update = std::strchr(mode, '+') != nullptr;
  skip_spaces();
  const char access = static_cast<char>(std::tolower(static_cast<unsigned char>(*mode)));
  if (access != 'r' && access != 'w' && access != 'a') return false;
  letters.access = access;
  for (++mode; *mode != '\0' && *mode != ','; ++mode) {
    if (*mode == 'x') letters.exclusive = true;
  }
  if (*mode == '\0') return true;
  ++mode;
  skip_spaces();
  if (std::strncmp(mode, "ccs", 3) != 0) return false;
  mode += 3;
  skip_spaces();
  if (*mode++ != '=') return false;
  skip_spaces();
  if (starts("utf-8")) {
    letters.bytes = true;
  } else if (starts("utf-16le") || starts("unicode")) {
    letters.bytes = false;
  } else {
    return false;
  }
  skip_spaces();
  return *mode == '\0';
}

// mingw-w64's own printf, which every C++ file calls (libstdc++ sets __USE_MINGW_ANSI_STDIO).
printf_dialect c_printf_dialect() noexcept {
  static_assert(__USE_MINGW_ANSI_STDIO, "the snprintf lib/ hands conversions to is mingw-w64's");
  printf_dialect dialect;
  dialect.space_before_unsigned = true;
  dialect.empty_alternate_octal_zero = true;
  dialect.glibc_lengths = false;
  return dialect;
}

std::string path_shown(const std::filesystem::path& path) {
  const auto text = path.u8string();
  return std::string(text.begin(), text.end());
}

error_cause reserve(int fd, std::uint64_t offset, std::uint64_t length) noexcept {
  return retry_on_eintr(sys().fallocate, fd, 0, static_cast<off_t>(offset),
                        static_cast<off_t>(length)) == 0
             ? error_cause{}
             : errno_failure("reserve");
}

error_cause create_unnamed_temporary(int, mode_t, descriptor&) noexcept {
  return {ENOTSUP, "open temporary"};
}

bool link_unnamed(int, int, const char*) noexcept {
  errno = ENOTSUP;
  return false;
}

// Attributes only: the file stays free to be read, written, renamed over and deleted.
descriptor hold(int directory, const char* name) noexcept {
  return descriptor(sys().openat(directory, name, O_PATH, mode_t{0}));
}

bool same_version(const struct stat& now, const struct stat& then) noexcept {
  return now.st_dev == then.st_dev && now.st_ino == then.st_ino && now.st_size == then.st_size &&
         now.st_mtime == then.st_mtime && now.st_ctime == then.st_ctime;
}

bool name_of_open_file(int fd, char* path, std::size_t size) noexcept {
  const HANDLE handle = handle_of(fd);
  if (handle == INVALID_HANDLE_VALUE) return false;
  wchar_t wide[MAX_PATH];
  const DWORD length = GetFinalPathNameByHandleW(handle, wide, MAX_PATH, 0);
  if (length == 0 || length >= MAX_PATH) return false;
  const std::string text = windows::utf8_of(wide, length);
  if (text.empty() || text.size() >= size) return false;
  text.copy(path, text.size());
  path[text.size()] = '\0';
  return true;
}

// A path too long for GetFinalPathNameByHandleW's MAX_PATH has no name here.
descriptor open_again(int fd) noexcept {
  char path[4 * MAX_PATH];
  if (!name_of_open_file(fd, path, sizeof path)) return errno = ENOTSUP, descriptor();
  return descriptor(retry_on_eintr(sys().open, path, O_RDWR | O_CLOEXEC, mode_t{0}));
}

std::size_t largest_memory_reservation() noexcept {
  return memory_reservation;
}

char* reserve_address_space(std::size_t size) noexcept {
  return static_cast<char*>(sys().virtual_alloc(nullptr, size, MEM_RESERVE, PAGE_NOACCESS));
}

bool make_usable(char* begin, std::size_t length) noexcept {
  return sys().virtual_alloc(begin, length, MEM_COMMIT, PAGE_READWRITE) != nullptr;
}

// Windows moves no reservation: it is all the memory there is.
bool address_space_moves() noexcept {
  return false;
}

char* move_address_space(char*, std::size_t, std::size_t) noexcept {
  errno = ENOTSUP;
  return nullptr;
}

bool release_address_space(char* base, std::size_t) noexcept {
  return sys().virtual_free(base, 0, MEM_RELEASE) == 0;
}

// NtQueryVolumeInformationFile's FileFsDeviceInformation: whether the volume is remote, from the
// handle alone, whatever the length of the file's path.
file_system_kind file_system_of(int fd) noexcept {
  const HANDLE handle = handle_of(fd);
  if (handle == INVALID_HANDLE_VALUE) return file_system_kind::unknown;
  struct io_status_block {
    union {
      LONG status;
      PVOID pointer;
    };
    ULONG_PTR information;
  };
  struct device_information {
    ULONG type;
    ULONG characteristics;
  };
  using query_volume = LONG(WINAPI*)(HANDLE, io_status_block*, PVOID, ULONG, int);
  constexpr int device_information_class = 4;
  constexpr ULONG remote_device = 0x10;
  static const auto query = reinterpret_cast<query_volume>(reinterpret_cast<void*>(
      GetProcAddress(GetModuleHandleW(L"ntdll.dll"), "NtQueryVolumeInformationFile")));
  io_status_block status = {};
  device_information device = {};
  if (query == nullptr ||
      query(handle, &status, &device, sizeof device, device_information_class) < 0) {
    return file_system_kind::unknown;
  }
  // A local volume's kind is not one measured on Linux; under Wine the buffer won the streaming
  // rows over the views (docs/decisions.md, "automatic on Windows").
  return (device.characteristics & remote_device) != 0 ? file_system_kind::remote
                                                       : file_system_kind::unnamed;
}

bool populate_for_writing(void*, std::size_t) noexcept {
  errno = ENOTSUP;
  return false;
}

std::uint64_t free_address_space() noexcept {
  MEMORYSTATUSEX status;
  status.dwLength = sizeof status;
  return GlobalMemoryStatusEx(&status) ? status.ullAvailVirtual : ~std::uint64_t{0};
}

// No fork: a process starts afresh.
bool at_fork(void (*)(), void (*)(), void (*)()) noexcept {
  return true;
}

// The tick count of the system's timer: 10-16 ms apart.
std::int64_t coarse_nanoseconds() noexcept {
  return static_cast<std::int64_t>(GetTickCount64()) * 1000000;
}

error_cause catch_mapping_faults(fault_server serve) noexcept {
  static const bool installed = [serve] {
    server = serve;
    return AddVectoredExceptionHandler(1, on_exception) != nullptr;
  }();
  return installed ? error_cause{} : error_cause{ENOMEM, "AddVectoredExceptionHandler"};
}

bool is_mapping_fault(int code) noexcept {
  return static_cast<DWORD>(code) == EXCEPTION_IN_PAGE_ERROR;
}

// Windows delivers the exception to the faulting thread whatever it blocks.
bool mapping_faults_blocked() noexcept {
  return false;
}

// A view cannot be replaced in place: the fault goes on.
bool map_scratch(std::uintptr_t, std::size_t) noexcept {
  return false;
}

// LockFileEx's locks are mandatory: a writer's claim would refuse other processes' reads and
// writes of its bytes. Each writer behaves as alone.
int lock_range(int, lock_kind, locked_range, bool) noexcept {
  return windows::fail_with(ENOTSUP);
}

bool find_conflicting_lock(int, lock_kind, locked_range, locked_range&) noexcept {
  return false;
}

ssize_t get_attribute(int, const char*, char*, std::size_t) noexcept {
  return windows::fail_with(ENOTSUP);
}

int set_attribute(int, const char*, const char*, std::size_t) noexcept {
  return windows::fail_with(ENOTSUP);
}

int remove_attribute(int, const char*) noexcept {
  return windows::fail_with(ENOTSUP);
}

// Windows has no sticky directories, and fstatat reports no symbolic links.
bool may_follow(const struct stat&, const struct stat&) noexcept {
  return true;
}

bool may_replace(const struct stat&, const struct stat&) noexcept {
  return true;
}

mode_t new_file_mode() noexcept {
  return 0666;
}

// The C runtime's struct stat names no owner.
bool owned_by_this_user(const struct stat&) noexcept {
  return true;
}

}  // namespace mapout::detail::platform
