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

#include "address_space_limit.hpp"
#include "child_process.hpp"
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

// POSIX moves no mapping: past its reservation the memory moves into one twice as large, the kept
// bytes copied and the rest zeros.
TEST_F(PortablePlatform, GrowingMemoryIsCopiedPastItsReservation) {
  owned_memory owned;
  mapout::detail::growing_memory& memory = owned.memory;
  {
    // A reservation the size of a part's first steps, as under an address-space limit.
    mapout::test::system_call_override<&mapout::detail::system_calls::mmap> limited(
        [](void* address, std::size_t length, int prot, int flags, int fd, off_t offset) {
          if (length > (std::size_t{1} << 20)) return errno = ENOMEM, MAP_FAILED;
          return mapout::detail::real_system_calls().mmap(address, length, prot, flags, fd, offset);
        });
    ASSERT_FALSE(mapout::detail::reserve_memory(memory));
  }
  ASSERT_EQ(memory.reserved, std::size_t{1} << 20);
  ASSERT_FALSE(mapout::detail::commit_memory(memory, 8192 + 4, 0));
  std::memcpy(memory.base + 8192, "part", 4);
  ASSERT_FALSE(mapout::detail::commit_memory(memory, 1 << 20, 8192 + 4));
  std::memcpy(memory.base + (1 << 20) - 4, "tail", 4);
  ASSERT_FALSE(mapout::detail::commit_memory(memory, (1 << 20) + 1, 8192 + 4));
  EXPECT_EQ(memory.reserved, std::size_t{2} << 20);
  EXPECT_GE(memory.usable, std::size_t{1} << 20);
  EXPECT_EQ(std::string(memory.base + 8192, 4), "part");
  EXPECT_EQ(memory.base[(1 << 20) - 4], 0) << "only the kept bytes are copied";
  memory.base[1 << 20] = 'x';
  EXPECT_FALSE(mapout::detail::release_memory(memory));
}

// Under `ulimit -v` a reservation takes a 64th of the limit, which alone is what POSIX tells.
TEST_F(PortablePlatform, GrowingMemoryReservesAShareOfTheLimit) {
  SKIP_UNLESS_ADDRESS_SPACE_CAN_BE_LIMITED();
  mapout::test::expect_ok(mapout::test::run_in_child([]() -> std::string {
    if (!mapout::test::limit_address_space(std::size_t{256} << 20)) return "setrlimit failed";
    struct rlimit limit;
    if (::getrlimit(RLIMIT_AS, &limit) != 0) return "getrlimit failed";
    owned_memory owned;
    mapout::detail::growing_memory& memory = owned.memory;
    if (mapout::detail::reserve_memory(memory)) return "reserve failed";
    if (memory.reserved > limit.rlim_cur / 64) return "reserved " + std::to_string(memory.reserved);
    if (mapout::detail::commit_memory(memory, 4, 0)) return "commit failed";
    std::memcpy(memory.base, "part", 4);
    if (mapout::detail::commit_memory(memory, memory.reserved + 1, 4)) return "growth failed";
    return std::string(memory.base, 4) == "part" ? "ok" : "bytes lost";
  }));
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
