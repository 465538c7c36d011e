// mapout::parallel_output: parts joined in index order, each part's stream as a mapout::ostream,
// options over the whole output, and every failure an error that names the operation and path.
#include "mapout/parallel.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cerrno>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bytes.hpp"
#include "file_system_type.hpp"
#include "mapout/cursor.hpp"
#include "mounted_file_system.hpp"
#include "part_memory_calls.hpp"
#include "strategies.hpp"
#include "system_call_override.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::detail::system_calls;
using mapout::test::pattern;
using mapout::test::read_file;
using mapout::test::system_call_override;
using mapout::test::temp_dir;
using mapout::test::write_file;

class ParallelOutput : public ::testing::Test {
 protected:
  temp_dir dir_;
};

TEST_F(ParallelOutput, PartsWrittenByThreadsJoinInIndexOrder) {
  for (const auto& which : mapout::test::window_cases()) {
    SCOPED_TRACE(which.name);
    const auto path = dir_ / "out";
    std::vector<std::string> want(4);
    {
      mapout::parallel_output out(path, 4, which.opts);
      std::vector<std::thread> threads;
      // Backwards, so that later parts start first and run ahead of their place.
      for (std::size_t k = 4; k-- > 0;) {
        want[k] = pattern(100000 * k + 3, static_cast<unsigned>(k));
        threads.emplace_back([&out, &want, k] { out.part(k) << want[k]; });
      }
      for (std::thread& t : threads) t.join();
      ASSERT_EQ(out.close(), std::error_code{}) << out.error_message();
    }
    EXPECT_EQ(read_file(path), want[0] + want[1] + want[2] + want[3]);
  }
}

TEST_F(ParallelOutput, UntouchedPartsAreEmpty) {
  const auto path = dir_ / "out";
  mapout::parallel_output out(path, 5);
  out.part(3) << "three";
  out.part(1) << "one";
  ASSERT_EQ(out.close(), std::error_code{}) << out.error_message();
  EXPECT_EQ(read_file(path), "onethree");
}

TEST_F(ParallelOutput, NoPartTouchedLeavesAnEmptyFile) {
  const auto path = dir_ / "out";
  write_file(path, "old bytes");
  mapout::parallel_output out(path, 3);
  ASSERT_EQ(out.close(), std::error_code{});
  EXPECT_EQ(read_file(path), "");
}

TEST_F(ParallelOutput, PositionsCountFromEachPartsStart) {
  const auto path = dir_ / "out";
  mapout::parallel_output out(path, 3);
  for (std::size_t k = 0; k < 3; ++k) {
    mapout::ostream& part = out.part(k);
    part << "len=????;" << pattern(1000 + k, static_cast<unsigned>(k));
    EXPECT_EQ(part.tellp(), std::streamoff(1009 + k));
    const auto end = part.tellp();
    part.seekp(4);
    part << std::to_string(1000 + k);
    part.seekp(end);
    part << '\n';
  }
  ASSERT_EQ(out.close(), std::error_code{}) << out.error_message();
  std::string want;
  for (std::size_t k = 0; k < 3; ++k) {
    want += "len=" + std::to_string(1000 + k) + ";" + pattern(1000 + k, unsigned(k)) + "\n";
  }
  EXPECT_EQ(read_file(path), want);
}

TEST_F(ParallelOutput, EveryMemberOfThePartStreamWrites) {
  const auto path = dir_ / "out";
  std::ostringstream want;
  mapout::parallel_output out(path, 2);
  for (std::size_t k = 0; k < 2; ++k) {
    mapout::ostream& part = out.part(k);
    part.put('p').write("art", 3);
    part << ' ' << k << ' ' << 2.5 << ' ' << -7L << std::hex << 255 << std::dec << '\n';
    want << 'p' << "art" << ' ' << k << ' ' << 2.5 << ' ' << -7L << std::hex << 255 << std::dec
         << '\n';
    {
      mapout::cursor put(part);
      put << "cursor " << 42 << '\n';
    }
    want << "cursor " << 42 << '\n';
  }
  ASSERT_EQ(out.close(), std::error_code{}) << out.error_message();
  EXPECT_EQ(read_file(path), want.str());
}

TEST_F(ParallelOutput, PartClosedEarlyKeepsItsBytes) {
  const auto path = dir_ / "out";
  mapout::parallel_output out(path, 2);
  out.part(1) << "second";
  out.part(1).close();
  EXPECT_TRUE(out.part(1).good());
  out.part(0) << "first ";
  out.part(0).close();
  ASSERT_EQ(out.close(), std::error_code{}) << out.error_message();
  EXPECT_EQ(read_file(path), "first second");
}

TEST_F(ParallelOutput, WriteAfterAPartsCloseIsReportedAndTheRestJoined) {
  const auto path = dir_ / "out";
  mapout::parallel_output out(path, 3);
  out.part(1) << "second";
  out.part(1).close();
  out.part(1) << "lost";
  EXPECT_TRUE(out.part(1).bad());
  out.part(0) << "first ";
  out.part(2) << " third";
  EXPECT_EQ(out.close(), std::errc::bad_file_descriptor);
  EXPECT_EQ(out.error_message().rfind("mapout: write '" + path.string() + "' part 1: ", 0), 0u)
      << out.error_message();
  EXPECT_EQ(read_file(path), "first second third");
}

TEST_F(ParallelOutput, SecondCloseReturnsTheFirstsResult) {
  const auto path = dir_ / "out";
  mapout::parallel_output out(path, 2);
  out.part(1) << "b";
  EXPECT_EQ(out.close(), std::error_code{});
  EXPECT_FALSE(out.is_open());
  EXPECT_EQ(out.close(), std::error_code{});
  EXPECT_EQ(read_file(path), "b");
}

TEST_F(ParallelOutput, IndexOutOfRangeIsRefusedAndReported) {
  const auto path = dir_ / "out";
  write_file(path, "old");
  mapout::options opts;
  opts.atomic = true;
  mapout::parallel_output out(path, 2, opts);
  out.part(0) << "new";
  mapout::ostream& none = out.part(2);
  EXPECT_FALSE(none.is_open());
  EXPECT_TRUE(none.fail());
  none << "nowhere";
  EXPECT_EQ(out.close(), std::errc::invalid_argument);
  EXPECT_EQ(out.error_message(), "mapout: part '" + path.string() + "': no part 2 in 2");
  EXPECT_EQ(read_file(path), "old");
  EXPECT_EQ(mapout::test::names_in(dir_.path()), std::vector<std::string>{"out"});
}

TEST_F(ParallelOutput, PartAskedForByASecondThreadIsRefused) {
  const auto path = dir_ / "out";
  mapout::parallel_output out(path, 2);
  out.part(1) << "mine";
  bool refused = false;
  std::thread other([&] {
    mapout::ostream& stolen = out.part(1);
    refused = !stolen.is_open() && stolen.fail();
    stolen << "theirs";
  });
  other.join();
  EXPECT_TRUE(refused);
  EXPECT_EQ(out.close(), std::errc::device_or_resource_busy);
  EXPECT_EQ(out.error_message(),
            "mapout: part '" + path.string() + "': part 1 is held by another thread");
}

TEST_F(ParallelOutput, MissingDirectoryFailsEveryPartAndClose) {
  const auto path = dir_ / "missing" / "out";
  mapout::parallel_output out(path, 2);
  EXPECT_FALSE(out.is_open());
  EXPECT_EQ(out.error(), std::errc::no_such_file_or_directory);
  EXPECT_TRUE(out.part(1).fail());
  out.part(1) << "x";
  EXPECT_EQ(out.close(), std::errc::no_such_file_or_directory);
  EXPECT_EQ(out.error_message().rfind("mapout: open '" + path.string() + "': ", 0), 0u)
      << out.error_message();
}

// The system's null device: Windows names it NUL.
#ifdef _WIN32
constexpr const char* null_device = "NUL";
#else
constexpr const char* null_device = "/dev/null";
#endif

TEST_F(ParallelOutput, DeviceTargetIsRefused) {
  mapout::parallel_output out(null_device, 2);
  EXPECT_EQ(out.error(), std::errc::no_such_device);
  EXPECT_EQ(out.close(), std::errc::no_such_device);
  EXPECT_EQ(out.error_message(), std::string("mapout: open '") + null_device +
                                     "': a parallel output needs a regular file: " +
                                     std::make_error_code(std::errc::no_such_device).message());
}

TEST_F(ParallelOutput, AtomicReplacesTheTargetOnlyAtClose) {
  const auto path = dir_ / "out";
  write_file(path, "old");
  mapout::options opts;
  opts.atomic = true;
  mapout::parallel_output out(path, 2, opts);
  out.part(1) << pattern(70000, 1);
  out.part(0) << pattern(50000, 0);
  out.part(0).close();
  out.part(1).close();
  EXPECT_EQ(read_file(path), "old");
  ASSERT_EQ(out.close(), std::error_code{}) << out.error_message();
  EXPECT_EQ(read_file(path), pattern(50000, 0) + pattern(70000, 1));
}

TEST_F(ParallelOutput, AtomicDestructionWithoutCloseLeavesTheTarget) {
  const auto path = dir_ / "out";
  write_file(path, "old");
  mapout::options opts;
  opts.atomic = true;
  {
    mapout::parallel_output out(path, 2, opts);
    out.part(0) << "new";
    out.part(1) << "new";
  }
  EXPECT_EQ(read_file(path), "old");
  EXPECT_EQ(mapout::test::names_in(dir_.path()), std::vector<std::string>{"out"});
}

TEST_F(ParallelOutput, DestructionJoinsWithoutAtomic) {
  const auto path = dir_ / "out";
  {
    mapout::parallel_output out(path, 2);
    out.part(1) << "b";
    out.part(0) << "a";
  }
  EXPECT_EQ(read_file(path), "ab");
}

TEST_F(ParallelOutput, WriteIfChangedKeepsAnEqualFileAndReplacesAnother) {
  const auto path = dir_ / "out";
  const std::string first = pattern(300000, 0), second = pattern(200000, 1);
  write_file(path, first + second);
  const mapout::test::file_identity before = mapout::test::identity_of(path);
  mapout::options opts;
  opts.write_if_changed = true;
  {
    mapout::parallel_output out(path, 2, opts);
    out.part(1) << second;
    out.part(0) << first;
    ASSERT_EQ(out.close(), std::error_code{}) << out.error_message();
  }
  EXPECT_EQ(mapout::test::identity_of(path), before);
  {
    mapout::parallel_output out(path, 2, opts);
    out.part(1) << second << 'x';
    out.part(0) << first;
    ASSERT_EQ(out.close(), std::error_code{}) << out.error_message();
  }
  EXPECT_NE(mapout::test::identity_of(path), before);
  EXPECT_EQ(read_file(path), first + second + 'x');
}

int datasyncs = 0;

TEST_F(ParallelOutput, DurableSyncsTheJoinedFileOnce) {
  datasyncs = 0;
  system_call_override<&system_calls::fdatasync> count([](int fd) {
    ++datasyncs;
    return mapout::detail::real_system_calls().fdatasync(fd);
  });
  const auto path = dir_ / "out";
  mapout::options opts;
  opts.durable = true;
  mapout::parallel_output out(path, 3, opts);
  out.part(2) << "c";
  out.part(0) << "a";
  ASSERT_EQ(out.close(), std::error_code{}) << out.error_message();
  EXPECT_EQ(datasyncs, 1);
  EXPECT_EQ(read_file(path), "ac");
}

#ifndef _WIN32
TEST_F(ParallelOutput, FullDiskInAPartIsReportedWithThePart) {
  mapout::test::mounted_file_system small("1m");
  if (!small.mounted()) GTEST_SKIP() << small.error();
  for (const auto& which : mapout::test::strategies()) {
    SCOPED_TRACE(which.name);
    const auto path = small / "out";
    write_file(path, "old");
    mapout::options opts = which.opts;
    opts.atomic = true;
    mapout::parallel_output out(path, 2, opts);
    out.part(1) << "fits in memory";
    out.part(0) << pattern(2 << 20, 0);
    EXPECT_EQ(out.close(), std::errc::no_space_on_device);
    EXPECT_NE(out.error_message().find("'" + path.string() + "' part 0: "), std::string::npos)
        << out.error_message();
    EXPECT_EQ(read_file(path), "old");
    EXPECT_EQ(mapout::test::names_in(small / ""), std::vector<std::string>{"out"});
  }
}

TEST_F(ParallelOutput, FullDiskDuringTheJoinIsReported) {
  mapout::test::mounted_file_system small("1m");
  if (!small.mounted()) GTEST_SKIP() << small.error();
  for (const bool atomic : {false, true}) {
    SCOPED_TRACE(atomic ? "atomic" : "in place");
    const auto path = small / "out";
    write_file(path, "old");
    mapout::options opts;
    opts.atomic = atomic;
    mapout::parallel_output out(path, 3, opts);
    out.part(0) << "head";
    out.part(2) << pattern(2 << 20, 2);
    EXPECT_EQ(out.close(), std::errc::no_space_on_device);
    EXPECT_EQ(out.error_message(),
              "mapout: write '" + path.string() +
                  "': " + std::make_error_code(std::errc::no_space_on_device).message());
    if (atomic) {
      EXPECT_EQ(read_file(path), "old");
    }
    EXPECT_EQ(mapout::test::names_in(small / ""), std::vector<std::string>{"out"});
  }
}
#endif  // _WIN32

TEST_F(ParallelOutput, FailedExtensionOfAPartInMemoryIsReported) {
  const auto path = dir_ / "out";
  write_file(path, "old");
  mapout::options opts;
  opts.atomic = true;
  opts.strategy = mapout::strategy::mapped;
  mapout::parallel_output out(path, 2, opts);
  out.part(0) << "head";
  out.part(1) << pattern(1000, 1);
  {
    const mapout::test::part_memory_calls full(0, ENOSPC);
    out.part(1) << pattern(100000, 1);
  }
  EXPECT_TRUE(out.part(1).bad());
  EXPECT_EQ(out.close(), std::errc::no_space_on_device);
  EXPECT_NE(out.error_message().find("'" + path.string() + "' part 1: "), std::string::npos)
      << out.error_message();
  EXPECT_EQ(read_file(path), "old");
}

TEST_F(ParallelOutput, FailedWriteOfABufferedPartInMemoryIsReported) {
  const auto path = dir_ / "out";
  write_file(path, "old");
  mapout::options opts;
  opts.atomic = true;
  mapout::parallel_output out(path, 2, opts);
  out.part(0) << "head";
  {
    const mapout::test::part_memory_calls full(0, ENOSPC);
    out.part(1) << pattern(100000, 1);
  }
  EXPECT_TRUE(out.part(1).bad());
  EXPECT_EQ(out.close(), std::errc::no_space_on_device);
  EXPECT_NE(out.error_message().find("'" + path.string() + "' part 1: "), std::string::npos)
      << out.error_message();
  EXPECT_EQ(read_file(path), "old");
}

TEST_F(ParallelOutput, FailedMemoryForAPartIsReported) {
  const auto path = dir_ / "out";
  mapout::parallel_output out(path, 2);
  {
    const mapout::test::part_memory_calls none(ENOMEM);
    EXPECT_TRUE(out.part(1).fail());
  }
  EXPECT_EQ(out.close(), std::errc::not_enough_memory);
  EXPECT_EQ(out.error_message().rfind("mapout: reserve memory '" + path.string() + "': ", 0), 0u)
      << out.error_message();
}

TEST_F(ParallelOutput, FailedCopyIntoPlaceIsReported) {
  const auto path = dir_ / "out";
  write_file(path, "old");
  mapout::options opts;
  opts.atomic = true;
  // The join writes where it has not measured the file system (tested way by way in
  // parallel_join_test.cpp).
  const mapout::test::on_unmeasured_file_system writes;
  system_call_override<&system_calls::pwrite> broken(
      [](int, const void*, std::size_t, off_t) -> ssize_t { return errno = EIO, -1; });
  mapout::parallel_output out(path, 2, opts);
  out.part(0) << "head";
  out.part(1) << pattern(9 << 20, 1);
  EXPECT_EQ(out.close(), std::errc::io_error);
  EXPECT_EQ(out.error_message(), "mapout: write '" + path.string() +
                                     "': " + std::make_error_code(std::errc::io_error).message());
  EXPECT_EQ(read_file(path), "old");
}

}  // namespace
