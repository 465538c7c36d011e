// The Windows port misused, run under Wine: targets another handle holds without sharing, read-only
// targets, reserved device names, names Win32 trims, alternate data streams, a directory as the
// target, paths past MAX_PATH, names outside ASCII and the BMP, times changed under
// write_if_changed, and a temporary's name taken before mapout makes it. Each either fails with a
// message that names the operation and the path and leaves the directory as it was, or does what
// std::ofstream of the same toolchain does there.
#include <gtest/gtest.h>
#include <windows.h>

#include <fcntl.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "mapout/options.hpp"
#include "mapout/ostream.hpp"
#include "platform/sys.hpp"
#include "system_call_override.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;

using mapout::test::temp_dir;

// The names in a directory, as Windows lists them.
std::set<std::wstring> names_in(const temp_dir& dir) {
  std::set<std::wstring> found;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    found.insert(entry.path().filename().wstring());
  }
  return found;
}

using mapout::test::read_file;
using mapout::test::write_file;

mapout::options with(mapout::strategy strategy, bool atomic = false) {
  mapout::options opts;
  opts.strategy = strategy;
  opts.atomic = atomic;
  return opts;
}

// Every writer a test tries: each strategy, in place and atomic.
struct writer {
  const char* name;
  mapout::options opts;
};
std::vector<writer> every_writer() {
  return {{"buffered", with(mapout::strategy::buffered)},
          {"mapped", with(mapout::strategy::mapped)},
          {"buffered atomic", with(mapout::strategy::buffered, true)},
          {"mapped atomic", with(mapout::strategy::mapped, true)}};
}

// "" when the stream failed as it should: no crash, not good, a message "mapout: <operation>
// '<path as given>': <reason>" with a reason; else what is wrong.
std::string named_failure(const mapout::ostream& out, const fs::path& path) {
  const std::string message = out.error_message();
  if (out) return "succeeded";
  if (!out.rdbuf()->error()) return "failed with no error: " + message;
  if (message.rfind("mapout: ", 0) != 0) return "message without mapout: " + message;
  const std::string quoted = "'" + path.string() + "': ";
  const std::size_t at = message.find(quoted);
  if (at == std::string::npos) return "message without " + quoted + ": " + message;
  if (at + quoted.size() == message.size()) return "message without a reason: " + message;
  return "";
}

// Writes `bytes` to `path` through mapout with `opts` and closes: whether it succeeded, with the
// failure's report in `why` otherwise.
bool write_through_mapout(const fs::path& path, const mapout::options& opts,
                          const std::string& bytes, std::string& why) {
  mapout::ostream out(path, std::ios::binary, opts);
  out << bytes;
  out.close();
  why = named_failure(out, path);
  return why == "succeeded";
}

bool write_through_ofstream(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  out.close();
  return !out.fail();
}

// The same bytes through std::ofstream in one directory and through mapout in another, each
// directory holding `existing` before: both succeed or both fail, with the same names left behind
// and the same bytes in each file that std::ofstream's directory has (a device is not read).
void expect_as_ofstream(const fs::path& name, const mapout::options& opts,
                        const std::string& existing = {}) {
  temp_dir reference;
  temp_dir dir;
  if (!existing.empty()) {
    write_file(reference / existing, "old");
    write_file(dir / existing, "old");
  }
  const std::string bytes = "hostile name\n";
  const bool ofstream_wrote = write_through_ofstream(reference / name, bytes);
  std::string why;
  const bool mapout_wrote = write_through_mapout(dir / name, opts, bytes, why);
  EXPECT_EQ(mapout_wrote, ofstream_wrote) << why;
  if (!mapout_wrote) {
    EXPECT_EQ(why, "");
  }
  EXPECT_EQ(names_in(dir), names_in(reference));
  for (const std::wstring& file : names_in(reference)) {
    EXPECT_EQ(read_file(dir / file), read_file(reference / file));
  }
}

// A handle on `path` that shares only `sharing`, as another program holds it.
class held_file {
 public:
  held_file(const fs::path& path, DWORD sharing)
      : handle_(CreateFileW(path.wstring().c_str(), GENERIC_READ, sharing, nullptr, OPEN_EXISTING,
                            FILE_ATTRIBUTE_NORMAL, nullptr)) {}
  held_file(const held_file&) = delete;
  held_file& operator=(const held_file&) = delete;
  ~held_file() {
    if (handle_ != INVALID_HANDLE_VALUE) CloseHandle(handle_);
  }
  bool held() const { return handle_ != INVALID_HANDLE_VALUE; }

 private:
  HANDLE handle_;
};

// ---- A target another program holds

// Most programs open with FILE_SHARE_READ alone: every writer is refused, as std::ofstream is, and
// the target keeps its bytes.
TEST(WindowsHostile, TargetHeldWithoutSharingWriteOrDeleteIsRefusedAndKept) {
  for (const writer& w : every_writer()) {
    SCOPED_TRACE(w.name);
    temp_dir dir;
    const fs::path path = dir / "held";
    write_file(path, "old");
    const held_file holder(path, FILE_SHARE_READ);
    ASSERT_TRUE(holder.held());
    EXPECT_FALSE(std::ofstream(path, std::ios::binary).is_open());
    std::string why;
    EXPECT_FALSE(write_through_mapout(path, w.opts, "new", why));
    EXPECT_EQ(why, "");
    EXPECT_EQ(read_file(path), "old");
    EXPECT_EQ(names_in(dir), std::set<std::wstring>{L"held"});
  }
}

// Shared for writing but not for deletion: an in-place writer may write as std::ofstream may; the
// atomic rename over it is refused at close, and the temporary goes.
TEST(WindowsHostile, TargetHeldWithoutSharingDeleteRefusesOnlyTheReplace) {
  for (const writer& w : every_writer()) {
    SCOPED_TRACE(w.name);
    temp_dir dir;
    const fs::path path = dir / "held";
    write_file(path, "old");
    const held_file holder(path, FILE_SHARE_READ | FILE_SHARE_WRITE);
    ASSERT_TRUE(holder.held());
    std::string why;
    const bool wrote = write_through_mapout(path, w.opts, "new", why);
    if (w.opts.atomic) {
      EXPECT_FALSE(wrote);
      EXPECT_EQ(why, "");
      EXPECT_EQ(read_file(path), "old");
    } else {
      EXPECT_TRUE(wrote) << why;
      EXPECT_EQ(read_file(path), "new");
    }
    EXPECT_EQ(names_in(dir), std::set<std::wstring>{L"held"});
  }
}

// ---- Read-only targets and directories

// FILE_ATTRIBUTE_READONLY: std::ofstream's open is refused (under Wine, as root, it is not): mapout
// in place or atomic does what it does, and the attribute stays.
TEST(WindowsHostile, ReadOnlyTargetIsWrittenOnlyWhereOfstreamWritesIt) {
  for (const writer& w : every_writer()) {
    SCOPED_TRACE(w.name);
    temp_dir reference;
    temp_dir dir;
    for (const temp_dir* each : {&reference, &dir}) {
      write_file(*each / "read-only", "old");
      ASSERT_TRUE(
          SetFileAttributesW((*each / "read-only").wstring().c_str(), FILE_ATTRIBUTE_READONLY));
    }
    const bool ofstream_wrote = write_through_ofstream(reference / "read-only", "new");
    std::string why;
    const bool mapout_wrote = write_through_mapout(dir / "read-only", w.opts, "new", why);
    EXPECT_EQ(mapout_wrote, ofstream_wrote) << why;
    if (!mapout_wrote) {
      EXPECT_EQ(why, "");
      EXPECT_EQ(mapout::ostream(dir / "read-only", std::ios::in | std::ios::out).rdbuf()->error(),
                std::errc::permission_denied);
    }
    EXPECT_EQ(read_file(dir / "read-only"), read_file(reference / "read-only"));
    EXPECT_NE(GetFileAttributesW((dir / "read-only").wstring().c_str()) & FILE_ATTRIBUTE_READONLY,
              0u);
    EXPECT_EQ(names_in(dir), names_in(reference));
    for (const temp_dir* each : {&reference, &dir}) {
      SetFileAttributesW((*each / "read-only").wstring().c_str(), FILE_ATTRIBUTE_NORMAL);
    }
  }
}

// The directory holds `target` alone, still read-only and holding "old"; with its attribute
// cleared, the directory can be removed: no read-only temporary is left to stop it.
void expect_only_the_read_only_target(const temp_dir& dir, const fs::path& target) {
  EXPECT_EQ(names_in(dir), std::set<std::wstring>{target.filename().wstring()});
  EXPECT_EQ(read_file(target), "old");
  EXPECT_NE(GetFileAttributesW(target.wstring().c_str()) & FILE_ATTRIBUTE_READONLY, 0u);
  ASSERT_TRUE(SetFileAttributesW(target.wstring().c_str(), FILE_ATTRIBUTE_NORMAL));
  std::error_code failed;
  fs::remove_all(dir.path(), failed);
  EXPECT_FALSE(failed) << failed.message();
  EXPECT_FALSE(fs::exists(dir.path()));
}

// Windows refuses to rename over a read-only file (Wine, as root, does not: the seam refuses as
// Windows does). close() reports the rename, the target keeps its bytes, and the temporary, which
// carries the read-only attribute too, goes.
TEST(WindowsHostile, ReadOnlyTargetWhoseReplaceIsRefusedLeavesNoTemporary) {
  for (const writer& w : every_writer()) {
    if (!w.opts.atomic) continue;
    SCOPED_TRACE(w.name);
    temp_dir dir;
    const fs::path path = dir / "read-only";
    write_file(path, "old");
    ASSERT_TRUE(SetFileAttributesW(path.wstring().c_str(), FILE_ATTRIBUTE_READONLY));
    mapout::ostream out(path, std::ios::binary, w.opts);
    out << "new";
    {
      const mapout::test::system_call_override<&mapout::detail::system_calls::renameat> refused(
          [](int, const char*, int, const char*) {
            errno = EACCES;
            return -1;
          });
      out.close();
    }
    EXPECT_EQ(named_failure(out, path), "");
    EXPECT_EQ(out.rdbuf()->error(), std::errc::permission_denied);
    EXPECT_EQ(out.error_message().rfind("mapout: rename ", 0), 0u) << out.error_message();
    expect_only_the_read_only_target(dir, path);
  }
}

// discard() of a read-only target's replacement: the temporary, read-only from its creation, goes.
TEST(WindowsHostile, ReadOnlyTargetDiscardedLeavesNoTemporary) {
  for (const writer& w : every_writer()) {
    if (!w.opts.atomic) continue;
    SCOPED_TRACE(w.name);
    temp_dir dir;
    const fs::path path = dir / "read-only";
    write_file(path, "old");
    ASSERT_TRUE(SetFileAttributesW(path.wstring().c_str(), FILE_ATTRIBUTE_READONLY));
    mapout::ostream out(path, std::ios::binary, w.opts);
    ASSERT_TRUE(out.is_open()) << out.error_message();
    out << "new";
    out.discard();
    EXPECT_FALSE(out.rdbuf()->error()) << out.error_message();
    expect_only_the_read_only_target(dir, path);
  }
}

TEST(WindowsHostile, DirectoryAsTheTargetIsRefusedAndKept) {
  for (const writer& w : every_writer()) {
    SCOPED_TRACE(w.name);
    temp_dir dir;
    fs::create_directory(dir / "sub");
    write_file(dir / "sub" / "inside", "kept");
    for (const fs::path& path : {dir / "sub", fs::path((dir / "sub").wstring() + L"\\")}) {
      SCOPED_TRACE(path.string());
      EXPECT_FALSE(std::ofstream(path, std::ios::binary).is_open());
      std::string why;
      EXPECT_FALSE(write_through_mapout(path, w.opts, "new", why));
      EXPECT_EQ(why, "");
    }
    EXPECT_TRUE(fs::is_directory(dir / "sub"));
    EXPECT_EQ(read_file(dir / "sub" / "inside"), "kept");
    EXPECT_EQ(names_in(dir), std::set<std::wstring>{L"sub"});
  }
}

// ---- Names Windows treats apart

// NUL, COM1 and a device name with an extension in any directory: the buffer writes to the device
// as std::ofstream does, atomic or not (a device is no file to replace); the mapping refuses it,
// as it refuses /dev/null.
TEST(WindowsHostile, ReservedDeviceNamesBehaveAsOfstream) {
  for (const char* name : {"NUL", "nul.txt", "aux.txt", "COM1"}) {
    SCOPED_TRACE(name);
    for (const writer& w : every_writer()) {
      SCOPED_TRACE(w.name);
      if (w.opts.strategy == mapout::strategy::buffered) {
        expect_as_ofstream(name, w.opts);
        continue;
      }
      temp_dir dir;
      mapout::ostream out(dir / name, std::ios::binary, w.opts);
      out << "x";
      out.close();
      EXPECT_EQ(named_failure(out, dir / name), "");
      EXPECT_EQ(out.rdbuf()->error(), std::errc::no_such_device);
      EXPECT_TRUE(names_in(dir).empty());
    }
  }
}

// Win32 drops a trailing dot or space from a name: the file is the one std::ofstream makes.
TEST(WindowsHostile, TrailingDotsAndSpacesNameTheFileOfstreamNames) {
  for (const writer& w : every_writer()) {
    SCOPED_TRACE(w.name);
    for (const char* name : {"name.", "name ", "name. .", "dots..."}) {
      SCOPED_TRACE(std::string("'") + name + "'");
      expect_as_ofstream(name, w.opts);
    }
    // Over the file the trimmed name names.
    expect_as_ofstream("name.", w.opts, "name");
    expect_as_ofstream("name ", w.opts, "name");
  }
}

// "file:stream" names an alternate data stream where the file system has them.
TEST(WindowsHostile, AlternateDataStreamBehavesAsOfstream) {
  for (const writer& w : every_writer()) {
    SCOPED_TRACE(w.name);
    expect_as_ofstream("file:stream", w.opts);
    expect_as_ofstream("file::$DATA", w.opts);
  }
}

TEST(WindowsHostile, NamesOutsideAsciiAndTheBmpBehaveAsOfstream) {
  for (const writer& w : every_writer()) {
    SCOPED_TRACE(w.name);
    for (const wchar_t* name :
         {L"caf\u00e9", L"\u65e5\u672c\u8a9e", L"\U0001F600 smile", L"\U00010348\U0001D11E"}) {
      expect_as_ofstream(name, w.opts);
    }
  }
}

// The names in a directory whose path may pass MAX_PATH, as FindFirstFileW lists them.
std::set<std::wstring> long_path_names(const fs::path& directory) {
  std::set<std::wstring> found;
  WIN32_FIND_DATAW entry;
  const HANDLE search = FindFirstFileW((L"\\\\?\\" + directory.wstring() + L"\\*").c_str(), &entry);
  if (search == INVALID_HANDLE_VALUE) return {L"(not listed)"};
  do {
    const std::wstring name = entry.cFileName;
    if (name != L"." && name != L"..") found.insert(name);
  } while (FindNextFileW(search, &entry));
  FindClose(search);
  return found;
}

// A path past MAX_PATH (260): written as std::ofstream of this toolchain writes it, or refused
// with a named error and nothing left (Wine's GetFinalPathNameByHandleW answers no such path,
// which a mapping's file system and a temporary beside the target need).
TEST(WindowsHostile, PathLongerThanMaxPathIsWrittenOrRefusedByName) {
  for (const writer& w : every_writer()) {
    SCOPED_TRACE(w.name);
    temp_dir reference;
    temp_dir dir;
    fs::path relative;
    for (int i = 0; i < 6; ++i) relative /= std::string(50, static_cast<char>('a' + i));
    fs::create_directories(reference / relative);
    fs::create_directories(dir / relative);
    const fs::path name = relative / "file";
    ASSERT_GT((dir / name).wstring().size(), std::size_t{MAX_PATH});
    ASSERT_TRUE(write_through_ofstream(reference / name, "long\n"));
    std::string why;
    if (write_through_mapout(dir / name, w.opts, "long\n", why)) {
      EXPECT_EQ(read_file(dir / name), "long\n");
      EXPECT_EQ(long_path_names(dir / relative), std::set<std::wstring>{L"file"});
    } else {
      EXPECT_EQ(why, "");
      EXPECT_EQ(long_path_names(dir / relative), std::set<std::wstring>{});
    }
  }
}

// ---- Replacing

// Another handle sets the target's times while write_if_changed writes equal bytes, then other
// bytes: the file ends with the bytes written, and no temporary stays.
TEST(WindowsHostile, WriteIfChangedOverAFileWhoseTimesAnotherHandleChanges) {
  for (const auto strategy : {mapout::strategy::buffered, mapout::strategy::mapped}) {
    for (const std::string& bytes : {std::string("equal bytes"), std::string("other bytes")}) {
      SCOPED_TRACE(bytes);
      temp_dir dir;
      const fs::path path = dir / "target";
      write_file(path, "equal bytes");
      mapout::options opts = with(strategy);
      opts.write_if_changed = true;
      mapout::ostream out(path, std::ios::binary, opts);
      ASSERT_TRUE(out.is_open()) << out.error_message();
      out << bytes;
      {
        const HANDLE other = CreateFileW(path.wstring().c_str(), FILE_WRITE_ATTRIBUTES,
                                         FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                                         nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
        ASSERT_NE(other, INVALID_HANDLE_VALUE);
        FILETIME long_ago = {0x01234567u, 0x01d00000u};
        EXPECT_TRUE(SetFileTime(other, &long_ago, &long_ago, &long_ago));
        CloseHandle(other);
      }
      out.close();
      EXPECT_TRUE(out) << out.error_message();
      EXPECT_EQ(read_file(path), bytes);
      EXPECT_EQ(names_in(dir), std::set<std::wstring>{L"target"});
    }
  }
}

// The name of the temporary, taken just before mapout makes it: mapout takes another, replaces the
// target, and leaves the other program's file as it was.
std::atomic<int> names_taken{0};
int (*real_openat)(int, const char*, int, mode_t) = nullptr;

int openat_after_taking_the_name(int directory, const char* name, int flags, mode_t mode) {
  if ((flags & O_EXCL) && std::string(name).find(".mapout-") != std::string::npos &&
      names_taken < 3) {
    ++names_taken;
    const int taken = real_openat(directory, name, O_CREAT | O_EXCL | O_WRONLY, 0644);
    if (taken >= 0) {
      mapout::detail::sys().write(taken, "theirs", 6);
      mapout::detail::sys().close(taken);
    }
  }
  return real_openat(directory, name, flags, mode);
}

TEST(WindowsHostile, AtomicWhoseTemporaryNameIsTakenFirstTakesAnother) {
  for (const auto strategy : {mapout::strategy::buffered, mapout::strategy::mapped}) {
    temp_dir dir;
    const fs::path path = dir / "target";
    write_file(path, "old");
    names_taken = 0;
    real_openat = mapout::detail::sys().openat;
    {
      const mapout::test::system_call_override<&mapout::detail::system_calls::openat> taking(
          openat_after_taking_the_name);
      std::string why;
      EXPECT_TRUE(write_through_mapout(path, with(strategy, true), "new", why)) << why;
    }
    EXPECT_EQ(read_file(path), "new");
    EXPECT_EQ(names_taken.load(), 3);
    std::size_t theirs = 0;
    for (const auto& entry : fs::directory_iterator(dir.path())) {
      if (entry.path().filename() == "target") continue;
      EXPECT_EQ(read_file(entry.path()), "theirs") << entry.path().string();
      ++theirs;
    }
    EXPECT_EQ(theirs, 3u);
  }
}

}  // namespace
