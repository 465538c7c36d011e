// native_handle(): the open file's descriptor, borrowed, on output_file, streambuf and ostream.
#include <gtest/gtest.h>

#include <sys/stat.h>
#ifdef _WIN32
#include <io.h>
#include <windows.h>
#else
#include <sys/file.h>
#endif

#include <string>

#include "mapout/ostream.hpp"
#include "mapout/output_file.hpp"
#include "mapout/streambuf.hpp"
#include "strategies.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::read_file;
using mapout::test::strategies;
using mapout::test::temp_dir;

#ifdef _WIN32
// The descriptor names the file at `path`: same volume, same file index (Windows' struct stat
// has no inode, and its st_dev is a drive number that fstat leaves 0).
bool names(int fd, const std::filesystem::path& path) {
  BY_HANDLE_FILE_INFORMATION by_descriptor;
  BY_HANDLE_FILE_INFORMATION by_path;
  const auto handle = reinterpret_cast<HANDLE>(::_get_osfhandle(fd));
  const HANDLE named = ::CreateFileW(path.c_str(), FILE_READ_ATTRIBUTES,
                                     FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                                     nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
  const bool known = fd >= 0 && named != INVALID_HANDLE_VALUE &&
                     ::GetFileInformationByHandle(handle, &by_descriptor) &&
                     ::GetFileInformationByHandle(named, &by_path);
  if (named != INVALID_HANDLE_VALUE) ::CloseHandle(named);
  return known && by_descriptor.dwVolumeSerialNumber == by_path.dwVolumeSerialNumber &&
         by_descriptor.nFileIndexHigh == by_path.nFileIndexHigh &&
         by_descriptor.nFileIndexLow == by_path.nFileIndexLow;
}
#else
// The descriptor names the file at `path`: same device, same inode.
bool names(int fd, const std::filesystem::path& path) {
  struct stat by_descriptor;
  struct stat by_path;
  return fd >= 0 && ::fstat(fd, &by_descriptor) == 0 &&
         ::stat(path.string().c_str(), &by_path) == 0 && by_descriptor.st_dev == by_path.st_dev &&
         by_descriptor.st_ino == by_path.st_ino;
}
#endif

TEST(NativeHandle, IsMinusOneUnlessOpen) {
  temp_dir dir;
  mapout::output_file file;
  EXPECT_EQ(file.native_handle(), -1);
  ASSERT_FALSE(file.open(dir / "out"));
  EXPECT_GE(file.native_handle(), 0);
  mapout::output_file::window view = file.current();
  EXPECT_FALSE(file.close(view));
  EXPECT_EQ(file.native_handle(), -1);

  mapout::ostream out;
  EXPECT_EQ(out.native_handle(), -1);
  EXPECT_EQ(out.rdbuf()->native_handle(), -1);
}

// The same descriptor before and after the window has moved along the file.
TEST(NativeHandle, NamesTheFileOnEveryStrategy) {
  for (const auto& strategy : strategies()) {
    SCOPED_TRACE(strategy.name);
    temp_dir dir;
    mapout::ostream out(dir / "out", std::ios::out, strategy.opts);
    ASSERT_TRUE(out.is_open());
    EXPECT_TRUE(names(out.native_handle(), dir / "out"));
    out << std::string(1 << 20, 'x');
    EXPECT_TRUE(names(out.native_handle(), dir / "out"));
    EXPECT_EQ(out.native_handle(), out.rdbuf()->native_handle());
    EXPECT_EQ(out.native_handle(), out.rdbuf()->file().native_handle());
    out.close();
    EXPECT_TRUE(out);
    EXPECT_EQ(out.native_handle(), -1);
  }
}

#ifndef _WIN32
TEST(NativeHandle, TakesFchmodAndFlockWhileWritingGoesOn) {
  temp_dir dir;
  mapout::streambuf buf;
  ASSERT_NE(buf.open(dir / "locked", std::ios::out), nullptr);
  EXPECT_EQ(::flock(buf.native_handle(), LOCK_EX | LOCK_NB), 0);
  EXPECT_EQ(::fchmod(buf.native_handle(), 0640), 0);
  EXPECT_EQ(buf.sputn("locked\n", 7), 7);
  EXPECT_NE(buf.close(), nullptr);
  struct stat st;
  ASSERT_EQ(::stat((dir / "locked").string().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  EXPECT_EQ(read_file(dir / "locked"), "locked\n");
}
#endif  // _WIN32

}  // namespace
