// flush() and std::endl on a regular file cost no system call: on the mapping the bytes are in
// the page cache the moment they are stored, and a buffer waits for publish() or close(). On a
// pipe they are a write(2), as with std::ofstream. With options.flush_publishes a reader of a
// regular file sees each flushed line, at the cost of std::ofstream's flush. Counted through the
// system-call seam, not timed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "file_system_type.hpp"
#include "mapout/ostream.hpp"
#include "mapping/extent.hpp"
#include "strategies.hpp"
#include "system_call_log.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::buffered;
using mapout::test::mapped;
using mapout::test::read_file;
using mapout::test::system_call_log;
using mapout::test::temp_dir;

// The lines fit in the first extension (64 KiB), so any system call in the loop would be a flush.
constexpr int lines = 5000;

TEST(Flush, EndlOnEveryLineCostsNoSystemCallOnAMappedFile) {
  temp_dir dir;
  const auto path = dir / "out";
  std::string expected;
  mapout::ostream out(path, std::ios::out, mapped());
  ASSERT_TRUE(out.rdbuf()->file().is_mapped());
  out << "header" << std::endl;  // the first extension happens here
  expected += "header\n";
  system_call_log calls;
  for (int i = 0; i < lines; ++i) {
    out << "line " << i << std::endl;
    out.flush();
    expected += "line " + std::to_string(i) + '\n';
  }
  EXPECT_EQ(calls.output_calls(), 0u);
  out.close();
  ASSERT_TRUE(out) << out.rdbuf()->error_message();
  ASSERT_LT(expected.size(), mapout::detail::smallest_extension_step);
  EXPECT_EQ(read_file(path), expected);
}

// What std::endl promises survives the process: on the buffered strategy each flush writes, as
// std::ofstream's; on the automatic one the first flush writes and the second hands the file over
// to the mapping, where every later flush is a store already in the file.
TEST(Flush, EndlOnABufferedRegularFileWritesEachLine) {
  temp_dir dir;
  mapout::ostream out(dir / "out", std::ios::out, buffered());
  system_call_log calls;
  for (int i = 0; i < 100; ++i) out << "line " << i << std::endl;
  EXPECT_EQ(calls.writes(), 100);
  EXPECT_EQ(std::filesystem::file_size(dir / "out"), 790u);
  out.close();
  ASSERT_TRUE(out);
}

TEST(Flush, EndlByDefaultMapsAtTheSecondFlushAndCostsNoSystemCallAfter) {
  temp_dir dir;
  mapout::ostream out(dir / "out");
  {
    system_call_log calls;
    out << "line 0" << std::endl;
    EXPECT_EQ(calls.writes(), 1);
    EXPECT_EQ(calls.mmaps(), 0);
  }
  out << "line 1" << std::endl;
  EXPECT_TRUE(out.rdbuf()->file().is_mapped());
  out << "line 2" << std::endl;  // the mapping's first window: the file extended and mapped
  system_call_log calls;
  for (int i = 3; i < 100; ++i) out << "line " << i << std::endl;
  EXPECT_EQ(calls.output_calls(), 0u);
  out.close();
  ASSERT_TRUE(out);
  std::string expected;
  for (int i = 0; i < 100; ++i) expected += "line " + std::to_string(i) + "\n";
  EXPECT_EQ(read_file(dir / "out"), expected);
}

#ifndef _WIN32
// On a pipe, as with std::ofstream, every std::endl is a write(2): a reader waits for the line.
// The same count finds what the tests above say is absent.
TEST(Flush, EndlOnAPipeWritesEachLine) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  {
    mapout::ostream out("/proc/self/fd/" + std::to_string(ends[1]));
    ASSERT_TRUE(out.is_open());
    system_call_log calls;
    for (int i = 0; i < 100; ++i) out << "line " << i << std::endl;  // 790 bytes fit the pipe
    EXPECT_EQ(calls.writes(), 100);
    out.close();
    ASSERT_TRUE(out);
  }
  ::close(ends[1]);
  char bytes[1024];
  EXPECT_EQ(::read(ends[0], bytes, sizeof bytes), 790);
  ::close(ends[0]);
}
#endif  // _WIN32

TEST(Flush, PublishCostsOneSizeChange) {
  temp_dir dir;
  mapout::ostream out(dir / "out", std::ios::out, mapped());
  out << "some bytes\n";
  system_call_log calls;
  out.publish();
  EXPECT_EQ(calls.ftruncate_lengths(), std::vector<off_t>{11});
  EXPECT_EQ(calls.output_calls(), 1u);
  out.close();
  ASSERT_TRUE(out);
}

// What another process sees of the file: its size, and the bytes read through a descriptor of its
// own.
std::string seen_by_a_reader(const std::filesystem::path& path) {
  const int fd = ::open(path.string().c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || ::fstat(fd, &st) != 0) return "cannot open or stat";
  std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
#ifdef _WIN32
  const ssize_t got = ::read(fd, bytes.data(), static_cast<unsigned>(bytes.size()));
#else
  const ssize_t got = ::pread(fd, bytes.data(), bytes.size(), 0);
#endif
  ::close(fd);
  return got == st.st_size ? bytes : "short read";
}

// The last `count` bytes as `tail -c` prints them.
#ifdef _WIN32
// No tail(1) to run here: the last bytes as a reader's own handle of the file finds them.
std::string tail_of(const std::filesystem::path& path, std::size_t count) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const std::streamoff size = in.tellg();
  if (!in || size < static_cast<std::streamoff>(count)) return "short file";
  in.seekg(size - static_cast<std::streamoff>(count));
  std::string bytes(count, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(count));
  return in ? bytes : "read failed";
}
#else
std::string tail_of(const std::filesystem::path& path, std::size_t count) {
  const std::string command = "tail -c " + std::to_string(count) + " '" + path.string() + "'";
  FILE* const tail = ::popen(command.c_str(), "r");
  if (tail == nullptr) return "popen failed";
  std::string bytes;
  char chunk[4096];
  while (const std::size_t got = std::fread(chunk, 1, sizeof chunk, tail)) bytes.append(chunk, got);
  return ::pclose(tail) == 0 ? bytes : "tail failed";
}
#endif

mapout::options publishing(mapout::options opts) {
  opts.flush_publishes = true;
  return opts;
}

// A log read while it is written: after every std::endl, std::flush, flush() and unitbuf insertion
// a reader sees exactly the bytes written and the file's size, on every strategy, as with
// std::ofstream; `tail -c` sees the last line.
TEST(Flush, WithFlushPublishesAReaderSeesEveryFlushedLine) {
  for (const auto& which : mapout::test::window_cases()) {
    SCOPED_TRACE(which.name);
    temp_dir dir;
    const auto path = dir / "log";
    mapout::ostream out(path, std::ios::out, publishing(which.opts));
    std::mt19937 random(11);
    std::string expected;
    for (int i = 0; i < 400; ++i) {
      const std::string line =
          "line " + std::to_string(i) + ' ' + std::string(random() % 700, 'x') + '\n';
      expected += line;
      switch (i % 4) {
        case 0:
          out << line.substr(0, line.size() - 1) << std::endl;
          break;
        case 1:
          out << line << std::flush;
          break;
        case 2:
          out.write(line.data(), static_cast<std::streamsize>(line.size()));
          out.flush();
          break;
        default:
          out << std::unitbuf << line << std::nounitbuf;
      }
      ASSERT_TRUE(out) << out.error_message();
      ASSERT_TRUE(seen_by_a_reader(path) == expected) << "after line " << i;
      if (i % 100 == 99) {
        EXPECT_EQ(tail_of(path, line.size()), line);
      }
    }
    out.close();
    EXPECT_TRUE(out);
    EXPECT_TRUE(read_file(path) == expected);
  }
}

#ifndef _WIN32
// The cost is std::ofstream's: a write(2) per flush and no size change, also where automatic would
// map the file (a local file system it has not measured) once it outgrows the first buffer.
TEST(Flush, WithFlushPublishesEveryEndlCostsOneWrite) {
  const mapout::test::on_unmeasured_file_system unmeasured;
  for (const mapout::options& opts : {mapout::options{}, buffered()}) {
    temp_dir dir;
    mapout::ostream out(dir / "log", std::ios::out, publishing(opts));
    out << std::string(99999, 'z') << std::endl;  // more than the first buffer holds
    const std::string line(999, 'y');
    system_call_log calls;
    for (int i = 0; i < 200; ++i) out << line << std::endl;
    EXPECT_EQ(calls.writes(), 200);
    EXPECT_EQ(calls.output_calls(), 200u);
    EXPECT_FALSE(out.rdbuf()->file().is_mapped());
    out.close();
    ASSERT_TRUE(out);
    EXPECT_EQ(std::filesystem::file_size(dir / "log"), 100000u + 200u * 1000);
  }
}
#endif  // _WIN32

}  // namespace
