// The system-call table's portable entries on Windows: each POSIX call as the Win32 calls that do
// its work on the handle behind a C runtime descriptor, paths in UTF-8 opened as UTF-16 with
// CreateFileW, Windows errors as the C runtime's errno values. A mapping is a file mapping object
// and one view of it, the object closed at once: the view keeps it alive, and when the last view
// is unmapped nothing holds the file's size, so that the cut at close can set it.
#include <fcntl.h>
#include <io.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <string>

#include "platform/platform.hpp"
#include "platform/windows_support.hpp"

namespace mapout::detail::platform {
namespace {

using windows::fail_from_last_error;
using windows::fail_with;
using windows::handle_of;
using windows::owned_handle;

// The C runtime's calls take and return int sizes.
constexpr std::size_t largest_transfer = std::size_t{1} << 30;

constexpr DWORD share_all = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;

// What Windows counts from 1601 in 100 ns steps, in seconds since 1970.
time_t unix_time(LARGE_INTEGER windows_time) noexcept {
  constexpr long long seconds_1601_to_1970 = 11644473600LL;
  return static_cast<time_t>(windows_time.QuadPart / 10000000 - seconds_1601_to_1970);
}

// The C runtime's stat has a 16-bit st_ino and no change time; the file's index and volume say
// which file it is, and FileBasicInfo has the change time.
int stat_of_handle(HANDLE handle, struct stat* st) noexcept {
  BY_HANDLE_FILE_INFORMATION info;
  FILE_BASIC_INFO basic;
  if (!GetFileInformationByHandle(handle, &info) ||
      !GetFileInformationByHandleEx(handle, FileBasicInfo, &basic, sizeof basic)) {
    return fail_from_last_error();
  }
  *st = {};
  const std::uint64_t index = std::uint64_t{info.nFileIndexHigh} << 32 | info.nFileIndexLow;
  st->st_dev = info.dwVolumeSerialNumber;
  st->st_ino = static_cast<decltype(st->st_ino)>(index ^ index >> 16 ^ index >> 32 ^ index >> 48);
  const bool directory = (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0;
  const bool read_only = (info.dwFileAttributes & FILE_ATTRIBUTE_READONLY) != 0;
  st->st_mode = static_cast<decltype(st->st_mode)>((directory ? S_IFDIR | 0111 : S_IFREG) | 0444 |
                                                   (read_only ? 0 : 0222));
  st->st_nlink = static_cast<decltype(st->st_nlink)>(info.nNumberOfLinks);
  st->st_size = static_cast<off_t>(std::uint64_t{info.nFileSizeHigh} << 32 | info.nFileSizeLow);
  st->st_atime = unix_time(basic.LastAccessTime);
  st->st_mtime = unix_time(basic.LastWriteTime);
  st->st_ctime = unix_time(basic.ChangeTime);
  return 0;
}

int stat_of_descriptor(int fd, struct stat* st) noexcept {
  const HANDLE handle = handle_of(fd);
  if (handle == INVALID_HANDLE_VALUE) return -1;
  if (GetFileType(handle) != FILE_TYPE_DISK) return ::_fstat64(fd, st);
  return stat_of_handle(handle, st);
}

int stat_of_path(const std::wstring& path, struct stat* st) noexcept {
  const owned_handle file(CreateFileW(path.c_str(), FILE_READ_ATTRIBUTES, share_all, nullptr,
                                      OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr));
  if (!file) return fail_from_last_error();
  // A device (NUL, COM1, "aux.txt") or a pipe has no file information: its kind, as _fstat says.
  const DWORD type = GetFileType(file.get());
  if (type == FILE_TYPE_CHAR || type == FILE_TYPE_PIPE) {
    *st = {};
    st->st_mode =
        static_cast<decltype(st->st_mode)>((type == FILE_TYPE_CHAR ? S_IFCHR : S_IFIFO) | 0666);
    return 0;
  }
  return stat_of_handle(file.get(), st);
}

// The path of the directory `directory` is open on, for the *at calls; AT_FDCWD: none.
bool path_at(int directory, const char* name, std::wstring& path) noexcept {
  std::wstring leaf;
  if (!windows::utf16_of(name, leaf)) return false;
  if (directory == AT_FDCWD) {
    path = std::move(leaf);
    return true;
  }
  const HANDLE handle = handle_of(directory);
  if (handle == INVALID_HANDLE_VALUE) return false;
  try {
    path.resize(MAX_PATH);
    for (;;) {
      const DWORD length =
          GetFinalPathNameByHandleW(handle, path.data(), static_cast<DWORD>(path.size()), 0);
      if (length == 0) return fail_from_last_error() == 0;
      if (length < path.size()) {
        path.resize(length);
        break;
      }
      path.resize(length);
    }
    // The "\\?\" form takes a name as it is; without it, where the path fits, Win32 reads the
    // name as std::ofstream's open of the whole path does (trailing dots and spaces, devices).
    const bool unc = path.rfind(L"\\\\?\\UNC\\", 0) == 0;
    const std::size_t prefix = unc ? 6 : path.rfind(L"\\\\?\\", 0) == 0 ? 4 : 0;
    if (prefix != 0 && path.size() - prefix + 1 + leaf.size() < MAX_PATH) {
      path.erase(unc ? 2 : 0, prefix);
    }
    path += L'\\';
    path += leaf;
    return true;
  } catch (...) {
    errno = ENOMEM;
    return false;
  }
}

DWORD disposition_of(int flags) noexcept {
  if ((flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL)) return CREATE_NEW;
  if ((flags & (O_CREAT | O_TRUNC)) == (O_CREAT | O_TRUNC)) return CREATE_ALWAYS;
  if (flags & O_CREAT) return OPEN_ALWAYS;
  if (flags & O_TRUNC) return TRUNCATE_EXISTING;
  return OPEN_EXISTING;
}

// O_APPEND is Windows' own append: the data's end is the only place a write goes.
DWORD access_of(int flags) noexcept {
  const int mode = flags & O_ACCMODE;
  const DWORD read = mode == O_RDONLY || mode == O_RDWR ? GENERIC_READ : 0;
  if (mode == O_RDONLY) return read;
  if (flags & O_APPEND) {
    return read | FILE_APPEND_DATA | FILE_WRITE_ATTRIBUTES | FILE_WRITE_EA | FILE_READ_ATTRIBUTES |
           READ_CONTROL | SYNCHRONIZE;
  }
  return read | GENERIC_WRITE;
}

int open_path(const std::wstring& path, int flags, mode_t mode) noexcept {
  const bool directory = (flags & O_DIRECTORY) != 0;
  const bool attributes_only = directory || (flags & O_PATH) != 0;
  // O_TEMPORARY, the C runtime's own: the file goes with its last handle.
  const DWORD temporary =
      (flags & O_TEMPORARY) ? FILE_FLAG_DELETE_ON_CLOSE | FILE_ATTRIBUTE_TEMPORARY : 0;
  const DWORD attributes = attributes_only                          ? FILE_FLAG_BACKUP_SEMANTICS
                           : (flags & O_CREAT) && !(mode & S_IWUSR) ? FILE_ATTRIBUTE_READONLY
                           : temporary != 0                         ? temporary
                                                                    : FILE_ATTRIBUTE_NORMAL;
  owned_handle file(CreateFileW(path.c_str(),
                                attributes_only ? FILE_READ_ATTRIBUTES : access_of(flags),
                                share_all, nullptr, disposition_of(flags), attributes, nullptr));
  if (!file) return fail_from_last_error();
  if (directory) {
    struct stat st;
    if (stat_of_handle(file.get(), &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) return fail_with(ENOTDIR);
  }
  const int runtime_flags =
      (flags & O_APPEND) | ((flags & O_ACCMODE) == O_RDONLY || attributes_only ? _O_RDONLY : 0);
  const int fd = _open_osfhandle(reinterpret_cast<intptr_t>(file.get()), runtime_flags);
  if (fd < 0) return fail_with(EMFILE);
  file.release();
  return fd;
}

int open_at(int directory, const char* name, int flags, mode_t mode) noexcept {
  std::wstring path;
  return path_at(directory, name, path) ? open_path(path, flags, mode) : -1;
}

int stat_at(int directory, const char* name, struct stat* st, int) noexcept {
  std::wstring path;
  return path_at(directory, name, path) ? stat_of_path(path, st) : -1;
}

// A positioned transfer through a synchronous handle moves its file pointer: put it back, as
// pread and pwrite leave the offset alone.
template <class Transfer>
ssize_t at_offset(int fd, off_t offset, Transfer transfer) noexcept {
  const HANDLE handle = handle_of(fd);
  if (handle == INVALID_HANDLE_VALUE) return -1;
  if (offset < 0) return fail_with(EINVAL);
  LARGE_INTEGER position;
  const LARGE_INTEGER zero = {};
  if (!SetFilePointerEx(handle, zero, &position, FILE_CURRENT)) return fail_from_last_error();
  OVERLAPPED at = {};
  at.Offset = static_cast<DWORD>(static_cast<std::uint64_t>(offset));
  at.OffsetHigh = static_cast<DWORD>(static_cast<std::uint64_t>(offset) >> 32);
  DWORD done = 0;
  const bool transferred = transfer(handle, &done, &at);
  const DWORD error = GetLastError();
  SetFilePointerEx(handle, position, nullptr, FILE_BEGIN);
  if (transferred) return static_cast<ssize_t>(done);
  if (error == ERROR_HANDLE_EOF) return 0;
  errno = windows::errno_of(error);
  return -1;
}

ssize_t read_at(int fd, void* data, std::size_t size, off_t offset) noexcept {
  const auto length = static_cast<DWORD>(std::min(size, largest_transfer));
  return at_offset(fd, offset, [&](HANDLE handle, DWORD* done, OVERLAPPED* at) {
    return ReadFile(handle, data, length, done, at) != 0;
  });
}

ssize_t write_at(int fd, const void* data, std::size_t size, off_t offset) noexcept {
  const auto length = static_cast<DWORD>(std::min(size, largest_transfer));
  return at_offset(fd, offset, [&](HANDLE handle, DWORD* done, OVERLAPPED* at) {
    return WriteFile(handle, data, length, done, at) != 0;
  });
}

int set_size(int fd, off_t length) noexcept {
  const HANDLE handle = handle_of(fd);
  if (handle == INVALID_HANDLE_VALUE) return -1;
  if (length < 0) return fail_with(EINVAL);
  FILE_END_OF_FILE_INFO end;
  end.EndOfFile.QuadPart = length;
  return SetFileInformationByHandle(handle, FileEndOfFileInfo, &end, sizeof end)
             ? 0
             : fail_from_last_error();
}

void* map(void* address, std::size_t length, int protection, int flags, int fd,
          off_t offset) noexcept {
  const auto granularity = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  if (address != nullptr || flags != MAP_SHARED || length == 0 || offset < 0 ||
      static_cast<std::uint64_t>(offset) % granularity != 0) {
    errno = EINVAL;
    return MAP_FAILED;
  }
  const HANDLE file = handle_of(fd);
  if (file == INVALID_HANDLE_VALUE) return MAP_FAILED;
  const bool writable = (protection & PROT_WRITE) != 0;
  // A writable mapping's size is its view's end: past the file's end it extends the file, its
  // clusters reserved first, so that a full disk fails here. A read-only one is the file's size.
  const std::uint64_t end = writable ? static_cast<std::uint64_t>(offset) + length : 0;
  // mmap(2) never fails with EINTR, so no caller retries it: the reservation inside is retried
  // here.
  if (writable && retry_on_eintr(sys().fallocate, fd, 0, 0, static_cast<off_t>(end)) != 0) {
    return MAP_FAILED;
  }
  const owned_handle mapping(
      CreateFileMappingW(file, nullptr, writable ? PAGE_READWRITE : PAGE_READONLY,
                         static_cast<DWORD>(end >> 32), static_cast<DWORD>(end), nullptr));
  if (!mapping) {
    fail_from_last_error();
    return MAP_FAILED;
  }
  const auto from = static_cast<std::uint64_t>(offset);
  void* const view =
      MapViewOfFile(mapping.get(), writable ? FILE_MAP_WRITE : FILE_MAP_READ,
                    static_cast<DWORD>(from >> 32), static_cast<DWORD>(from), length);
  if (view == nullptr) {
    fail_from_last_error();
    return MAP_FAILED;
  }
  return view;
}

// Views are only ever unmapped whole in lib/.
int unmap(void* address, std::size_t) noexcept {
  return UnmapViewOfFile(address) ? 0 : fail_from_last_error();
}

// Windows takes no advice on how a view will be read.
int advise(void*, std::size_t, int) noexcept {
  return 0;
}

int sync_file(int fd) noexcept {
  const HANDLE handle = handle_of(fd);
  if (handle == INVALID_HANDLE_VALUE) return -1;
  BY_HANDLE_FILE_INFORMATION info;
  // A directory's entries are on disk when a rename returns (MOVEFILE_WRITE_THROUGH).
  if (GetFileInformationByHandle(handle, &info) &&
      (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0) {
    return 0;
  }
  return FlushFileBuffers(handle) ? 0 : fail_from_last_error();
}

// NtQueryInformationFile's FileAccessInformation: the only way to the access a handle was opened
// with, which F_GETFL reports.
struct file_access_information {
  ACCESS_MASK access;
};
struct io_status_block {
  union {
    LONG status;
    PVOID pointer;
  };
  ULONG_PTR information;
};
using query_information_file = LONG(WINAPI*)(HANDLE, io_status_block*, PVOID, ULONG, int);
constexpr int file_access_information_class = 8;

int access_flags(int fd) noexcept {
  const HANDLE handle = handle_of(fd);
  if (handle == INVALID_HANDLE_VALUE) return -1;
  static const auto query = reinterpret_cast<query_information_file>(reinterpret_cast<void*>(
      GetProcAddress(GetModuleHandleW(L"ntdll.dll"), "NtQueryInformationFile")));
  file_access_information information = {};
  io_status_block status = {};
  if (query == nullptr ||
      query(handle, &status, &information, sizeof information, file_access_information_class) < 0) {
    return fail_with(EBADF);
  }
  const bool reads = (information.access & FILE_READ_DATA) != 0;
  const bool writes = (information.access & FILE_WRITE_DATA) != 0;
  const bool appends = !writes && (information.access & FILE_APPEND_DATA) != 0;
  const int mode = (writes || appends) ? (reads ? O_RDWR : O_WRONLY) : O_RDONLY;
  return mode | (appends ? O_APPEND : 0);
}

// A handle's access is fixed when it is opened: F_SETFL can change nothing.
int status_flags(int fd, int command, int flags) noexcept {
  const int now = access_flags(fd);
  if (command == F_GETFL || now < 0) return now;
  if (command != F_SETFL) return fail_with(EINVAL);
  return (flags & O_APPEND) == (now & O_APPEND) ? 0 : fail_with(ENOTSUP);
}

int change_mode(int fd, mode_t mode) noexcept {
  const HANDLE handle = handle_of(fd);
  if (handle == INVALID_HANDLE_VALUE) return -1;
  FILE_BASIC_INFO basic;
  if (!GetFileInformationByHandleEx(handle, FileBasicInfo, &basic, sizeof basic)) {
    return fail_from_last_error();
  }
  // Windows keeps one bit of a mode: whether the file may be written.
  if (mode & S_IWUSR) {
    basic.FileAttributes &= ~static_cast<DWORD>(FILE_ATTRIBUTE_READONLY);
  } else {
    basic.FileAttributes |= FILE_ATTRIBUTE_READONLY;
  }
  if (basic.FileAttributes == 0) basic.FileAttributes = FILE_ATTRIBUTE_NORMAL;
  return SetFileInformationByHandle(handle, FileBasicInfo, &basic, sizeof basic)
             ? 0
             : fail_from_last_error();
}

int rename_at(int from_directory, const char* from, int to_directory, const char* to) noexcept {
  std::wstring from_path;
  std::wstring to_path;
  if (!path_at(from_directory, from, from_path) || !path_at(to_directory, to, to_path)) return -1;
  return MoveFileExW(from_path.c_str(), to_path.c_str(),
                     MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)
             ? 0
             : fail_from_last_error();
}

// unlink(2) asks nothing of the file's own bits, but DeleteFileW refuses a file with the
// read-only attribute, which a temporary made for a read-only target has: the attribute is
// cleared, the file deleted, and the attribute put back where the file stays all the same.
int delete_file(const std::wstring& path) noexcept {
  if (DeleteFileW(path.c_str())) return 0;
  const DWORD refused = GetLastError();
  const DWORD attributes = GetFileAttributesW(path.c_str());
  if (refused != ERROR_ACCESS_DENIED || attributes == INVALID_FILE_ATTRIBUTES ||
      (attributes & FILE_ATTRIBUTE_READONLY) == 0 || (attributes & FILE_ATTRIBUTE_DIRECTORY) != 0) {
    return fail_with(windows::errno_of(refused));
  }
  const DWORD writable = attributes & ~static_cast<DWORD>(FILE_ATTRIBUTE_READONLY);
  if (!SetFileAttributesW(path.c_str(), writable != 0 ? writable : FILE_ATTRIBUTE_NORMAL)) {
    return fail_with(windows::errno_of(refused));
  }
  if (DeleteFileW(path.c_str())) return 0;
  const DWORD failed = GetLastError();
  // The deletion's failure is the one reported, whether or not the attribute goes back.
  SetFileAttributesW(path.c_str(), attributes);
  return fail_with(windows::errno_of(failed));
}

int unlink_at(int directory, const char* name, int flags) noexcept {
  std::wstring path;
  if (!path_at(directory, name, path)) return -1;
  if (flags & AT_REMOVEDIR) return RemoveDirectoryW(path.c_str()) ? 0 : fail_from_last_error();
  return delete_file(path);
}

}  // namespace

void add_posix_calls(system_calls& calls) noexcept {
  calls.open = [](const char* path, int flags, mode_t mode) {
    return open_at(AT_FDCWD, path, flags, mode);
  };
  calls.close = ::_close;
  calls.stat = [](const char* path, struct stat* st) { return stat_at(AT_FDCWD, path, st, 0); };
  calls.fstat = stat_of_descriptor;
  calls.ftruncate = set_size;
  calls.mmap = map;
  calls.munmap = unmap;
  calls.madvise = advise;
  // Memory is committed by VirtualAlloc (windows.cpp), never by changing a view's protection.
  calls.mprotect = [](void*, std::size_t, int) { return fail_with(ENOTSUP); };
  calls.write = [](int fd, const void* data, std::size_t size) -> ssize_t {
    return ::_write(fd, data, static_cast<unsigned>(std::min(size, largest_transfer)));
  };
  calls.read = [](int fd, void* data, std::size_t size) -> ssize_t {
    return ::_read(fd, data, static_cast<unsigned>(std::min(size, largest_transfer)));
  };
  calls.pread = read_at;
  calls.pwrite = write_at;
  calls.status_flags = status_flags;
  calls.lseek = [](int fd, off_t offset, int whence) -> off_t {
    return ::_lseeki64(fd, offset, whence);
  };
  calls.fsync = sync_file;
  calls.fdatasync = sync_file;
  calls.openat = open_at;
  // No file is a symbolic link to mapout on Windows: fstatat reports none.
  calls.readlink = [](const char*, char*, std::size_t) -> ssize_t { return fail_with(EINVAL); };
  calls.fchmod = change_mode;
  calls.renameat = rename_at;
  calls.unlinkat = unlink_at;
  calls.fstatat = stat_at;
  // Files have no owner and group IDs to give.
  calls.fchown = [](int, uid_t, gid_t) { return fail_with(EPERM); };
}

}  // namespace mapout::detail::platform
