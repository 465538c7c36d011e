// What std::ofstream survives, mapout must survive too, with every byte in place: stores past a
// published end, other writers of the same file, full disks without reserved blocks, failed and
// partial extensions, far seeks, a thread that blocks SIGBUS, RLIMIT_FSIZE, a killed writer.
// Each scenario that could kill the process runs in a forked child that reports what it saw.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <ios>
#include <string>
#include <vector>

#include "bytes.hpp"
#include "child_process.hpp"
#include "file_system_type.hpp"
#include "mapout/ostream.hpp"
#include "mapout/output_file.hpp"
#include "mounted_file_system.hpp"
#include "platform/sys.hpp"
#include "strategies.hpp"
#include "system_call_override.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::expect_ok;
using mapout::test::same_bytes;

using mapout::test::mounted_file_system;
using mapout::test::page_size;
using mapout::test::pattern;
using mapout::test::read_file;
using mapout::test::run_in_child;
using mapout::test::temp_dir;
using mapout::test::write_file;

mapout::options on_sigbus(std::size_t reserve = 0) {
  mapout::options opts = mapout::test::mapped(reserve ? reserve : mapout::options{}.mapping_size);
  opts.extension = mapout::extension::on_fault;
  return opts;
}

// The mapped modes: the window moves every 64 KiB in the first two.
std::vector<mapout::test::strategy_case> mapped_modes() {
  return {{"ahead", mapout::test::mapped(64 << 10)},
          {"on_sigbus", on_sigbus(64 << 10)},
          {"on_sigbus, default reservation", on_sigbus()}};
}

TEST(PartialPage, BytesStoredAfterPublishAreKept) {
  for (const auto& mode : mapped_modes()) {
    SCOPED_TRACE(mode.name);
    temp_dir dir;
    mapout::ostream out(dir / "published", std::ios::out, mode.opts);
    const std::string bytes = pattern(3100);
    out.write(bytes.data(), 100);
    out.publish();
    out.write(bytes.data() + 100, 3000);
    out.persist();
    EXPECT_TRUE(out);
    EXPECT_EQ(same_bytes(dir / "published", bytes), "ok");
    const std::string more = pattern(5000, 5);
    out.write(more.data(), 5000);
    out.close();
    EXPECT_TRUE(out);
    EXPECT_EQ(same_bytes(dir / "published", bytes + more), "ok");
  }
}

// A seek past the published end, still inside the page that holds it, then one byte.
TEST(PartialPage, ByteStoredPastThePublishedEndInItsPageIsKept) {
  for (const auto& mode : mapped_modes()) {
    SCOPED_TRACE(mode.name);
    temp_dir dir;
    {
      mapout::ostream out(dir / "f", std::ios::out, mode.opts);
      out << std::string(1659, 'a');
      out.publish();
      out.seekp(1677);
      out.put('Z');
    }
    EXPECT_EQ(same_bytes(dir / "f", std::string(1659, 'a') + std::string(18, '\0') + "Z"), "ok");
  }
}

TEST(PartialPage, ExistingFileOfUnalignedSizeKeepsEveryByte) {
  for (const auto& mode : mapped_modes()) {
    for (const auto how : {std::ios::out | std::ios::in | std::ios::ate, std::ios::app}) {
      SCOPED_TRACE(mode.name);
      temp_dir dir;
      const std::string old_bytes = pattern(page_size() + 123, 1);
      write_file(dir / "existing", old_bytes);
      mapout::ostream out(dir / "existing", how, mode.opts);
      ASSERT_TRUE(out.is_open()) << out.rdbuf()->error_message();
      const std::string more = pattern(3 * page_size(), 2);
      out.write(more.data(), static_cast<std::streamsize>(more.size()));
      out.close();
      EXPECT_TRUE(out);
      EXPECT_EQ(same_bytes(dir / "existing", old_bytes + more), "ok");
    }
  }
}

// automatic hands the file from its first buffer to the mapping at whatever size the buffer left.
TEST(PartialPage, AutomaticHandsOverAtAnUnalignedSize) {
  mapout::test::on_unmeasured_file_system unmeasured;
  temp_dir dir;
  mapout::options opts;
  opts.extension = mapout::extension::on_fault;
  opts.buffer_size = 1000;
  mapout::ostream out(dir / "handed", std::ios::out, opts);
  const std::string bytes = pattern(30 * 700);
  for (std::size_t done = 0; done < bytes.size(); done += 700) out.write(bytes.data() + done, 700);
  EXPECT_TRUE(out.rdbuf()->file().is_mapped());
  out.close();
  EXPECT_TRUE(out);
  EXPECT_EQ(same_bytes(dir / "handed", bytes), "ok");
}

// Runs `scenario(first, second)` in a child, for each mapped mode: two streams of one empty file,
// the second at the half, where each is to write its 300,000 bytes. The file must then hold both
// halves.
template <class Scenario>
void two_writers_fill_halves(const std::string& variant, Scenario scenario) {
  for (const auto& mode : mapped_modes()) {
    SCOPED_TRACE(std::string(mode.name) + variant);
    temp_dir dir;
    const auto path = dir / "halves";
    write_file(path, "");
    const std::string half = pattern(300000, 3);
    const std::string other_half = pattern(300000, 4);
    expect_ok(run_in_child([&] {
      mapout::ostream first(path, std::ios::out | std::ios::in, mode.opts);
      mapout::ostream second(path, std::ios::out | std::ios::in, mode.opts);
      second.seekp(static_cast<std::streamoff>(half.size()));
      scenario(first, second, half, other_half);
      if (!first || !second) return "a stream failed: " + second.error_message();
      return same_bytes(path, half + other_half);
    }));
  }
}

// Two streams of one process fill the two halves of one file, and close in either order.
TEST(OtherWriters, TwoStreamsFillingHalvesKeepBothHalves) {
  for (const bool second_closes_first : {true, false}) {
    two_writers_fill_halves(second_closes_first ? ", second first" : "",
                            [&](mapout::ostream& first, mapout::ostream& second,
                                const std::string& half, const std::string& other_half) {
                              for (std::size_t done = 0; done < half.size(); done += 1000) {
                                first.write(half.data() + done, 1000);
                                second.write(other_half.data() + done, 1000);
                              }
                              mapout::ostream& early = second_closes_first ? second : first;
                              mapout::ostream& late = second_closes_first ? first : second;
                              early.close();
                              late.close();
                            });
  }
}

// One stream closes while the other still writes past what it wrote so far: the close must leave
// the rest of the extension to the stream still open.
TEST(OtherWriters, CloseWhileAnotherStreamStillWritesLeavesItRoom) {
  two_writers_fill_halves("", [](mapout::ostream& first, mapout::ostream& second,
                                 const std::string& half, const std::string& other_half) {
    first.write(half.data(), static_cast<std::streamsize>(half.size()));
    second.write(other_half.data(), 100000);
    first.close();
    second.write(other_half.data() + 100000, 200000);
    second.close();
  });
}

// The later open truncates, as std::ofstream's does; the first stream must not die of it.
TEST(OtherWriters, SamePathOpenedTwiceDoesNotKill) {
  for (const auto& mode : mapped_modes()) {
    SCOPED_TRACE(mode.name);
    temp_dir dir;
    const auto child = run_in_child([&] {
      const std::string bytes = pattern(200000);
      mapout::ostream first(dir / "twice", std::ios::out, mode.opts);
      first.write(bytes.data(), 100000);
      mapout::ostream second(dir / "twice", std::ios::out, mode.opts);
      second << "second\n";
      first.write(bytes.data() + 100000, 100000);
      first.flush();
      first.close();
      second.close();
      // The first stream lost bytes to the truncate: it must say so, or have them all.
      if (first && read_file(dir / "twice").size() < 200000) return std::string("silent loss");
      return std::string("ok");
    });
    expect_ok(child);
  }
}

// Runs `scenario(out, path, bytes)` in a child, for each mapped mode: a stream of `path` that
// holds the first 100,000 of `bytes`, about to be shared with a forked process.
template <class Scenario>
void across_fork(Scenario scenario) {
  for (const auto& mode : mapped_modes()) {
    SCOPED_TRACE(mode.name);
    temp_dir dir;
    const auto path = dir / "forked";
    const std::string bytes = pattern(400000);
    expect_ok(run_in_child([&] {
      mapout::ostream out(path, std::ios::out, mode.opts);
      out.write(bytes.data(), 100000);
      return scenario(out, path, bytes);
    }));
  }
}

// A stream open across fork(): the parent closes and exits while the child writes on.
TEST(OtherWriters, ForkedChildWritesOnAfterTheParentCloses) {
  across_fork(
      [](mapout::ostream& out, const std::filesystem::path& path, const std::string& bytes) {
        int parent_closed[2];
        if (::pipe(parent_closed) != 0) return std::string("pipe failed");
        const pid_t writer = mapout::test::spawn([&] {
          ::close(parent_closed[1]);
          mapout::test::drain(parent_closed[0]);
          out.write(bytes.data() + 100000, 300000);
          out.close();
          return out ? 0 : 3;
        });
        ::close(parent_closed[0]);
        out.close();
        ::close(parent_closed[1]);
        const int status = mapout::test::wait_for(writer);
        if (status == -1) return std::string("the forked writer was killed");
        if (status == 0 && read_file(path) != bytes) return std::string("silent loss");
        return std::string("ok");
      });
}

// A forked child that closes its copy of the stream (exit() runs the destructors) leaves the file
// to the parent, which writes on.
TEST(OtherWriters, ForkedChildThatClosesLeavesTheFileToTheParent) {
  across_fork(
      [](mapout::ostream& out, const std::filesystem::path& path, const std::string& bytes) {
        const pid_t closer = mapout::test::spawn([&] {
          out.close();
          return 0;
        });
        if (mapout::test::wait_for(closer) != 0) return std::string("the child failed");
        out.write(bytes.data() + 100000, 300000);
        out.close();
        if (!out) return out.error_message();
        return same_bytes(path, bytes);
      });
}

// Writes until the stream fails, in a child: it must fail with ENOSPC, not die, and keep the bytes.
std::string fill_until_full(const std::filesystem::path& path, const mapout::options& opts) {
  const std::string bytes = pattern(1 << 20);
  mapout::ostream out(path, std::ios::out, opts);
  if (!out.is_open()) return "open: " + out.rdbuf()->error_message();
  std::size_t taken = 0;
  for (int round = 0; round < 400 && out; ++round) {
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (out) taken += bytes.size();
  }
  out.close();
  if (out) return "the disk never filled";
  if (out.rdbuf()->error() != std::errc::no_space_on_device) {
    return "error: " + out.rdbuf()->error_message();
  }
  // A store the guard served from scratch memory is reported at the next call, which may come a
  // whole reservation later: bytes from that store on may be missing, never bytes before it, and
  // the file never ends in bytes nobody wrote.
  const std::string got = read_file(path);
  if (got.size() + opts.mapping_size + bytes.size() < taken) {
    return "lost bytes before the failure: " + std::to_string(got.size()) + " of " +
           std::to_string(taken);
  }
  for (std::size_t at = 0; at < got.size(); at += bytes.size()) {
    const std::size_t size = std::min(bytes.size(), got.size() - at);
    if (got.compare(at, size, bytes, 0, size) != 0) {
      return "wrong bytes from " + std::to_string(at) + " of " + std::to_string(got.size());
    }
  }
  return "ok";
}

TEST(FullDisk, DefaultOptionsOnFullBtrfsReportEnospc) {
  mounted_file_system fs("mkfs.btrfs -q -f", 120);
  if (!fs.mounted()) GTEST_SKIP() << "needs a btrfs loop image: " << fs.error();
  expect_ok(run_in_child([&] { return fill_until_full(fs / "full", {}); }));
}

// Fills `fs` once in every mapped mode, each in a child.
void fill_in_every_mapped_mode(const mounted_file_system& fs) {
  for (const auto& mode : mapped_modes()) {
    SCOPED_TRACE(mode.name);
    expect_ok(run_in_child([&] { return fill_until_full(fs / "full", mode.opts); }));
    std::filesystem::remove(fs / "full");
  }
}

TEST(FullDisk, MappedOnExt2WithoutFallocateReportsEnospc) {
  mounted_file_system fs("mkfs.ext2 -q -F", 8);
  if (!fs.mounted()) GTEST_SKIP() << "needs an ext2 loop image: " << fs.error();
  fill_in_every_mapped_mode(fs);
}

// On a full ext4 with 1 KiB blocks, fallocate fails after it grew the file part of the way.
TEST(FullDisk, FailedExtensionLeavesNoZeroTail) {
  mounted_file_system fs("mkfs.ext4 -q -F -b 1024 -O ^has_journal", 8);
  if (!fs.mounted()) GTEST_SKIP() << "needs an ext4 loop image: " << fs.error();
  fill_in_every_mapped_mode(fs);
}

// Bytes written far ahead first, then from the start into holes until the disk is full: the
// store that met the full disk ends the file, and the far bytes past it go too, so the file never
// holds a run of lost stores as zeros between written bytes.
TEST(FullDisk, StoreThatMeetsAFullDiskEndsTheFile) {
  mounted_file_system fs("1m");
  if (!fs.mounted()) GTEST_SKIP() << "needs root to mount a tmpfs: " << fs.error();
  write_file(fs / "filler", std::string(600 << 10, 'f'));
  const auto child = run_in_child([&] {
    // Holes, as on a file system without fallocate: the full disk shows at a store.
    const mapout::test::system_call_override<&mapout::detail::system_calls::fallocate> holes(
        [](int, int, off_t, off_t) {
          errno = EOPNOTSUPP;
          return -1;
        });
    const std::string bytes = pattern(1 << 20);
    mapout::ostream out(fs / "f", std::ios::out, mapout::test::mapped(64 << 10));
    out.seekp(900 << 10);
    out.write(bytes.data(), 100 << 10);
    out.seekp(0);
    for (std::size_t done = 0; done < (800 << 10) && out; done += 1000) {
      out.write(bytes.data() + done, 1000);
    }
    out.close();
    if (out.error() != std::errc::no_space_on_device) return "error: " + out.error_message();
    const std::string got = read_file(fs / "f");
    if (got.size() >= (900 << 10)) return std::string("the file goes on past the failed store");
    return got == bytes.substr(0, got.size()) ? std::string("ok") : std::string("wrong bytes");
  });
  expect_ok(child);
}

TEST(FullDisk, FarSeekThatFailsLeavesNoZeros) {
  mounted_file_system fs("mkfs.ext4 -q -F -b 1024 -O ^has_journal", 8);
  if (!fs.mounted()) GTEST_SKIP() << "needs an ext4 loop image: " << fs.error();
  for (const auto& mode : mapped_modes()) {
    SCOPED_TRACE(mode.name);
    const auto child = run_in_child([&] {
      mapout::ostream out(fs / "far", std::ios::out, mode.opts);
      out << "head";
      out.seekp(std::streamoff{5} << 20);
      // Past the free space: the extension cannot reserve what the writer needs.
      const std::string bytes = pattern(8 << 20);
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      out.close();
      if (out) return std::string("8 MiB fit into 4");
      const std::string got = read_file(fs / "far");
      if (got.compare(0, 4, "head") != 0) return std::string("lost the head");
      if (got.find_last_not_of('\0') + 1 != got.size()) {
        return "a zero tail: " + std::to_string(got.size()) + " bytes";
      }
      return std::string("ok");
    });
    expect_ok(child);
    std::filesystem::remove(fs / "far");
  }
}

std::uint64_t bytes_read = 0;

// After 64 MiB the extension reaches 64 MiB ahead, which ext4 reports in several data extents;
// close must cut it all, and read little of it: only what sits in the page cache could be bytes
// another writer stored. Counted in bytes, not reads: the populated lead usually takes 3 MiB in
// 12 reads, and now and then the page cache holds a few times more, in more and shorter runs.
TEST(Close, CutsALargeExtensionAndReadsLittleOfIt) {
  temp_dir dir;
  const std::string bytes = pattern(1 << 20);
  mapout::ostream out(dir / "large", std::ios::out, mapout::test::mapped());
  for (int i = 0; i < 65; ++i) out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out << "end";
  bytes_read = 0;
  {
    const mapout::test::system_call_override<&mapout::detail::system_calls::pread> counted(
        [](int fd, void* data, std::size_t size, off_t offset) {
          bytes_read += size;
          return mapout::detail::real_system_calls().pread(fd, data, size, offset);
        });
    out.close();
  }
  ASSERT_TRUE(out) << out.error_message();
  EXPECT_EQ(std::filesystem::file_size(dir / "large"), (std::uint64_t{65} << 20) + 3);
  EXPECT_LT(bytes_read, std::uint64_t{32} << 20) << "read half the extension or more";
}

TEST(Sparse, FarSeekLeavesAHole) {
  for (const auto& mode : mapped_modes()) {
    SCOPED_TRACE(mode.name);
    temp_dir dir;
    mapout::ostream out(dir / "sparse", std::ios::out, mode.opts);
    out << "head";
    out.seekp(std::streamoff{10} << 20);
    out << "tail";
    out.close();
    ASSERT_TRUE(out) << out.rdbuf()->error_message();
    struct stat st;
    ASSERT_EQ(::stat((dir / "sparse").c_str(), &st), 0);
    EXPECT_EQ(st.st_size, (std::int64_t{10} << 20) + 4);
    EXPECT_LT(st.st_blocks * 512, std::int64_t{1} << 20) << "the gap took blocks";
  }
}

TEST(Sparse, TerabyteSeekWritesASparseFile) {
  for (const auto& mode : mapped_modes()) {
    SCOPED_TRACE(mode.name);
    temp_dir dir;
    mapout::ostream out(dir / "huge", std::ios::out, mode.opts);
    out.seekp(std::streamoff{1} << 40);
    out << "tail";
    out.close();
    ASSERT_TRUE(out) << out.rdbuf()->error_message();
    EXPECT_EQ(std::filesystem::file_size(dir / "huge"), (std::uint64_t{1} << 40) + 4);
  }
}

// Failures found by flush() and std::endl carry mapout's message and errno, like the others;
// through a std::ostream& the stream throws as std::ofstream does, and error() keeps the cause.
TEST(Exceptions, FlushAndEndlThrowMapoutsFailure) {
  for (int how = 0; how < 3; ++how) {
    SCOPED_TRACE(how);
    mapout::ostream out("/dev/full");
    ASSERT_TRUE(out.is_open());
    out.exceptions(std::ios::badbit);
    out << "line";
    try {
      if (how == 0) out.flush();
      if (how == 1) out << std::endl;
      if (how == 2) static_cast<std::ostream&>(out) << std::endl;
      ADD_FAILURE() << "no exception";
    } catch (const std::ios_base::failure& e) {
      const std::error_code code = how == 2 ? out.error() : e.code();
      const std::string what = how == 2 ? out.error_message() : e.what();
      EXPECT_EQ(code, std::errc::no_space_on_device) << what;
      EXPECT_NE(what.find("mapout: write '/dev/full'"), std::string::npos) << what;
    }
    EXPECT_TRUE(out.bad());
  }
}

// unitbuf flushes from the sentry's destructor, which must not throw: badbit, as std::ofstream.
TEST(Exceptions, UnitbufFailureSetsBadbitWithoutTerminating) {
  mapout::ostream out("/dev/full");
  out << std::unitbuf << "line";
  EXPECT_TRUE(out.bad());
}

// Blocks SIGBUS in the calling thread for the scope, as programs that take signals with sigwait do.
class sigbus_blocked {
 public:
  sigbus_blocked() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGBUS);
    pthread_sigmask(SIG_BLOCK, &set, &old_);
  }
  ~sigbus_blocked() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

 private:
  sigset_t old_;
};

TEST(BlockedSigbus, OnSigbusFailsToOpenWithAClearMessage) {
  temp_dir dir;
  const auto child = run_in_child([&] {
    sigbus_blocked blocked;
    mapout::ostream out(dir / "blocked", std::ios::out, on_sigbus());
    if (out.is_open()) return std::string("opened");
    const std::string message = out.rdbuf()->error_message();
    return message.find("SIGBUS") == std::string::npos ? message : std::string("ok");
  });
  expect_ok(child);
}

TEST(BlockedSigbus, DefaultOptionsWriteThroughTheBuffer) {
  mapout::test::on_unmeasured_file_system unmeasured;
  temp_dir dir;
  const auto child = run_in_child([&] {
    sigbus_blocked blocked;
    mapout::ostream out(dir / "blocked");
    const std::string bytes = pattern(1 << 20);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (out.rdbuf()->file().is_mapped()) return std::string("mapped");
    out.close();
    return out ? same_bytes(dir / "blocked", bytes) : out.rdbuf()->error_message();
  });
  expect_ok(child);
}

TEST(BlockedSigbus, MovingTheGuardedMappingFailsWithAClearMessage) {
  temp_dir dir;
  const auto child = run_in_child([&] {
    mapout::ostream out(dir / "moved", std::ios::out, mapout::test::mapped(page_size()));
    sigbus_blocked blocked;
    const std::string bytes = pattern(8 * page_size());
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (out) return std::string("moved the mapping with SIGBUS blocked");
    const std::string message = out.rdbuf()->error_message();
    return message.find("SIGBUS") == std::string::npos ? message : std::string("ok");
  });
  expect_ok(child);
}

TEST(AppendMode, MappedStrategyWritesAtTheEnd) {
  temp_dir dir;
  write_file(dir / "log", "first\n");
  mapout::ostream out(dir / "log", std::ios::app, mapout::test::mapped());
  ASSERT_TRUE(out.is_open()) << out.rdbuf()->error_message();
  out << "second\n";
  out.seekp(0);
  out << "third\n";
  out.close();
  EXPECT_TRUE(out);
  EXPECT_EQ(read_file(dir / "log"), "first\nsecond\nthird\n");
}

TEST(FileSizeLimit, EveryByteThatFitsIsWritten) {
  for (const auto& mode : mapped_modes()) {
    SCOPED_TRACE(mode.name);
    temp_dir dir;
    const auto child = run_in_child([&] {
      ::signal(SIGXFSZ, SIG_IGN);
      const rlimit limit = {100000, 100000};
      if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) return std::string("setrlimit failed");
      const std::string bytes = pattern(300000);
      mapout::ostream out(dir / "limited", std::ios::out, mode.opts);
      for (std::size_t done = 0; done < bytes.size() && out; done += 1000) {
        out.write(bytes.data() + done, 1000);
      }
      out.close();
      if (out.rdbuf()->error() != std::errc::file_too_large) {
        return "error: " + out.rdbuf()->error_message();
      }
      return same_bytes(dir / "limited", bytes.substr(0, 100000));
    });
    expect_ok(child);
  }
}

TEST(NotOpen, ZeroLengthWriteLeavesTheStreamGood) {
  mapout::ostream out;
  out.write("", 0);
  EXPECT_TRUE(out.good());
  std::ofstream reference;
  reference.write("", 0);
  EXPECT_EQ(out.rdstate(), reference.rdstate());
}

// A writer killed at any moment leaves its bytes, then NUL bytes up to the extension's end: at
// most the file's own size, 64 MiB at the most.
TEST(KilledWriter, LeavesAtMostABoundedZeroTail) {
  for (const auto& mode : mapped_modes()) {
    SCOPED_TRACE(mode.name);
    temp_dir dir;
    const std::string bytes = pattern(40'000'000);
    const pid_t writer = mapout::test::spawn([&] {
      mapout::ostream out(dir / "killed", std::ios::out, mode.opts);
      for (std::size_t done = 0; done + 1000 <= bytes.size(); done += 1000) {
        out.write(bytes.data() + done, 1000);
      }
      ::raise(SIGKILL);
      return 0;
    });
    EXPECT_EQ(mapout::test::wait_for(writer), -1);
    const std::string got = read_file(dir / "killed");
    ASSERT_GE(got.size(), bytes.size());
    EXPECT_TRUE(got.compare(0, bytes.size(), bytes) == 0);
    EXPECT_EQ(got.find_first_not_of('\0', bytes.size()), std::string::npos);
    EXPECT_LE(got.size() - bytes.size(), bytes.size()) << "zero tail";
  }
}

}  // namespace
