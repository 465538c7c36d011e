// The join's copy of held parts into their places (lib/parallel/parallel_join.hpp), each way: the
// bytes land between the bytes already in the file, a stretch that cannot be mapped is written
// instead, and a failure is an error, never a crash. The way the strategy picks is tested too.
#include <gtest/gtest.h>

#ifndef _WIN32
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iterator>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "backends/strategy.hpp"
#include "bytes.hpp"
#include "file_system_type.hpp"
#include "mounted_file_system.hpp"
#include "parallel/parallel_join.hpp"
#include "platform/platform.hpp"
#include "system_call_override.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::detail::copy_into_place;
using mapout::detail::join_copy;
using mapout::detail::placed_copy;
using mapout::detail::real_system_calls;
using mapout::detail::system_calls;
using mapout::test::pattern;
using mapout::test::read_file;
using mapout::test::system_call_override;
using mapout::test::temp_dir;

struct way_case {
  const char* name;
  join_copy how;
};
const way_case ways[] = {{"write", join_copy::write}, {"map", join_copy::map}};

int open_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  EXPECT_GE(fd, 0) << path;
  return fd;
}

void write_at(int fd, const std::string& bytes, std::uint64_t offset) {
  ASSERT_EQ(::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset)),
            static_cast<ssize_t>(bytes.size()));
}

// The bytes pwrite(2) writes while it lives, from every thread of the join.
class written_bytes {
 public:
  written_bytes() { total() = 0; }
  std::size_t count() const { return total(); }

 private:
  static std::atomic<std::size_t>& total() {
    static std::atomic<std::size_t> bytes;
    return bytes;
  }
  system_call_override<&system_calls::pwrite> pwrite_{
      [](int fd, const void* data, std::size_t size, off_t offset) {
        const ssize_t wrote = real_system_calls().pwrite(fd, data, size, offset);
        if (wrote > 0) total() += static_cast<std::size_t>(wrote);
        return wrote;
      }};
};

// Whether this system populates a shared mapping of a file ahead of the stores: where not, the
// ways that map write every stretch instead.
bool populates(const std::filesystem::path& dir) {
  const int fd = open_file(dir / "probe");
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  bool populated = false;
  if (::ftruncate(fd, static_cast<off_t>(page)) == 0) {
    void* const map = ::mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map != MAP_FAILED) {
      populated = mapout::detail::platform::populate_for_writing(map, page);
      ::munmap(map, page);
    }
  }
  ::close(fd);
  ::unlink((dir / "probe").c_str());
  return populated;
}

// Random places among bytes already in the file: gaps of 0 to 3 pages and a few bytes, copies of
// 0 bytes to 9 MiB (several stretches), the last copy sometimes past the file's end.
TEST(ParallelJoin, CopiesLandBetweenTheBytesInPlace) {
  const temp_dir dir;
  std::mt19937 random(20261204);
  for (int layout = 0; layout < 12; ++layout) {
    const int copy_count = 1 + static_cast<int>(random() % 4);
    std::string expected;
    std::vector<std::string> held;
    std::vector<std::pair<std::string, std::uint64_t>> in_place;
    std::vector<std::uint64_t> offsets;
    for (int k = 0; k < copy_count; ++k) {
      std::string placed = pattern(random() % (3 * 4096 + 1), 2 * k);
      in_place.emplace_back(placed, expected.size());
      expected += placed;
      const std::size_t size = random() % 3 == 0 ? random() % 5000 : random() % (9 << 20);
      offsets.push_back(expected.size());
      held.push_back(pattern(size, 2 * k + 1));
      expected += held.back();
    }
    if (random() % 2 == 0) {
      const std::string tail = pattern(random() % 9000, 99);
      in_place.emplace_back(tail, expected.size());
      expected += tail;
    }
    for (const way_case& way : ways) {
      for (const unsigned threads : {1u, 2u, 3u}) {
        SCOPED_TRACE(std::string(way.name) + ", layout " + std::to_string(layout) + ", " +
                     std::to_string(threads) + " threads");
        const auto path = dir / "joined";
        const int fd = open_file(path);
        for (const auto& [bytes, offset] : in_place) write_at(fd, bytes, offset);
        std::vector<placed_copy> copies;
        for (std::size_t k = 0; k < held.size(); ++k) {
          copies.push_back({held[k].data(), held[k].size(), offsets[k]});
        }
        EXPECT_FALSE(copy_into_place(fd, copies, threads, way.how));
        ::close(fd);
        EXPECT_TRUE(read_file(path) == expected);
      }
    }
  }
}

std::size_t threads_of_this_process() {
  return static_cast<std::size_t>(
      std::distance(std::filesystem::directory_iterator("/proc/self/task"),
                    std::filesystem::directory_iterator{}));
}

// Buffered writes to one file take its lock in turn, so the caller writes every stretch alone,
// with no thread started, however many threads it may use.
TEST(ParallelJoin, StretchesWrittenStartNoThread) {
  if (!std::filesystem::exists("/proc/self/task")) GTEST_SKIP() << "no /proc/self/task to count";
  const temp_dir dir;
  static std::atomic<std::size_t> threads_while_writing;
  threads_while_writing = 0;
  const system_call_override<&system_calls::pwrite> count_threads(
      [](int fd, const void* data, std::size_t size, off_t offset) {
        threads_while_writing = std::max(threads_while_writing.load(), threads_of_this_process());
        return real_system_calls().pwrite(fd, data, size, offset);
      });
  const std::string held = pattern(9 << 20, 1);
  const int fd = open_file(dir / "joined");
  const std::size_t threads_before = threads_of_this_process();
  EXPECT_FALSE(copy_into_place(fd, {{held.data(), held.size(), 5}}, 3, join_copy::write));
  ::close(fd);
  EXPECT_TRUE(read_file(dir / "joined") == std::string(5, '\0') + held);
  EXPECT_EQ(threads_while_writing.load(), threads_before);
}

// No pwrite(2) of the join reaches 2 MiB, the size at which ext4 takes a 2 MiB folio for the
// page cache.
TEST(ParallelJoin, EachWriteStaysBelowTwoMiB) {
  const temp_dir dir;
  static std::atomic<std::size_t> largest;
  static std::atomic<std::size_t> calls;
  largest = 0;
  calls = 0;
  const system_call_override<&system_calls::pwrite> note_sizes(
      [](int fd, const void* data, std::size_t size, off_t offset) {
        largest = std::max(largest.load(), size);
        ++calls;
        return real_system_calls().pwrite(fd, data, size, offset);
      });
  const std::string held = pattern((9 << 20) + 7, 3);
  const int fd = open_file(dir / "joined");
  EXPECT_FALSE(copy_into_place(fd, {{held.data(), held.size(), 12}}, 2, join_copy::write));
  ::close(fd);
  EXPECT_TRUE(read_file(dir / "joined") == std::string(12, '\0') + held);
  EXPECT_LT(largest.load(), std::size_t{2} << 20);
  EXPECT_GE(calls.load(), held.size() >> 20);
}

// The caller alone maps every stretch.
TEST(ParallelJoin, TheWayThatMapsWritesNothingOnOneThreadWherePagesPopulate) {
  const temp_dir dir;
  if (!populates(dir.path())) GTEST_SKIP() << "this system populates no shared mapping ahead";
  const std::string head = pattern(4096 + 12, 1);
  const std::string held = pattern(9 << 20, 2);
  const int fd = open_file(dir / "joined");
  write_at(fd, head, 0);
  const written_bytes written;
  EXPECT_FALSE(copy_into_place(fd, {{held.data(), held.size(), head.size()}}, 1, join_copy::map));
  EXPECT_EQ(written.count(), 0u);
  ::close(fd);
  EXPECT_TRUE(read_file(dir / "joined") == head + held);
}

// Which threads wrote and which mapped during a join; the caller's first mapping waits until a
// helper has taken its stretch, so that a helper always copies one.
class copying_threads {
 public:
  copying_threads() {
    seen& s = shared();
    const std::lock_guard<std::mutex> lock(s.mutex);
    s.caller = std::this_thread::get_id();
    s.helper_started = false;
    s.writers.clear();
    s.mappers.clear();
  }
  std::set<std::thread::id> writing() const { return shared().writers; }
  std::set<std::thread::id> mapping() const { return shared().mappers; }

 private:
  struct seen {
    std::mutex mutex;
    std::condition_variable started;
    std::thread::id caller;
    bool helper_started = false;
    std::set<std::thread::id> writers;
    std::set<std::thread::id> mappers;
  };
  static seen& shared() {
    static seen s;
    return s;
  }
  static void note(std::set<std::thread::id> seen::*into) {
    seen& s = shared();
    std::unique_lock<std::mutex> lock(s.mutex);
    const std::thread::id self = std::this_thread::get_id();
    (s.*into).insert(self);
    if (self != s.caller) {
      s.helper_started = true;
      s.started.notify_all();
    } else {
      s.started.wait(lock, [&s] { return s.helper_started; });
    }
  }
  system_call_override<&system_calls::pwrite> pwrite_{
      [](int fd, const void* data, std::size_t size, off_t offset) {
        note(&seen::writers);
        return real_system_calls().pwrite(fd, data, size, offset);
      }};
  system_call_override<&system_calls::mmap> mmap_{
      [](void* address, std::size_t length, int prot, int flags, int fd, off_t offset) {
        if ((flags & MAP_SHARED) != 0) note(&seen::mappers);
        return real_system_calls().mmap(address, length, prot, flags, fd, offset);
      }};
};

// On two threads the helper writes while the caller maps: a write skips the zero-fill of a
// fault, and its inode lock does not stop the faults. On three, one thread at most writes.
TEST(ParallelJoin, TheWayThatMapsHasOneHelperWriteWhileTheOthersMap) {
  const temp_dir dir;
  if (!populates(dir.path())) GTEST_SKIP() << "this system populates no shared mapping ahead";
  const std::string head = pattern(4096 + 12, 7);
  const std::string held = pattern((13 << 20) + 5, 8);
  for (const unsigned threads : {2u, 3u}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    const int fd = open_file(dir / "joined");
    write_at(fd, head, 0);
    std::set<std::thread::id> writing;
    std::set<std::thread::id> mapping;
    {
      const copying_threads seen;
      EXPECT_FALSE(
          copy_into_place(fd, {{held.data(), held.size(), head.size()}}, threads, join_copy::map));
      writing = seen.writing();
      mapping = seen.mapping();
    }
    ::close(fd);
    EXPECT_TRUE(read_file(dir / "joined") == head + held);
    // The caller maps whatever stretches it takes, but on a loaded machine the helpers may take
    // them all first. With two threads the one helper has copied a stretch (the caller's first
    // mapping waits for it); with three, the mapping helper may have taken every one the caller
    // left.
    if (threads == 2) {
      ASSERT_EQ(writing.size(), 1u);
    } else {
      ASSERT_LE(writing.size(), 1u);
    }
    for (const std::thread::id writer : writing) {
      EXPECT_NE(writer, std::this_thread::get_id());
      EXPECT_EQ(mapping.count(writer), 0u);
    }
  }
}

// Each refusal makes the way that maps write every stretch, with the same bytes in the file.
void expect_every_stretch_written(const std::filesystem::path& dir) {
  const std::string head = pattern(100, 3);
  const std::string held = pattern(5 << 20, 4);
  for (const way_case& way : ways) {
    SCOPED_TRACE(way.name);
    const int fd = open_file(dir / "joined");
    write_at(fd, head, 0);
    const written_bytes written;
    EXPECT_FALSE(copy_into_place(fd, {{held.data(), held.size(), head.size()}}, 2, way.how));
    EXPECT_EQ(written.count(), held.size());
    ::close(fd);
    EXPECT_TRUE(read_file(dir / "joined") == head + held);
  }
}

TEST(ParallelJoin, AStretchThatCannotBeMappedIsWritten) {
  const temp_dir dir;
  const system_call_override<&system_calls::mmap> no_shared_maps(
      [](void* address, std::size_t length, int prot, int flags, int fd, off_t offset) {
        if ((flags & MAP_SHARED) != 0) return errno = ENOMEM, MAP_FAILED;
        return real_system_calls().mmap(address, length, prot, flags, fd, offset);
      });
  expect_every_stretch_written(dir.path());
}

TEST(ParallelJoin, AStretchWhosePagesCannotBeHadIsWritten) {
  const temp_dir dir;
  const system_call_override<&system_calls::madvise> no_pages(
      [](void*, std::size_t, int) { return errno = EFAULT, -1; });
  expect_every_stretch_written(dir.path());
}

TEST(ParallelJoin, AThreadThatBlocksSigbusWritesEveryStretch) {
  const temp_dir dir;
  sigset_t bus, before;
  sigemptyset(&bus);
  sigaddset(&bus, SIGBUS);
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, &bus, &before), 0);
  expect_every_stretch_written(dir.path());
  ASSERT_EQ(::pthread_sigmask(SIG_SETMASK, &before, nullptr), 0);
}

// Another process cuts the file after the pages were populated: the stores fault, and the guard
// makes the fault an error.
TEST(ParallelJoin, AFileCutDuringTheCopyIsAnErrorNotACrash) {
  const temp_dir dir;
  if (!populates(dir.path())) GTEST_SKIP() << "this system populates no shared mapping ahead";
  static int cut;
  const system_call_override<&system_calls::madvise> cut_after_populating(
      [](void* address, std::size_t length, int advice) {
        const int result = real_system_calls().madvise(address, length, advice);
        if (result == 0) ::ftruncate(cut, 0);
        return result;
      });
  const std::string held = pattern(1 << 20, 5);
  cut = open_file(dir / "joined");
  write_at(cut, "head", 0);
  const mapout::detail::error_cause why =
      copy_into_place(cut, {{held.data(), held.size(), 4}}, 1, join_copy::map);
  EXPECT_EQ(why.error, EIO);
  ASSERT_NE(why.operation, nullptr);
  EXPECT_EQ(std::string(why.operation), "store into a file truncated by another process");
  ::close(cut);
}

TEST(ParallelJoin, AFullFileSystemIsEnospcFromTheWrite) {
  mapout::test::mounted_file_system small("1m");
  if (!small.mounted()) GTEST_SKIP() << small.error();
  const std::string held = pattern(2 << 20, 6);
  for (const way_case& way : ways) {
    SCOPED_TRACE(way.name);
    const int fd = open_file(small / "joined");
    write_at(fd, "head", 0);
    const mapout::detail::error_cause why =
        copy_into_place(fd, {{held.data(), held.size(), 4}}, 2, way.how);
    EXPECT_EQ(why.error, ENOSPC);
    ASSERT_NE(why.operation, nullptr);
    EXPECT_EQ(std::string(why.operation), "write");
    ::close(fd);
    ::unlink((small / "joined").c_str());
  }
}

// The strategy's choice, on each file system it names.
template <class FileSystem>
join_copy join_copy_on(const std::filesystem::path& dir, const mapout::options& opts) {
  const FileSystem pretended;
  const int fd = open_file(dir / "target");
  const join_copy how = mapout::detail::join_copy_for(fd, opts);
  ::close(fd);
  return how;
}

TEST(ParallelJoin, TheStrategyMapsOnTmpfsAndElseWrites) {
  using mapout::test::file_system_type;
  const temp_dir dir;
  const mapout::options plain;
  EXPECT_EQ(join_copy_on<file_system_type<mapout::test::tmpfs_magic>>(dir.path(), plain),
            join_copy::map);
  EXPECT_EQ(join_copy_on<file_system_type<mapout::test::ext4_magic>>(dir.path(), plain),
            join_copy::write);
  EXPECT_EQ(join_copy_on<file_system_type<mapout::test::xfs_magic>>(dir.path(), plain),
            join_copy::write);
  EXPECT_EQ(join_copy_on<file_system_type<mapout::test::nfs_magic>>(dir.path(), plain),
            join_copy::write);
  mapout::options unguarded;
  unguarded.guard_faults = false;
  EXPECT_EQ(join_copy_on<file_system_type<mapout::test::tmpfs_magic>>(dir.path(), unguarded),
            join_copy::write);
  mapout::options buffered;
  buffered.strategy = mapout::strategy::buffered;
  EXPECT_EQ(join_copy_on<file_system_type<mapout::test::ext4_magic>>(dir.path(), buffered),
            join_copy::write);
}

}  // namespace
#endif  // _WIN32
