// A fresh directory for one test's files, removed with everything in it when the test ends, and
// reading a file back whole.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>
#ifdef _WIN32
#include <direct.h>
#include <io.h>
#include <windows.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ios>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

namespace mapout::test {

class temp_dir {
 public:
  temp_dir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "mapout-test-XXXXXX").string();
    if (!make_unique_directory(pattern)) {
      ADD_FAILURE() << "mkdtemp " << pattern << ": " << std::strerror(errno);
    }
    path_ = pattern;
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  ~temp_dir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }

  const std::filesystem::path& path() const noexcept { return path_; }
  std::filesystem::path operator/(const std::filesystem::path& name) const { return path_ / name; }

 private:
  // Replaces the pattern's XXXXXX with the name of a directory it has made.
  static bool make_unique_directory(std::string& pattern) {
#ifdef _WIN32
    return ::_mktemp_s(pattern.data(), pattern.size() + 1) == 0 && ::_mkdir(pattern.c_str()) == 0;
#else
    return ::mkdtemp(pattern.data()) != nullptr;
#endif
  }

  std::filesystem::path path_;
};

// What a reference std::filebuf adds to its mode to write the bytes as given, as mapout does:
// binary on Windows, where text mode writes "\n" as "\r\n".
#ifdef _WIN32
inline constexpr std::ios_base::openmode unchanged_bytes = std::ios_base::binary;
#else
inline constexpr std::ios_base::openmode unchanged_bytes = {};
#endif

// The whole file as bytes; "" when it cannot be read, which the caller's comparison then shows.
inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// "ok", or how the file differs from `want`: its size, or the first byte that differs.
inline std::string same_bytes(const std::filesystem::path& path, const std::string& want) {
  const std::string got = read_file(path);
  if (got.size() != want.size()) {
    return "size " + std::to_string(got.size()) + ", want " + std::to_string(want.size());
  }
  const auto at = std::mismatch(got.begin(), got.end(), want.begin()).first - got.begin();
  return got == want ? "ok" : "first difference at byte " + std::to_string(at);
}

// The path's own lstat (a link's, not its target's); Windows has no lstat, nor links here.
inline struct stat stat_of(const std::filesystem::path& path) {
  struct stat st = {};
#ifdef _WIN32
  EXPECT_EQ(::stat(path.string().c_str(), &st), 0) << path;
#else
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
#endif
  return st;
}

// Which file the path names: its device and inode, or on Windows, whose struct stat has no inode
// numbers, its volume's serial number and the file's index.
struct file_identity {
  unsigned long long device = 0;
  unsigned long long index = 0;
  bool operator==(const file_identity& other) const {
    return device == other.device && index == other.index;
  }
  bool operator!=(const file_identity& other) const { return !(*this == other); }
};

inline file_identity identity_of(const std::filesystem::path& path) {
#ifdef _WIN32
  const HANDLE file = CreateFileW(path.c_str(), FILE_READ_ATTRIBUTES,
                                  FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                                  OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr);
  BY_HANDLE_FILE_INFORMATION info = {};
  EXPECT_NE(file, INVALID_HANDLE_VALUE) << path;
  if (file == INVALID_HANDLE_VALUE) return {};
  EXPECT_TRUE(GetFileInformationByHandle(file, &info)) << path;
  CloseHandle(file);
  return {info.dwVolumeSerialNumber,
          static_cast<unsigned long long>(info.nFileIndexHigh) << 32 | info.nFileIndexLow};
#else
  const struct stat st = stat_of(path);
  return {static_cast<unsigned long long>(st.st_dev), static_cast<unsigned long long>(st.st_ino)};
#endif
}

// The names in `dir`, sorted: a temporary left behind shows up here.
inline std::vector<std::string> names_in(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace mapout::test
