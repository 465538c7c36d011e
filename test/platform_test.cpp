// The platform seam's answers on this system (lib/platform/platform.hpp): what each refuses as
// ENOTSUP, so that the shared code's one fallback runs, and what each gives back, on real files.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "address_space_limit.hpp"
#include "child_process.hpp"
#include "file_system_type.hpp"
#include "mapping/extent.hpp"
#include "owned_memory.hpp"
#include "platform/platform.hpp"
#include "system_call_override.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::detail::descriptor;
using mapout::detail::error_cause;
using mapout::detail::system_calls;
namespace platform = mapout::detail::platform;

template <int Error>
int failing_fallocate(int, int, off_t, off_t) {
  errno = Error;
  return -1;
}

template <int Error>
int failing_openat(int, const char*, int, mode_t) {
  errno = Error;
  return -1;
}

int failing_fstatfs(int, struct statfs*) {
  errno = EIO;
  return -1;
}

class Platform : public testing::Test {
 protected:
  // A regular file in the test's directory, open for reading and writing.
  int file(const std::string& name = "f") {
    files_.emplace_back(::open((dir_ / name).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    EXPECT_TRUE(files_.back()) << std::strerror(errno);
    return files_.back().get();
  }
  int directory() {
    files_.emplace_back(::open(dir_.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    return files_.back().get();
  }
  static off_t size_of(int fd) {
    struct stat st;
    return ::fstat(fd, &st) == 0 ? st.st_size : -1;
  }

  mapout::test::temp_dir dir_;
  std::vector<descriptor> files_;
};

using mapout::test::owned_memory;

TEST_F(Platform, ReserveGrowsTheFile) {
  const int fd = file();
  EXPECT_FALSE(platform::reserve(fd, 0, 12345));
  EXPECT_EQ(size_of(fd), 12345);
}

// A file system or kernel without the call is one answer, ENOTSUP, which the caller turns into a
// plain resize; a real failure keeps its errno and the call's name.
TEST_F(Platform, ReserveRefusedByTheFileSystemOrKernelIsNotSupported) {
  const int fd = file();
  {
    mapout::test::system_call_override<&system_calls::fallocate> none(failing_fallocate<ENOSYS>);
    const error_cause why = platform::reserve(fd, 0, 4096);
    EXPECT_EQ(why.error, ENOTSUP);
    EXPECT_STREQ(why.operation, "fallocate");
  }
  {
    mapout::test::system_call_override<&system_calls::fallocate> none(
        failing_fallocate<EOPNOTSUPP>);
    EXPECT_EQ(platform::reserve(fd, 0, 4096).error, ENOTSUP);
  }
  mapout::test::system_call_override<&system_calls::fallocate> full(failing_fallocate<ENOSPC>);
  EXPECT_EQ(platform::reserve(fd, 0, 4096).error, ENOSPC);
}

// Under a seccomp filter (ENOSYS) the extension still reaches its size, through ftruncate.
TEST_F(Platform, ExtensionWithoutReservationResizesTheFile) {
  const int fd = file();
  mapout::test::system_call_override<&system_calls::fallocate> none(failing_fallocate<ENOSYS>);
  const mapout::detail::extension_result grown = mapout::detail::extend_file(fd, {0, 0, 100, 8192});
  EXPECT_FALSE(grown.why);
  EXPECT_EQ(grown.extent, 8192u);
  EXPECT_EQ(size_of(fd), 8192);
}

TEST_F(Platform, UnnamedTemporaryHasNoNameUntilLinked) {
  descriptor temporary;
  const int dir = directory();
  ASSERT_FALSE(platform::create_unnamed_temporary(dir, 0600, temporary));
  struct stat st;
  ASSERT_EQ(::fstat(temporary.get(), &st), 0);
  EXPECT_EQ(st.st_nlink, 0u);
  ASSERT_EQ(::write(temporary.get(), "bytes", 5), 5);
  ASSERT_TRUE(platform::link_unnamed(temporary.get(), dir, "named"));
  EXPECT_EQ(mapout::test::read_file(dir_ / "named"), "bytes");
  EXPECT_FALSE(platform::link_unnamed(temporary.get(), dir, "named"));
  EXPECT_EQ(errno, EEXIST);
}

// EOPNOTSUPP from a file system, EISDIR from a kernel that does not know the flag: both ask for
// a named temporary. Other errors are the open's.
TEST_F(Platform, UnnamedTemporaryRefusedIsNotSupported) {
  const int dir = directory();
  descriptor temporary;
  {
    mapout::test::system_call_override<&system_calls::openat> old_kernel(failing_openat<EISDIR>);
    const error_cause why = platform::create_unnamed_temporary(dir, 0600, temporary);
    EXPECT_EQ(why.error, ENOTSUP);
    EXPECT_STREQ(why.operation, "open temporary");
  }
  mapout::test::system_call_override<&system_calls::openat> denied(failing_openat<EACCES>);
  EXPECT_EQ(platform::create_unnamed_temporary(dir, 0600, temporary).error, EACCES);
  EXPECT_FALSE(temporary);
}

TEST_F(Platform, HeldFileIsTheSameInodeAndNotWritable) {
  const int fd = file("held");
  descriptor held = platform::hold(directory(), "held");
  ASSERT_TRUE(held);
  struct stat a;
  struct stat b;
  ASSERT_EQ(::fstat(fd, &a), 0);
  ASSERT_EQ(::fstat(held.get(), &b), 0);
  EXPECT_TRUE(platform::same_version(b, a));
  EXPECT_EQ(::write(held.get(), "x", 1), -1);
}

TEST_F(Platform, SameVersionSeesAWrite) {
  const int fd = file();
  struct stat before;
  ASSERT_EQ(::fstat(fd, &before), 0);
  ASSERT_EQ(::write(fd, "x", 1), 1);
  struct stat after;
  ASSERT_EQ(::fstat(fd, &after), 0);
  EXPECT_FALSE(platform::same_version(after, before));
}

TEST_F(Platform, NameOfOpenFileOpensTheSameFile) {
  const int fd = file();
  char path[64];
  ASSERT_TRUE(platform::name_of_open_file(fd, path, sizeof path));
  const descriptor again(::open(path, O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(again);
  struct stat a;
  struct stat b;
  ASSERT_EQ(::fstat(fd, &a), 0);
  ASSERT_EQ(::fstat(again.get(), &b), 0);
  EXPECT_EQ(a.st_ino, b.st_ino);
  char tiny[4];
  EXPECT_FALSE(platform::name_of_open_file(fd, tiny, sizeof tiny));
}

// Past its first reservation the memory grows by mremap(2): the bytes stay, wherever it moves.
TEST_F(Platform, GrowingMemoryKeepsItsBytesPastItsReservation) {
  owned_memory owned;
  mapout::detail::growing_memory& memory = owned.memory;
  ASSERT_FALSE(mapout::detail::reserve_memory(memory));
  ASSERT_EQ(memory.usable, 0u);
  ASSERT_FALSE(mapout::detail::commit_memory(memory, 100, 0));
  ASSERT_GE(memory.usable, 100u);
  std::memcpy(memory.base, "part", 4);
  const std::size_t reserved = memory.reserved;
  ASSERT_FALSE(mapout::detail::commit_memory(memory, reserved + 1, 4));
  EXPECT_GT(memory.reserved, reserved);
  EXPECT_GE(memory.usable, reserved + 1);
  EXPECT_EQ(std::string(memory.base, 4), "part");
  EXPECT_EQ(memory.base[reserved], 0);
  memory.base[reserved] = 'x';
  EXPECT_FALSE(mapout::detail::release_memory(memory));
  EXPECT_EQ(memory.base, nullptr);
}

// Under an address-space limit the reservation is what the system gives, and it grows past it
// (by mremap(2) on Linux, by a copy in the portable build).
TEST_F(Platform, GrowingMemoryReservesLessWhereTheSystemGivesLess) {
  owned_memory owned;
  mapout::detail::growing_memory& memory = owned.memory;
  {
    mapout::test::system_call_override<&system_calls::mmap> limited(
        [](void* address, std::size_t length, int prot, int flags, int fd, off_t offset) {
          if (length > (std::size_t{64} << 20)) return errno = ENOMEM, MAP_FAILED;
          return mapout::detail::real_system_calls().mmap(address, length, prot, flags, fd, offset);
        });
    ASSERT_FALSE(mapout::detail::reserve_memory(memory));
  }
  EXPECT_EQ(memory.reserved, std::size_t{64} << 20);
  ASSERT_FALSE(mapout::detail::commit_memory(memory, 4, 0));
  std::memcpy(memory.base, "part", 4);
  ASSERT_FALSE(mapout::detail::commit_memory(memory, std::size_t{65} << 20, 4));
  EXPECT_EQ(std::string(memory.base, 4), "part");
  EXPECT_FALSE(mapout::detail::release_memory(memory));
}

// Where twice the reservation cannot be had, the memory grows to what is wanted: under an
// address-space limit a part takes the last of it.
TEST_F(Platform, GrowingMemoryGrowsToWhatIsWantedWhereTwiceCannotBeHad) {
  owned_memory owned;
  mapout::detail::growing_memory& memory = owned.memory;
  ASSERT_FALSE(mapout::detail::reserve_memory(memory));
  ASSERT_FALSE(mapout::detail::commit_memory(memory, 4, 0));
  std::memcpy(memory.base, "part", 4);
  const std::size_t wanted = memory.reserved + (std::size_t{1} << 20);
  static std::size_t largest;
  largest = wanted;
  mapout::test::system_call_override<&system_calls::mremap> limited(
      [](void* address, std::size_t length, std::size_t grown, int flags) {
        if (grown > largest) return errno = ENOMEM, MAP_FAILED;
        return mapout::detail::real_system_calls().mremap(address, length, grown, flags);
      });
  ASSERT_FALSE(mapout::detail::commit_memory(memory, wanted, 4));
  EXPECT_EQ(memory.reserved, wanted);
  EXPECT_EQ(memory.usable, wanted);
  EXPECT_EQ(std::string(memory.base, 4), "part");
  largest = 0;
  const error_cause why = mapout::detail::commit_memory(memory, wanted + 1, 4);
  EXPECT_EQ(why.error, ENOMEM);
  EXPECT_STREQ(why.operation, "grow memory");
  EXPECT_EQ(std::string(memory.base, 4), "part");
}

// Under `ulimit -v` a reservation takes a 64th of the address space left, so that the memories
// reserved after it get theirs too, and grows past it.
TEST_F(Platform, GrowingMemoryReservesAShareOfTheAddressSpaceLeft) {
  SKIP_UNLESS_ADDRESS_SPACE_CAN_BE_LIMITED();
  mapout::test::expect_ok(mapout::test::run_in_child([]() -> std::string {
    if (!mapout::test::limit_address_space(std::size_t{256} << 20)) return "setrlimit failed";
    owned_memory owned;
    mapout::detail::growing_memory& memory = owned.memory;
    if (mapout::detail::reserve_memory(memory)) return "reserve failed";
    if (memory.reserved > (std::size_t{4} << 20)) {
      return "reserved " + std::to_string(memory.reserved);
    }
    if (mapout::detail::commit_memory(memory, 4, 0)) return "commit failed";
    std::memcpy(memory.base, "part", 4);
    if (mapout::detail::commit_memory(memory, std::size_t{64} << 20, 4)) return "growth failed";
    return std::string(memory.base, 4) == "part" ? "ok" : "bytes lost";
  }));
}

TEST_F(Platform, FailedCommitLeavesTheMemoryAsItWas) {
  owned_memory owned;
  mapout::detail::growing_memory& memory = owned.memory;
  ASSERT_FALSE(mapout::detail::reserve_memory(memory));
  {
    mapout::test::system_call_override<&system_calls::mprotect> none(
        [](void*, std::size_t, int) { return errno = ENOMEM, -1; });
    const error_cause why = mapout::detail::commit_memory(memory, 4096, 0);
    EXPECT_EQ(why.error, ENOMEM);
    EXPECT_STREQ(why.operation, "commit memory");
  }
  EXPECT_EQ(memory.usable, 0u);
  EXPECT_FALSE(mapout::detail::release_memory(memory));
}

TEST_F(Platform, FileSystemKindByType) {
  const int fd = file();
  {
    const mapout::test::file_system_type<mapout::test::tmpfs_magic> pretend;
    EXPECT_EQ(platform::file_system_of(fd), platform::file_system_kind::in_memory);
  }
  {
    const mapout::test::file_system_type<mapout::test::ext4_magic> pretend;
    EXPECT_EQ(platform::file_system_of(fd), platform::file_system_kind::ext4);
  }
  {
    const mapout::test::file_system_type<mapout::test::xfs_magic> pretend;
    EXPECT_EQ(platform::file_system_of(fd), platform::file_system_kind::local);
  }
  {
    const mapout::test::file_system_type<mapout::test::nfs_magic> pretend;
    EXPECT_EQ(platform::file_system_of(fd), platform::file_system_kind::remote);
  }
  mapout::test::system_call_override<&system_calls::fstatfs> failing(failing_fstatfs);
  EXPECT_EQ(platform::file_system_of(fd), platform::file_system_kind::unknown);
}

// Locks belong to the description: a second open of the file by this process sees the first's
// lock, the holder does not, and an unlock removes it.
TEST_F(Platform, RangeLocksConflictBetweenDescriptionsOfOneProcess) {
  const int first = file("locked");
  const int second = file("locked");
  const platform::locked_range range = {off_t{1} << 40, 10};
  ASSERT_EQ(platform::lock_range(first, platform::lock_kind::shared, range, false), 0);
  platform::locked_range found;
  ASSERT_TRUE(
      platform::find_conflicting_lock(second, platform::lock_kind::exclusive, {0, 0}, found));
  EXPECT_EQ(found.start, range.start);
  EXPECT_EQ(found.length, range.length);
  EXPECT_FALSE(platform::find_conflicting_lock(second, platform::lock_kind::shared, range, found));
  EXPECT_FALSE(
      platform::find_conflicting_lock(first, platform::lock_kind::exclusive, range, found));
  EXPECT_EQ(platform::lock_range(second, platform::lock_kind::exclusive, range, false), -1);
  EXPECT_TRUE(errno == EAGAIN || errno == EACCES) << std::strerror(errno);
  ASSERT_EQ(platform::lock_range(first, platform::lock_kind::unlocked, range, false), 0);
  EXPECT_FALSE(
      platform::find_conflicting_lock(second, platform::lock_kind::exclusive, {0, 0}, found));
  EXPECT_EQ(platform::lock_range(second, platform::lock_kind::exclusive, range, false), 0);
}

// Another description of the file, as another process would open it, reads what was set.
TEST_F(Platform, AttributeSetIsSeenThroughAnotherDescriptionUntilRemoved) {
  const int writer = file("attributed");
  const int reader = file("attributed");
  char value[16];
  ASSERT_EQ(platform::get_attribute(reader, "mapout.test", value, sizeof value), -1);
  if (errno == ENOTSUP) GTEST_SKIP() << "the temporary directory keeps no user attributes";
  EXPECT_EQ(errno, ENODATA);
  ASSERT_EQ(platform::set_attribute(writer, "mapout.test", "4096", 4), 0) << std::strerror(errno);
  ASSERT_EQ(platform::get_attribute(reader, "mapout.test", value, sizeof value), 4);
  EXPECT_EQ(std::string(value, 4), "4096");
  ASSERT_EQ(platform::remove_attribute(reader, "mapout.test"), 0);
  EXPECT_EQ(platform::get_attribute(writer, "mapout.test", value, sizeof value), -1);
  EXPECT_EQ(errno, ENODATA);
}

TEST_F(Platform, FreeAddressSpaceLeavesRoomForASmallMapping) {
  EXPECT_GT(platform::free_address_space(), std::uint64_t{1} << 30);
}

}  // namespace
