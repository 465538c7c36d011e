// mapout::mapped_input: the bytes std::ifstream reads, for every size class and every kind of
// input, mapped or read into memory, and the errors the output side reports.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <random>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "child_process.hpp"
#include "mapout/input.hpp"
#include "mapout/output_file.hpp"
#include "system_call_override.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::mapped_input;
using mapout::detail::system_calls;
using mapout::test::read_file;
using mapout::test::temp_dir;
using mapout::test::write_file;

const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));

std::string random_bytes(std::size_t size, unsigned seed) {
  std::mt19937 random(seed);
  std::string bytes(size, '\0');
  for (char& c : bytes) c = static_cast<char>(random());
  return bytes;
}

// The message of a failure with `code`: its reason is the code's own text, strerror's on POSIX and
// Windows' on Windows.
std::string message(const char* operation, const std::filesystem::path& path,
                    const std::error_code& code) {
  return "mapout: " + std::string(operation) + " '" + path.string() + "': " + code.message();
}

TEST(MappedInput, EverySizeClassReadsWhatIfstreamReads) {
  temp_dir dir;
  for (const std::size_t size :
       {std::size_t{0}, std::size_t{1}, page - 1, page, page + 1, (std::size_t{5} << 20) + 17}) {
    SCOPED_TRACE(size);
    const auto path = dir / ("f" + std::to_string(size));
    write_file(path, random_bytes(size, static_cast<unsigned>(size)));
    for (const mapout::access advice :
         {mapout::access::normal, mapout::access::sequential, mapout::access::random}) {
      const mapped_input in(path, advice);
      EXPECT_TRUE(in.is_open());
      EXPECT_EQ(in.is_mapped(), size > 0);
      EXPECT_NE(in.data(), nullptr);
      EXPECT_EQ(in.view(), read_file(path));
      EXPECT_EQ(std::string(in.begin(), in.end()), read_file(path));
      EXPECT_FALSE(in.error());
      EXPECT_EQ(in.error_message(), "");
    }
  }
}

TEST(MappedInput, TmpfsFileIsMappedToo) {
  if (::access("/dev/shm", W_OK) != 0) GTEST_SKIP() << "no writable /dev/shm";
  const std::filesystem::path path = "/dev/shm/mapout-input-test-" + std::to_string(::getpid());
  write_file(path, random_bytes(3 * page + 5, 7));
  {
    const mapped_input in(path);
    EXPECT_TRUE(in.is_mapped());
    EXPECT_EQ(in.view(), read_file(path));
  }
  std::filesystem::remove(path);
}

TEST(MappedInput, MissingFileThrowsTheOutputSidesMessage) {
  temp_dir dir;
  const auto path = dir / "missing" / "f";
  mapout::output_file out;
  ASSERT_TRUE(out.open(path));
  try {
    const mapped_input in(path);
    ADD_FAILURE() << "no exception";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_file_or_directory);
    EXPECT_EQ(std::string(e.what()), message("open", path, e.code()));
    EXPECT_EQ(std::string(e.what()), out.error_message());
  }
}

TEST(MappedInput, OpenReturnsTheErrorWithoutThrowing) {
  temp_dir dir;
  mapped_input in;
  const std::error_code ec = in.open(dir / "missing");
  EXPECT_EQ(ec, std::errc::no_such_file_or_directory);
  EXPECT_FALSE(in.is_open());
  EXPECT_EQ(in.error(), ec);
  EXPECT_EQ(in.error_message(), message("open", dir / "missing", ec));
  EXPECT_EQ(in.path(), dir / "missing");
  EXPECT_EQ(in.size(), 0u);
  EXPECT_NE(in.data(), nullptr);
  // A later open that succeeds forgets the error.
  write_file(dir / "f", "abc");
  EXPECT_FALSE(in.open(dir / "f"));
  EXPECT_FALSE(in.error());
  EXPECT_EQ(in.view(), "abc");
}

TEST(MappedInput, DirectoryFailsToRead) {
  temp_dir dir;
  mapped_input in;
  const std::error_code ec = in.open(dir.path());
#ifdef _WIN32
  // Windows opens no directory as a file: the open is refused, as std::ifstream's is.
  EXPECT_FALSE(std::ifstream(dir.path()).is_open());
  EXPECT_EQ(ec, std::errc::permission_denied);
  EXPECT_EQ(in.error_message(), message("open", dir.path(), ec));
#else
  EXPECT_EQ(ec, std::errc::is_a_directory);
  EXPECT_EQ(in.error_message(), message("read", dir.path(), ec));
#endif
}

#ifndef _WIN32
TEST(MappedInput, PipeIsReadIntoMemory) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  const std::string bytes = random_bytes((std::size_t{1} << 20) + 3, 11);
  std::thread writer([&] {
    mapout::test::write_all(ends[1], bytes);
    ::close(ends[1]);
  });
  const mapped_input in("/dev/fd/" + std::to_string(ends[0]));
  writer.join();
  ::close(ends[0]);
  EXPECT_FALSE(in.is_mapped());
  EXPECT_EQ(in.view(), bytes);
}

TEST(MappedInput, FifoIsReadIntoMemory) {
  temp_dir dir;
  const auto path = dir / "fifo";
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  const std::string bytes = random_bytes(200'000, 13);
  std::thread writer([&] { write_file(path, bytes); });
  const mapped_input in(path);
  writer.join();
  EXPECT_FALSE(in.is_mapped());
  EXPECT_EQ(in.view(), bytes);
}
#endif  // _WIN32

TEST(MappedInput, ProcFilesWhoseSizeIsZeroAreRead) {
  for (const char* path : {"/proc/self/cmdline", "/proc/filesystems"}) {
    SCOPED_TRACE(path);
    const mapped_input in(path);
    EXPECT_FALSE(in.is_mapped());
    EXPECT_FALSE(in.empty());
    EXPECT_EQ(in.view(), read_file(path));
  }
}

TEST(MappedInput, SysfsFileThatRefusesMmapIsRead) {
  const char* path = "/sys/kernel/mm/transparent_hugepage/enabled";
  if (::access(path, R_OK) != 0) GTEST_SKIP() << path << " is not readable here";
  const mapped_input in(path);
  EXPECT_FALSE(in.is_mapped());
  EXPECT_EQ(in.view(), read_file(path));
}

#ifndef _WIN32
TEST(MappedInput, ThreadThatBlocksSigbusReadsIntoMemory) {
  temp_dir dir;
  const std::string bytes = random_bytes(3 * page, 17);
  write_file(dir / "f", bytes);
  bool mapped = true;
  std::string seen;
  std::thread reader([&] {
    sigset_t bus;
    sigemptyset(&bus);
    sigaddset(&bus, SIGBUS);
    pthread_sigmask(SIG_BLOCK, &bus, nullptr);
    const mapped_input in(dir / "f");
    mapped = in.is_mapped();
    seen = std::string(in.view());
  });
  reader.join();
  EXPECT_FALSE(mapped);
  EXPECT_EQ(seen, bytes);
}
#endif  // _WIN32

TEST(MappedInput, MoveAndSwapCarryTheBytes) {
  temp_dir dir;
  write_file(dir / "a", "first");
  write_file(dir / "b", "second");
  mapped_input a(dir / "a");
  mapped_input moved(std::move(a));
  EXPECT_FALSE(a.is_open());  // NOLINT(bugprone-use-after-move): moved-from is closed
  EXPECT_EQ(a.view(), "");    // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(moved.view(), "first");
  mapped_input b(dir / "b");
  swap(moved, b);
  EXPECT_EQ(moved.view(), "second");
  EXPECT_EQ(b.view(), "first");
  moved = std::move(b);
  EXPECT_EQ(moved.view(), "first");
  EXPECT_FALSE(moved.close());
  EXPECT_FALSE(moved.is_open());
  EXPECT_EQ(moved.view(), "");
}

#ifndef _WIN32
// Another process cuts the file to one page while this one has it mapped: the lost pages read as
// zeroes, the process lives, and error() says what happened.
TEST(MappedInput, FileTruncatedByAnotherProcessReadsZeroesAndReportsEio) {
  temp_dir dir;
  const auto path = dir / "cut";
  write_file(path, std::string(64 * page, 'x'));
  const mapped_input in(path);
  ASSERT_TRUE(in.is_mapped());
  EXPECT_EQ(in.data()[page], 'x');  // faults some pages in before the cut
  const pid_t truncator =
      mapout::test::spawn([&] { return ::truncate(path.c_str(), static_cast<off_t>(page)); });
  ASSERT_EQ(mapout::test::wait_for(truncator), 0);
  const std::string_view bytes = in.view();
  EXPECT_EQ(std::count(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(page), 'x'),
            static_cast<std::ptrdiff_t>(page));
  EXPECT_EQ(std::count(bytes.begin() + static_cast<std::ptrdiff_t>(page), bytes.end(), '\0'),
            static_cast<std::ptrdiff_t>(bytes.size() - page));
  EXPECT_EQ(in.error(), std::errc::io_error);
  EXPECT_EQ(in.error_message(),
            message("read from a file truncated by another process", path, in.error()));
}
#endif  // _WIN32

TEST(MappedInput, FailedMapIsAnErrorWithItsOperation) {
  temp_dir dir;
  write_file(dir / "f", "abc");
  const mapout::test::system_call_override<&system_calls::mmap> no_memory(
      [](void*, std::size_t, int, int, int, off_t) -> void* {
        errno = ENOMEM;
        return MAP_FAILED;
      });
  mapped_input in;
  const std::error_code ec = in.open(dir / "f");
  EXPECT_EQ(ec, std::errc::not_enough_memory);
  EXPECT_EQ(in.error_message(), message("map", dir / "f", ec));
}

TEST(MappedInput, FileSystemThatRefusesMmapIsRead) {
  temp_dir dir;
  write_file(dir / "f", "not mappable here");
  const mapout::test::system_call_override<&system_calls::mmap> no_device(
      [](void*, std::size_t, int, int, int, off_t) -> void* {
        errno = ENODEV;
        return MAP_FAILED;
      });
  const mapped_input in(dir / "f");
  EXPECT_FALSE(in.is_mapped());
  EXPECT_EQ(in.view(), "not mappable here");
}

#ifndef _WIN32
TEST(MappedInput, FailedReadIsAnErrorWithItsOperation) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  const auto path = std::filesystem::path("/dev/fd/" + std::to_string(ends[0]));
  const mapout::test::system_call_override<&system_calls::read> failing(
      [](int, void*, std::size_t) -> ssize_t {
        errno = EIO;
        return -1;
      });
  mapped_input in;
  const std::error_code ec = in.open(path);
  EXPECT_EQ(ec, std::errc::io_error);
  EXPECT_EQ(in.error_message(), message("read", path, ec));
  ::close(ends[0]);
  ::close(ends[1]);
}

TEST(MappedInput, InterruptedReadsAreRetried) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  ASSERT_TRUE(mapout::test::write_all(ends[1], "interrupted"));
  ::close(ends[1]);
  static int interruptions = 0;
  interruptions = 0;
  const mapout::test::system_call_override<&system_calls::read> interrupting(
      [](int fd, void* data, std::size_t size) -> ssize_t {
        if (interruptions++ % 2 == 0) {
          errno = EINTR;
          return -1;
        }
        return ::read(fd, data, std::min<std::size_t>(size, 3));
      });
  const mapped_input in("/dev/fd/" + std::to_string(ends[0]));
  ::close(ends[0]);
  EXPECT_EQ(in.view(), "interrupted");
  EXPECT_GT(interruptions, 4);
}
#endif  // _WIN32

TEST(MappedInput, ReopenedTwoThousandTimes) {
  temp_dir dir;
  write_file(dir / "f", std::string(2 * page, 'y'));
  mapped_input in;
  for (int i = 0; i < 2000; ++i) {
    ASSERT_FALSE(in.open(dir / "f"));
    ASSERT_TRUE(in.is_mapped());
  }
  EXPECT_EQ(in.view(), std::string(2 * page, 'y'));
}

}  // namespace
