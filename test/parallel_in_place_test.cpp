// mapout::parallel_output's parts whose place is known when they are first asked for (every part
// before them closed): they write straight into the file, their positions still counted from
// their own start, and the join copies none of their bytes.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <string>

#include "bytes.hpp"
#include "file_system_type.hpp"
#include "mapout/parallel.hpp"
#include "part_memory_calls.hpp"
#include "strategies.hpp"
#include "system_call_override.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::detail::real_system_calls;
using mapout::detail::system_calls;
using mapout::test::pattern;
using mapout::test::read_file;
using mapout::test::system_call_override;
using mapout::test::temp_dir;

// The memory made for parts and the bytes the join copies, while it lives. The join writes on a
// file system it has not measured, so that every byte it copies goes through pwrite(2).
class copy_count {
 public:
  copy_count() { counts().copied = 0; }
  int memories() const { return memory_.reservations(); }
  std::size_t copied() const { return counts().copied; }

 private:
  struct tally {
    std::atomic<std::size_t> copied{0};
  };
  static tally& counts() {
    static tally counts;
    return counts;
  }
  // Zeros are no part's bytes: Windows writes them to give a file clusters where its file system
  // keeps no allocation size apart from the end (Wine's), as the mapping extends the file.
  static bool zeros(const void* data, std::size_t size) {
    const char* const bytes = static_cast<const char*>(data);
    return std::all_of(bytes, bytes + size, [](char c) { return c == '\0'; });
  }
  mapout::test::part_memory_calls memory_;
  mapout::test::on_unmeasured_file_system writes_;
  system_call_override<&system_calls::pwrite> pwrite_{
      [](int fd, const void* data, std::size_t size, off_t offset) {
        const ssize_t wrote = real_system_calls().pwrite(fd, data, size, offset);
        if (wrote > 0 && !zeros(data, static_cast<std::size_t>(wrote))) {
          counts().copied += static_cast<std::size_t>(wrote);
        }
        return wrote;
      }};
};

TEST(ParallelInPlace, PartsHandedOnInOrderAreWrittenInPlaceWithNoCopy) {
  for (const auto& which : mapout::test::strategies()) {
    SCOPED_TRACE(which.name);
    const temp_dir dir;
    const std::string first = pattern(300000, 1);
    const std::string second = pattern(200000, 2);
    const std::string third = pattern(70000, 3);
    copy_count count;
    mapout::parallel_output out(dir / "joined", 3, which.opts);
    out.part(0) << first;
    out.part(0).close();
    mapout::ostream& part = out.part(1);
    EXPECT_EQ(static_cast<std::streamoff>(part.tellp()), 0);
    part << second;
    part.close();
    out.part(2) << third;
    ASSERT_FALSE(out.close()) << out.error_message();
    EXPECT_EQ(count.memories(), 0);
    EXPECT_EQ(count.copied(), 0u);
    EXPECT_TRUE(read_file(dir / "joined") == first + second + third);
  }
}

TEST(ParallelInPlace, PartInPlaceAfterOneInMemoryLeavesItsPlaceAndOnlyThatOneIsCopied) {
  for (const auto& which : mapout::test::strategies()) {
    SCOPED_TRACE(which.name);
    const temp_dir dir;
    const std::string first = pattern(5000, 4);
    const std::string held = pattern(150000, 5);
    const std::string placed = pattern(90000, 6);
    copy_count count;
    mapout::parallel_output out(dir / "joined", 3, which.opts);
    out.part(0) << first;
    // Part 1 runs ahead of its place: part 0 is still open.
    out.part(1) << held;
    out.part(0).close();
    out.part(1).close();
    out.part(2) << placed;
    ASSERT_FALSE(out.close()) << out.error_message();
    EXPECT_EQ(count.memories(), 1);
    EXPECT_EQ(count.copied(), held.size());
    EXPECT_TRUE(read_file(dir / "joined") == first + held + placed);
  }
}

// ext4 writes back at close a file truncated to nothing, so a part that starts where the file
// ends must not truncate it there: part 0 of a new file, and parts handed on in order.
TEST(ParallelInPlace, PartsStartingAtTheFilesEndNeverTruncateIt) {
  for (const auto& which : mapout::test::strategies()) {
    SCOPED_TRACE(which.name);
    const temp_dir dir;
    static int to_nothing;
    to_nothing = 0;
    const system_call_override<&system_calls::ftruncate> count{[](int fd, off_t length) {
      if (length == 0) ++to_nothing;
      return real_system_calls().ftruncate(fd, length);
    }};
    mapout::parallel_output out(dir / "joined", 3, which.opts);
    out.part(0) << pattern(70000, 8);
    out.part(0).close();
    out.part(1) << pattern(30000, 9);
    out.part(1).close();
    out.part(2) << "end";
    ASSERT_FALSE(out.close()) << out.error_message();
    EXPECT_EQ(to_nothing, 0);
    EXPECT_TRUE(read_file(dir / "joined") == pattern(70000, 8) + pattern(30000, 9) + "end");
  }
}

// A part in place behaves as a file of its own: no seek before its start, its end its own, a
// patch at its start after its end was written.
TEST(ParallelInPlace, PartInPlaceCountsPositionsFromItsOwnStart) {
  for (const auto& which : mapout::test::window_cases()) {
    SCOPED_TRACE(which.name);
    const temp_dir dir;
    mapout::parallel_output out(dir / "joined", 2, which.opts);
    out.part(0) << "head of part zero";
    out.part(0).close();
    mapout::ostream& part = out.part(1);
    part << "........" << pattern(20000, 7);
    const auto end = part.tellp();
    EXPECT_EQ(static_cast<std::streamoff>(end), 20008);
    part.seekp(-20009, std::ios::cur);
    EXPECT_TRUE(part.fail());
    part.clear();
    EXPECT_EQ(part.tellp(), end);
    part.seekp(-1, std::ios::beg);
    EXPECT_TRUE(part.fail());
    part.clear();
    part.seekp(0);
    part << "PATCHED!";
    part.seekp(0, std::ios::end);
    EXPECT_EQ(part.tellp(), end);
    part << "tail";
    ASSERT_FALSE(out.close()) << out.error_message();
    EXPECT_TRUE(read_file(dir / "joined") ==
                "head of part zeroPATCHED!" + pattern(20000, 7) + "tail");
  }
}

// A part in place writes through a descriptor of its own, which a program started meanwhile does
// not inherit: where the system names the open file it is opened again, elsewhere duplicated.
#ifndef _WIN32
TEST(ParallelInPlace, PartInPlaceDescriptorIsClosedAtExec) {
  const temp_dir dir;
  mapout::parallel_output out(dir / "joined", 2);
  mapout::ostream& part = out.part(0);
  part << "in place";
  ASSERT_GE(part.native_handle(), 0);
  const int flags = ::fcntl(part.native_handle(), F_GETFD);
  ASSERT_GE(flags, 0);
  EXPECT_NE(flags & FD_CLOEXEC, 0);
  out.part(1) << ", then held";
  ASSERT_FALSE(out.close()) << out.error_message();
  EXPECT_EQ(read_file(dir / "joined"), "in place, then held");
}
#endif

// Where no second descriptor can be had (the descriptor table is full), the part in place fails
// and close() names the operation and the output; the parts in memory are joined all the same.
TEST(ParallelInPlace, PartInPlaceWithoutASecondDescriptorIsReported) {
  const temp_dir dir;
  const auto path = dir / "joined";
  mapout::parallel_output out(path, 2);
  out.part(1) << "held";
  {
    const system_call_override<&system_calls::open> no_reopen(
        [](const char* name, int flags, mode_t mode) {
          if ((flags & O_CREAT) == 0) return errno = EMFILE, -1;
          return real_system_calls().open(name, flags, mode);
        });
    const system_call_override<&system_calls::duplicate> no_duplicate(
        [](int) { return errno = EMFILE, -1; });
    out.part(0) << "lost";
  }
  EXPECT_TRUE(out.part(0).fail());
  EXPECT_FALSE(out.part(0).is_open());
  EXPECT_EQ(out.close(), std::errc::too_many_files_open);
  EXPECT_EQ(out.error_message().rfind("mapout: open '" + path.string() + "': ", 0), 0u)
      << out.error_message();
  EXPECT_EQ(read_file(path), "held");
}

}  // namespace
