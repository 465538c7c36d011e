// Every error path of the core, made to run by system calls that fail on purpose through the seam
// in lib/platform/sys.hpp. Each test checks what the caller sees: error(), the message naming the
// operation and the path, and the stream's failbit, badbit and exceptions.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <type_traits>

#include "bytes.hpp"
#include "failure_of.hpp"
#include "mapout/ostream.hpp"
#include "mapout/output_file.hpp"
#include "platform/sys.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::detail::real_system_calls;
using mapout::detail::sys;
using mapout::detail::system_calls;
using mapout::test::failure_of;
using mapout::test::read_file;
using mapout::test::temp_dir;

const std::size_t page = mapout::test::page_size();

// The failing entries share one plan: let `successes_left` calls through, then fail every call
// with `failure_errno`, counting the calls made.
int successes_left = 0;
int failure_errno = 0;
int calls_made = 0;

template <auto Entry>
struct failing;

// Table: system_calls, or platform::own_calls for a system's own entries.
template <class Table, class Result, class... Args, Result (*Table::*Entry)(Args...)>
struct failing<Entry> {
  static Result call(Args... args) {
    ++calls_made;
    if (successes_left > 0) {
      --successes_left;
      return (real_system_calls().*Entry)(args...);
    }
    errno = failure_errno;
    if constexpr (std::is_pointer_v<Result>) {
      return MAP_FAILED;
    } else {
      return Result(-1);
    }
  }
};

// Makes `Entry` fail with `error` after `successes` calls went through.
template <auto Entry>
void fail_after(int successes, int error) {
  successes_left = successes;
  failure_errno = error;
  calls_made = 0;
  sys().*Entry = &failing<Entry>::call;
}

// Every test starts and ends with the real calls, however it ends.
class FaultInjection : public testing::Test {
 protected:
  void SetUp() override { sys() = real_system_calls(); }
  void TearDown() override { sys() = real_system_calls(); }

  temp_dir dir_;
};

mapout::options using_strategy(mapout::strategy strategy, std::size_t reserve = 0) {
  mapout::options opts;
  opts.strategy = strategy;
  if (reserve) opts.mapping_size = reserve;
  return opts;
}

const mapout::options mapped = using_strategy(mapout::strategy::mapped);
const mapout::options buffered = using_strategy(mapout::strategy::buffered);

mapout::options using_buffer(std::size_t size) {
  mapout::options opts = buffered;
  opts.buffer_size = size;
  return opts;
}

mapout::options on_sigbus() {
  mapout::options opts = mapped;
  opts.extension = mapout::extension::on_fault;
  return opts;
}

std::size_t open_descriptors() {
  std::size_t count = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    ++count;
  }
  return count;
}

// "mapout: <operation> '<path>': <reason>"
std::string message(const std::string& operation, const std::filesystem::path& path, int error) {
  return "mapout: " + operation + " '" + path.string() + "': " + std::strerror(error);
}

const std::string text = mapout::test::pattern(3 << 20);

void write_text(mapout::ostream& out, std::size_t size = text.size()) {
  out.write(text.data(), static_cast<std::streamsize>(size));
}

// ---- Opening

TEST_F(FaultInjection, OpenFailureSetsFailbitAndNamesOpen) {
  fail_after<&system_calls::open>(0, EMFILE);
  mapout::ostream out(dir_ / "f");
  EXPECT_FALSE(out.is_open());
  EXPECT_TRUE(out.fail());
  EXPECT_EQ(out.rdbuf()->error(), std::errc::too_many_files_open);
  EXPECT_EQ(out.rdbuf()->error_message(), message("open", dir_ / "f", EMFILE));
}

TEST_F(FaultInjection, FstatFailureAtOpenFailsAndClosesTheDescriptor) {
  const std::size_t before = open_descriptors();
  fail_after<&system_calls::fstat>(0, EIO);
  mapout::ostream out(dir_ / "f");
  EXPECT_TRUE(out.fail());
  EXPECT_EQ(out.rdbuf()->error_message(), message("fstat", dir_ / "f", EIO));
  EXPECT_EQ(open_descriptors(), before);
}

TEST_F(FaultInjection, FstatfsFailureFallsBackToTheBufferOrFailsTheMappedStrategy) {
  fail_after<&system_calls::fstatfs>(0, EIO);
  mapout::ostream automatic(dir_ / "automatic");
  ASSERT_TRUE(automatic.is_open());
  EXPECT_FALSE(automatic.rdbuf()->file().is_mapped());
  automatic << "still written";
  automatic.close();
  EXPECT_TRUE(automatic);
  EXPECT_EQ(read_file(dir_ / "automatic"), "still written");

  const std::size_t before = open_descriptors();
  mapout::ostream forced(dir_ / "forced", std::ios::out, mapped);
  EXPECT_TRUE(forced.fail());
  EXPECT_EQ(forced.rdbuf()->error(), std::errc::no_such_device);
  EXPECT_EQ(forced.rdbuf()->error_message(), message("map", dir_ / "forced", ENODEV));
  EXPECT_EQ(open_descriptors(), before);
}

TEST_F(FaultInjection, LseekFailureAtOpenAtTheEndOfABufferedFile) {
  mapout::test::write_file(dir_ / "f", "existing");
  fail_after<&system_calls::lseek>(0, EIO);
  mapout::ostream out(dir_ / "f", std::ios::out | std::ios::in | std::ios::ate, buffered);
  EXPECT_TRUE(out.fail());
  EXPECT_EQ(out.rdbuf()->error_message(), message("lseek", dir_ / "f", EIO));
}

TEST_F(FaultInjection, MmapFailureAtOpenFailsAndClosesTheDescriptor) {
  const std::size_t before = open_descriptors();
  fail_after<&system_calls::mmap>(0, ENOMEM);
  mapout::ostream out(dir_ / "f", std::ios::out, mapped);
  EXPECT_TRUE(out.fail());
  EXPECT_EQ(out.rdbuf()->error_message(), message("mmap", dir_ / "f", ENOMEM));
  EXPECT_EQ(open_descriptors(), before);
}

// ---- The buffered strategy

TEST_F(FaultInjection, WriteFailureSetsBadbitAndThrowsWhenAsked) {
  mapout::ostream out(dir_ / "f", std::ios::out, buffered);
  out.exceptions(std::ios::badbit);
  fail_after<&system_calls::write>(0, EIO);
  std::error_code code;
  const std::string what = failure_of([&] { write_text(out); }, code);
  EXPECT_FALSE(what.empty()) << "no exception";
  EXPECT_EQ(code, std::errc::io_error);
  EXPECT_NE(what.find(message("write", dir_ / "f", EIO)), std::string::npos) << what;
  EXPECT_TRUE(out.bad());
  // Sticky: nothing more reaches the file, even once write(2) works again.
  sys() = real_system_calls();
  out.clear();
  out.exceptions(std::ios::goodbit);
  out << "more";
  out.flush();
  EXPECT_TRUE(out.bad());
  out.close();
  EXPECT_TRUE(out.fail());
  EXPECT_EQ(out.rdbuf()->error_message(), message("write", dir_ / "f", EIO));
}

TEST_F(FaultInjection, WriteTakingNothingIsEio) {
  mapout::ostream out(dir_ / "f", std::ios::out, buffered);
  sys().write = [](int, const void*, std::size_t) -> ssize_t { return 0; };
  write_text(out);
  EXPECT_TRUE(out.bad());
  EXPECT_EQ(out.rdbuf()->error(), std::errc::io_error);
}

TEST_F(FaultInjection, ShortAndInterruptedWritesLoseNothing) {
  mapout::ostream out(dir_ / "f", std::ios::out, buffered);
  sys().write = [](int fd, const void* data, std::size_t size) -> ssize_t {
    return real_system_calls().write(fd, data, size < 7 ? size : 7);
  };
  write_text(out, 100000);
  out.close();
  EXPECT_TRUE(out);
  EXPECT_EQ(read_file(dir_ / "f"), text.substr(0, 100000));
}

// Appending keeps the descriptor's own offset, so tell and seek ask the kernel.
TEST_F(FaultInjection, LseekFailureFailsTellAndSeekWhenAppending) {
  mapout::ostream out(dir_ / "f", std::ios::app, buffered);
  out << "abc";
  fail_after<&system_calls::lseek>(0, EIO);
  EXPECT_EQ(out.tellp(), std::streampos(-1));
  out.clear();
  out.seekp(1);
  EXPECT_TRUE(out.fail());
  EXPECT_FALSE(out.bad());
  sys() = real_system_calls();
  out.clear();
  out << "def";
  out.close();
  EXPECT_TRUE(out);
  EXPECT_EQ(read_file(dir_ / "f"), "abcdef");
}

// A length patched behind a record still in the buffer is a store: no lseek, no write.
TEST_F(FaultInjection, SeeksInsideTheBufferMakeNoSystemCall) {
  mapout::ostream out(dir_ / "f", std::ios::out, buffered);
  fail_after<&system_calls::lseek>(0, EIO);
  fail_after<&system_calls::write>(0, EIO);
  fail_after<&system_calls::pwrite>(0, EIO);
  for (int record = 0; record < 100; ++record) {
    const std::streampos start = out.tellp();
    out << "????" << std::string(static_cast<std::size_t>(record), 'x');
    const std::streampos end = out.tellp();
    out.seekp(start).write("LEN:", 4).seekp(0, std::ios::end);
    ASSERT_EQ(out.tellp(), end);
  }
  ASSERT_TRUE(out);
  EXPECT_EQ(calls_made, 0);
  sys() = real_system_calls();
  out.close();
  ASSERT_TRUE(out);
  std::string expected;
  for (int record = 0; record < 100; ++record) {
    expected += "LEN:" + std::string(static_cast<std::size_t>(record), 'x');
  }
  EXPECT_EQ(read_file(dir_ / "f"), expected);
}

// Bytes sought back to behind the buffer go out with pwrite(2); its failure is a lost write.
TEST_F(FaultInjection, PwriteFailureWhilePatchingBehindTheBufferIsSticky) {
  mapout::ostream out(dir_ / "f", std::ios::out, using_buffer(4096));
  out << text.substr(0, 100000);
  out.seekp(10);
  out << "patch";
  fail_after<&system_calls::pwrite>(0, EIO);
  out.seekp(0, std::ios::end);
  // As std::ofstream's seekp when its buffer cannot be written: failbit, then sticky.
  EXPECT_TRUE(out.fail());
  EXPECT_EQ(out.rdbuf()->error_message(), message("pwrite", dir_ / "f", EIO));
  sys() = real_system_calls();
  out.clear();
  out << std::string(5000, 'y');
  EXPECT_TRUE(out.bad());
  out.close();
  EXPECT_TRUE(out.fail());
  EXPECT_EQ(out.rdbuf()->error_message(), message("pwrite", dir_ / "f", EIO));
}

// ---- Both strategies

TEST_F(FaultInjection, CloseFailureIsReportedByClose) {
  for (const mapout::options& opts : {mapped, buffered}) {
    mapout::ostream out(dir_ / "f", std::ios::out, opts);
    out << "bytes";
    fail_after<&system_calls::close>(0, EIO);
    out.close();
    sys() = real_system_calls();
    EXPECT_TRUE(out.fail());
    EXPECT_FALSE(out.rdbuf()->is_open());
    EXPECT_EQ(out.rdbuf()->error_message(), message("close", dir_ / "f", EIO));
  }
}

TEST_F(FaultInjection, FsyncFailureFailsPersist) {
  for (const mapout::options& opts : {mapped, buffered}) {
    mapout::ostream out(dir_ / "f", std::ios::out, opts);
    out << "bytes";
    fail_after<&system_calls::fsync>(0, EIO);
    EXPECT_FALSE(out.rdbuf()->persist());
    EXPECT_EQ(out.rdbuf()->error_message(), message("fsync", dir_ / "f", EIO));
    sys() = real_system_calls();
    out.close();
    EXPECT_TRUE(out.fail());
  }
}

// ---- Extending a mapped file

TEST_F(FaultInjection, FullDiskAtAnExtensionIsEnospcFromFallocate) {
  mapout::ostream out(dir_ / "f", std::ios::out, mapped);
  fail_after<&system_calls::fallocate>(0, ENOSPC);
  write_text(out, 1000);
  EXPECT_TRUE(out.bad());
  // The step was refused, then the single page the writer needed.
  EXPECT_EQ(calls_made, 2);
  EXPECT_EQ(out.rdbuf()->error_message(), message("fallocate", dir_ / "f", ENOSPC));
  sys() = real_system_calls();
  out.close();
  EXPECT_TRUE(out.fail());
  EXPECT_EQ(std::filesystem::file_size(dir_ / "f"), 0u);
}

TEST_F(FaultInjection, RoomForThePageButNotTheStepStillWritesEverything) {
  mapout::ostream out(dir_ / "f", std::ios::out, mapped);
  sys().fallocate = [](int fd, int mode, off_t offset, off_t length) {
    if (static_cast<std::size_t>(length) > page) {
      errno = ENOSPC;
      return -1;
    }
    return real_system_calls().fallocate(fd, mode, offset, length);
  };
  for (std::size_t done = 0; done < 100000; done += 1000) out.write(text.data() + done, 1000);
  out.close();
  EXPECT_TRUE(out) << out.rdbuf()->error_message();
  EXPECT_TRUE(read_file(dir_ / "f") == text.substr(0, 100000));
}

TEST_F(FaultInjection, NoFallocateFallsBackToFtruncate) {
  for (const mapout::options& opts : {mapped, on_sigbus()}) {
    mapout::ostream out(dir_ / "f", std::ios::out, opts);
    fail_after<&system_calls::fallocate>(0, EOPNOTSUPP);
    write_text(out);
    out.close();
    EXPECT_TRUE(out) << out.rdbuf()->error_message();
    EXPECT_GT(calls_made, 0);
    EXPECT_TRUE(read_file(dir_ / "f") == text);
  }
}

TEST_F(FaultInjection, FtruncateFailureWithoutFallocateFailsTheExtension) {
  mapout::ostream out(dir_ / "f", std::ios::out, mapped);
  sys().fallocate = [](int, int, off_t, off_t) {
    errno = EOPNOTSUPP;
    return -1;
  };
  fail_after<&system_calls::ftruncate>(0, EPERM);
  write_text(out);
  EXPECT_TRUE(out.bad());
  EXPECT_EQ(out.rdbuf()->error_message(), message("ftruncate", dir_ / "f", EPERM));
}

TEST_F(FaultInjection, OffsetPastTheLargestFileIsEfbig) {
  mapout::ostream out(dir_ / "f", std::ios::out, mapped);
  // No file system maps that far: anonymous memory stands in, so that the extension is reached.
  sys().mmap = [](void* addr, std::size_t length, int prot, int flags, int fd, off_t offset) {
    if (offset > (off_t{1} << 62)) {
      return real_system_calls().mmap(addr, length, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    }
    return real_system_calls().mmap(addr, length, prot, flags, fd, offset);
  };
  out.seekp(std::numeric_limits<std::streamoff>::max() - 100);
  ASSERT_TRUE(out);
  write_text(out, 1000);
  EXPECT_TRUE(out.bad());
  EXPECT_EQ(out.rdbuf()->error(), std::errc::file_too_large);
  EXPECT_EQ(out.rdbuf()->error_message(), message("extend", dir_ / "f", EFBIG));
}

// ---- Moving the window, publishing, closing

TEST_F(FaultInjection, MunmapFailureWhenTheWindowMoves) {
  mapout::ostream out(dir_ / "f", std::ios::out, using_strategy(mapout::strategy::mapped, page));
  fail_after<&system_calls::munmap>(0, EINVAL);
  write_text(out, 3 * page);
  EXPECT_TRUE(out.bad());
  EXPECT_EQ(out.rdbuf()->error_message(), message("munmap", dir_ / "f", EINVAL));
  out.close();
  EXPECT_TRUE(out.fail());
  // What was written before the window had to move is in the file.
  EXPECT_TRUE(read_file(dir_ / "f") == text.substr(0, page));
}

TEST_F(FaultInjection, MmapFailureWhenTheWindowMoves) {
  mapout::ostream out(dir_ / "f", std::ios::out, using_strategy(mapout::strategy::mapped, page));
  fail_after<&system_calls::mmap>(0, ENOMEM);
  write_text(out, 3 * page);
  EXPECT_TRUE(out.bad());
  EXPECT_EQ(out.rdbuf()->error_message(), message("mmap", dir_ / "f", ENOMEM));
  sys() = real_system_calls();
  out.close();
  EXPECT_TRUE(out.fail());
  EXPECT_TRUE(read_file(dir_ / "f") == text.substr(0, page));
}

TEST_F(FaultInjection, FtruncateFailureFailsPublishAndStaysSticky) {
  mapout::ostream out(dir_ / "f", std::ios::out, mapped);
  out << "published?";
  fail_after<&system_calls::ftruncate>(0, EIO);
  EXPECT_FALSE(out.rdbuf()->publish());
  EXPECT_EQ(out.rdbuf()->error_message(), message("ftruncate", dir_ / "f", EIO));
  sys() = real_system_calls();
  out.flush();
  EXPECT_TRUE(out.bad());
  out.close();
  EXPECT_TRUE(out.fail());
}

TEST_F(FaultInjection, FtruncateFailureAtCloseFailsCloseAndClosesTheDescriptor) {
  const std::size_t before = open_descriptors();
  mapout::ostream out(dir_ / "f", std::ios::out, mapped);
  out << "ten bytes!";
  fail_after<&system_calls::ftruncate>(0, EIO);
  out.close();
  sys() = real_system_calls();
  EXPECT_TRUE(out.fail());
  EXPECT_EQ(out.rdbuf()->error_message(), message("ftruncate", dir_ / "f", EIO));
  EXPECT_EQ(open_descriptors(), before);
}

// ---- The SIGBUS handler's own failures

TEST_F(FaultInjection, SigbusModeFullDiskLandsInScratchAndFailsTheNextFlush) {
  mapout::ostream out(dir_ / "f", std::ios::out, on_sigbus());
  out << "kept";
  out.flush();
  ASSERT_TRUE(out);
  fail_after<&system_calls::fallocate>(0, ENOSPC);
  write_text(out, 2 << 20);  // past the first extension: the handler meets the full disk
  // The stores went into the window without a call: the next call is the one that reports.
  EXPECT_FALSE(out.bad());
  out.flush();
  EXPECT_TRUE(out.bad());
  EXPECT_EQ(out.rdbuf()->error_message(), message("fallocate", dir_ / "f", ENOSPC));
  sys() = real_system_calls();
  out.close();
  EXPECT_TRUE(out.fail());
  const std::string got = read_file(dir_ / "f");
  // close writes the stores that went to scratch memory with write(2), which had room for all.
  ASSERT_EQ(got.size(), 4 + (std::size_t{2} << 20));
  EXPECT_EQ(got.substr(0, 4), "kept");
  EXPECT_TRUE(got.substr(4) == text.substr(0, got.size() - 4));
}

// A copy may store its last bytes first: a later fault on a lower page must not map fresh scratch
// memory over the stores an earlier fault already took, which close writes to the file.
TEST_F(FaultInjection, SigbusModeLowerFaultKeepsTheScratchStoresAbove) {
  mapout::output_file file;
  ASSERT_FALSE(file.open(dir_ / "f", std::ios::out, on_sigbus()));
  mapout::output_file::window view = file.current();
  ASSERT_GE(static_cast<std::size_t>(view.end - view.begin), 9 * page);
  fail_after<&system_calls::fallocate>(0, ENOSPC);
  view.begin[8 * page] = 'q';  // the first fault: scratch memory from this page on
  view.begin[2 * page] = 'p';  // the second, below it
  view.begin += 8 * page + 1;
  EXPECT_EQ(file.close(view), std::errc::no_space_on_device);
  sys() = real_system_calls();
  std::string expected(8 * page + 1, '\0');
  expected[2 * page] = 'p';
  expected[8 * page] = 'q';
  EXPECT_TRUE(read_file(dir_ / "f") == expected);
}

TEST_F(FaultInjection, SigbusModeFstatFailureInTheHandler) {
  mapout::ostream out(dir_ / "f", std::ios::out, on_sigbus());
  fail_after<&system_calls::fstat>(0, EIO);
  out << "lost";
  out.flush();
  sys() = real_system_calls();
  EXPECT_TRUE(out.bad());
  EXPECT_EQ(out.rdbuf()->error_message(), message("fstat", dir_ / "f", EIO));
  out.close();
  EXPECT_EQ(std::filesystem::file_size(dir_ / "f"), 0u);
}

// A file system without fallocate leaves holes; on a full disk a store into one faults. With the
// guard, that is ENOSPC on the stream.
TEST_F(FaultInjection, GuardTurnsAStoreIntoAHoleOnAFullDiskIntoEnospc) {
  temp_dir mount_point;
  if (::mount("mapout-test", mount_point.path().c_str(), "tmpfs", 0, "size=1m") != 0) {
    GTEST_SKIP() << "needs root to mount a 1 MiB tmpfs: " << std::strerror(errno);
  }
  {
    mapout::options opts = mapped;
    opts.guard_faults = true;
    mapout::ostream out(mount_point / "f", std::ios::out, opts);
    fail_after<&system_calls::fallocate>(0, EOPNOTSUPP);
    const std::string bytes = mapout::test::pattern(4 << 20);
    for (std::size_t done = 0; done < bytes.size() && out; done += 1000) {
      out.write(bytes.data() + done, 1000);
      out.flush();
    }
    sys() = real_system_calls();
    EXPECT_TRUE(out.bad());
    EXPECT_EQ(out.rdbuf()->error_message(), message("store", mount_point / "f", ENOSPC));
    out.close();
    const std::string got = read_file(mount_point / "f");
    EXPECT_GE(got.size(), std::size_t{512} << 10);
    EXPECT_TRUE(got == bytes.substr(0, got.size()));
  }
  ::umount2(mount_point.path().c_str(), MNT_DETACH);
}

}  // namespace
