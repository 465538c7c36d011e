// Seeking back to patch what was written, under every strategy and where strategy::automatic
// keeps its buffer or maps: at every boundary a patch can straddle, and when patching fails.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bytes.hpp"
#include "child_process.hpp"
#include "file_system_type.hpp"
#include "mapout/ostream.hpp"
#include "mounted_file_system.hpp"
#include "strategies.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::mounted_file_system;
using mapout::test::page_size;
using mapout::test::pattern;
using mapout::test::read_file;
using mapout::test::run_in_child;
using mapout::test::temp_dir;

// One page of buffer and of mapping, so that the buffer's start, a page end and the mapping's end
// all fall on the boundaries the records are written across.
struct seeking_case {
  const char* name;
  mapout::options opts;
  bool maps_where_automatic_maps;
};

std::vector<seeking_case> seeking_cases() {
  mapout::options automatic;
  automatic.buffer_size = page_size();
  automatic.mapping_size = page_size();
  return {{"automatic, buffer", automatic, false},
          {"automatic, mapping after the first buffer", automatic, true},
          {"buffered", mapout::test::buffered(page_size()), false},
          {"mapped", mapout::test::mapped(page_size()), false}};
}

// While alive, files are on a file system where automatic maps, if the case asks for one.
struct file_system_of {
  explicit file_system_of(const seeking_case& c) {
    if (c.maps_where_automatic_maps) unmeasured.emplace();
  }
  std::optional<mapout::test::on_unmeasured_file_system> unmeasured;
};

// Writes `lead` bytes, then a record whose length is patched behind it, then a tail, to both
// streams; each position must agree.
template <class Stream>
void write_patched_record(Stream& out, std::size_t lead, std::size_t body) {
  out << std::string(lead, 'l');
  const auto start = out.tellp();
  out << "????" << std::string(body, 'b');
  out.seekp(start);
  out << "LEN:";
  out.seekp(0, std::ios::end);
  out << "tail";
}

TEST(Seeking, PatchStraddlingEveryBoundaryMatchesOstringstream) {
  const std::size_t page = page_size();
  for (const seeking_case& c : seeking_cases()) {
    SCOPED_TRACE(c.name);
    const file_system_of place(c);
    temp_dir dir;
    for (std::size_t boundary : {page, 2 * page, 3 * page}) {
      for (std::size_t lead = boundary - 12; lead <= boundary + 2; ++lead) {
        SCOPED_TRACE("lead " + std::to_string(lead));
        std::ostringstream expected;
        write_patched_record(expected, lead, 6);
        mapout::ostream out(dir / "out", std::ios::out, c.opts);
        write_patched_record(out, lead, 6);
        EXPECT_EQ(out.tellp(), expected.tellp());
        out.close();
        ASSERT_TRUE(out) << out.rdbuf()->error_message();
        ASSERT_EQ(read_file(dir / "out"), expected.str());
      }
    }
  }
}

TEST(Seeking, SeekBackBeforeAnyByteWasWritten) {
  for (const seeking_case& c : seeking_cases()) {
    SCOPED_TRACE(c.name);
    const file_system_of place(c);
    temp_dir dir;
    mapout::ostream out(dir / "out", std::ios::out, c.opts);
    out.seekp(0);
    out.seekp(0, std::ios::end);
    EXPECT_EQ(out.tellp(), std::streampos(0));
    out.seekp(-1, std::ios::cur);
    EXPECT_TRUE(out.fail());
    out.clear();
    out << "first";
    out.seekp(0);
    out << "F";
    out.close();
    ASSERT_TRUE(out) << out.rdbuf()->error_message();
    EXPECT_EQ(read_file(dir / "out"), "First");
  }
}

// Past the end and back, before and after the gap is written: zeros in between, and the end is
// where the last byte was written, not where the cursor went.
TEST(Seeking, PastTheEndAndBackLeavesZerosAndTheRightEnd) {
  const std::size_t page = page_size();
  for (const seeking_case& c : seeking_cases()) {
    SCOPED_TRACE(c.name);
    const file_system_of place(c);
    temp_dir dir;
    mapout::ostream out(dir / "out", std::ios::out, c.opts);
    out << "head";
    out.seekp(static_cast<std::streamoff>(3 * page + 5));
    out.seekp(0, std::ios::end);
    EXPECT_EQ(out.tellp(), std::streampos(4));
    out.seekp(static_cast<std::streamoff>(2 * page + 1));
    out << "far";
    out.seekp(1);
    out << "E";
    out.seekp(0, std::ios::end);
    EXPECT_EQ(out.tellp(), std::streampos(static_cast<std::streamoff>(2 * page + 4)));
    out.close();
    ASSERT_TRUE(out) << out.rdbuf()->error_message();
    std::string expected = "hEad" + std::string(2 * page - 3, '\0') + "far";
    EXPECT_EQ(read_file(dir / "out"), expected);
  }
}

// Appending and pipes keep the buffer however much the stream seeks.
TEST(Seeking, AppendAndPipesNeverMap) {
  const mapout::test::on_unmeasured_file_system unmeasured;
  temp_dir dir;
  mapout::options opts;
  opts.buffer_size = 64;
  mapout::ostream log(dir / "log", std::ios::app, opts);
  for (int i = 0; i < 100; ++i) {
    log << std::string(100, 'a');
    log.seekp(0);
  }
  EXPECT_FALSE(log.rdbuf()->file().is_mapped());
  log.close();
  EXPECT_TRUE(log);
  EXPECT_EQ(read_file(dir / "log"), std::string(10000, 'a'));

  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t reader = mapout::test::spawn([&] {
    ::close(fds[1]);
    char bytes[4096];
    while (::read(fds[0], bytes, sizeof bytes) > 0) {
    }
    return 0;
  });
  ::close(fds[0]);
  mapout::ostream pipe("/dev/fd/" + std::to_string(fds[1]), std::ios::out, opts);
  ::close(fds[1]);
  for (int i = 0; i < 100; ++i) {
    pipe << std::string(100, 'p');
    pipe.seekp(0);
    EXPECT_TRUE(pipe.fail());
    pipe.clear();
  }
  EXPECT_FALSE(pipe.rdbuf()->file().is_mapped());
  pipe.close();
  EXPECT_TRUE(pipe);
  EXPECT_EQ(mapout::test::wait_for(reader), 0);
}

// A patch far past the free space fails like any other write: ENOSPC, at the seek or the close
// that writes it out, and the bytes before it are kept.
TEST(Seeking, FullDiskWhilePatchingIsEnospc) {
  mounted_file_system fs("1m");
  if (!fs.mounted()) GTEST_SKIP() << "needs root to mount a tmpfs: " << fs.error();
  for (const seeking_case& c : seeking_cases()) {
    SCOPED_TRACE(c.name);
    const auto child = run_in_child([&] {
      const file_system_of place(c);
      const std::string bytes = pattern(2 << 20);
      mapout::ostream out(fs / "f", std::ios::out, c.opts);
      out.write(bytes.data(), 100 << 10);
      out.seekp(10);
      out << "patch";
      out.seekp(600 << 10);
      out.write(bytes.data(), 1 << 20);  // more than the file system holds
      out.seekp(20);
      out << "second patch";
      out.close();
      if (out.error() != std::errc::no_space_on_device) return "error: " + out.error_message();
      const std::string got = read_file(fs / "f");
      std::string want = bytes.substr(0, 100 << 10);
      want.replace(10, 5, "patch");
      if (got.compare(0, want.size(), want) != 0) return std::string("lost the written bytes");
      return std::string("ok");
    });
    EXPECT_EQ(child.status, 0) << "the child did not exit normally";
    EXPECT_EQ(child.report, "ok");
    std::filesystem::remove(fs / "f");
  }
}

// Another process cuts the file while a patch is pending: the mapping's guard turns the fault into
// EIO, the buffer's pwrite simply lands; nobody dies of SIGBUS.
TEST(Seeking, FileTruncatedByAnotherProcessWhilePatching) {
  for (const seeking_case& c : seeking_cases()) {
    SCOPED_TRACE(c.name);
    temp_dir dir;
    const auto child = run_in_child([&] {
      const file_system_of place(c);
      const std::string bytes = pattern(1 << 20);
      mapout::ostream out(dir / "f", std::ios::out, c.opts);
      out.write(bytes.data(), 256 << 10);
      out.publish();
      if (::truncate((dir / "f").c_str(), 0) != 0) return std::string("truncate failed");
      out.seekp(100 << 10);
      out << "patch";
      out.seekp(0, std::ios::end);
      out << "tail";
      out.close();
      if (out) return std::string("ok");
      return out.error() == std::errc::io_error ? std::string("ok")
                                                : "error: " + out.error_message();
    });
    EXPECT_EQ(child.status, 0) << "the child did not exit normally";
    EXPECT_EQ(child.report, "ok");
  }
}

}  // namespace
