// The portable platform's own answers (lib/platform/portable.cpp, portable_rules.cpp), built only
// with -Dplatform=posix: what it reserves, makes, holds and refuses instead of Linux's calls.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "owned_memory.hpp"
#include "platform/platform.hpp"
#include "system_call_override.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::detail::descriptor;
using mapout::detail::error_cause;
using mapout::detail::platform::own_calls;
namespace platform = mapout::detail::platform;

template <int Error>
int failing_posix_fallocate(int, off_t, off_t) {
  return Error;
}

class PortablePlatform : public testing::Test {
 protected:
  int file(const std::string& name = "f") {
    file_ = descriptor(::open((dir_ / name).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    EXPECT_TRUE(file_) << std::strerror(errno);
    return file_.get();
  }

  mapout::test::temp_dir dir_;
  descriptor file_;
};

// A plain resize would leave a hole: the blocks are there, so a full disk fails here.
using mapout::test::owned_memory;

TEST_F(PortablePlatform, ReserveAllocatesTheBlocksWithPosixFallocate) {
  const int fd = file();
  constexpr off_t length = 1 << 20;
  EXPECT_FALSE(platform::reserve(fd, 0, length));
  struct stat st;
  ASSERT_EQ(::fstat(fd, &st), 0);
  EXPECT_EQ(st.st_size, length);
  EXPECT_GE(st.st_blocks * 512, length);
}

// posix_fallocate returns its error; a file system that cannot reserve is ENOTSUP, which the
// caller turns into a plain resize, and a full disk keeps ENOSPC.
TEST_F(PortablePlatform, ReserveRefusedByTheFileSystemIsNotSupported) {
  const int fd = file();
  {
    mapout::test::system_call_override<&own_calls::posix_fallocate> zfs(
        failing_posix_fallocate<EINVAL>);
    const error_cause why = platform::reserve(fd, 0, 4096);
    EXPECT_EQ(why.error, ENOTSUP);
    EXPECT_STREQ(why.operation, "posix_fallocate");
  }
  {
    mapout::test::system_call_override<&own_calls::posix_fallocate> none(nullptr);
    EXPECT_EQ(platform::reserve(fd, 0, 4096).error, ENOTSUP);
  }
  mapout::test::system_call_override<&own_calls::posix_fallocate> full(
      failing_posix_fallocate<ENOSPC>);
  EXPECT_EQ(platform::reserve(fd, 0, 4096).error, ENOSPC);
}

// POSIX moves no mapping: a part's memory is its reservation, and a size past it fails.
TEST_F(PortablePlatform, GrowingMemoryStopsAtItsReservation) {
  owned_memory owned;
  mapout::detail::growing_memory& memory = owned.memory;
  ASSERT_FALSE(mapout::detail::reserve_memory(memory));
  ASSERT_FALSE(mapout::detail::commit_memory(memory, 8192 + 4));
  std::memcpy(memory.base + 8192, "part", 4);
  ASSERT_FALSE(mapout::detail::commit_memory(memory, 1 << 20));
  EXPECT_EQ(std::string(memory.base + 8192, 4), "part");
  const error_cause why = mapout::detail::commit_memory(memory, memory.reserved + 1);
  EXPECT_EQ(why.error, ENOMEM);
  EXPECT_STREQ(why.operation, "commit memory");
  EXPECT_FALSE(mapout::detail::release_memory(memory));
}

TEST_F(PortablePlatform, NewFileModeIsTheUmasksAndLeavesItAsItWas) {
  const mode_t saved = ::umask(027);
  EXPECT_EQ(platform::new_file_mode(), mode_t{0640});
  EXPECT_EQ(::umask(saved), mode_t{027});
}

// Without O_PATH the target is opened for reading: a FIFO put there must not block it, and a
// link is not followed.
TEST_F(PortablePlatform, HoldOpensAFifoWithoutWaitingAndNoLink) {
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  ASSERT_EQ(::symlink("fifo", (dir_ / "link").c_str()), 0);
  const descriptor directory(::open(dir_.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  EXPECT_TRUE(platform::hold(directory.get(), "fifo"));
  EXPECT_FALSE(platform::hold(directory.get(), "link"));
  EXPECT_EQ(errno, ELOOP);
}

// Record locks of POSIX belong to the process: refused, so that each writer behaves as alone.
TEST_F(PortablePlatform, RangeLocksAreRefusedAndNoOtherWriterIsSeen) {
  const int fd = file();
  errno = 0;
  EXPECT_EQ(platform::lock_range(fd, platform::lock_kind::exclusive, {0, 1}, false), -1);
  EXPECT_EQ(errno, ENOTSUP);
  platform::locked_range found;
  EXPECT_FALSE(platform::find_conflicting_lock(fd, platform::lock_kind::exclusive, {0, 0}, found));
}

TEST_F(PortablePlatform, NoUnnamedTemporaryAndNoNameForAnOpenFile) {
  const descriptor directory(::open(dir_.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  descriptor temporary;
  EXPECT_EQ(platform::create_unnamed_temporary(directory.get(), 0600, temporary).error, ENOTSUP);
  EXPECT_FALSE(temporary);
  char path[64];
  EXPECT_FALSE(platform::name_of_open_file(file(), path, sizeof path));
  EXPECT_EQ(platform::file_system_of(file_.get()), platform::file_system_kind::unnamed);
}

}  // namespace
