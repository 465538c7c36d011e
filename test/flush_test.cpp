// flush() and std::endl on a regular file cost no system call: on the mapping the bytes are in
// the page cache the moment they are stored, and a buffer waits for publish() or close(). On a
// pipe they are a write(2), as with std::ofstream. Counted through the system-call seam, not timed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "file_extension.hpp"
#include "mapout/ostream.hpp"
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

// A regular file on the buffered strategy, and the first buffer of the automatic one, keep their
// bytes on flush as the mapping does; publish() and close() write them.
TEST(Flush, EndlOnABufferedRegularFileCostsNoSystemCall) {
  for (const mapout::options& opts : {buffered(), mapout::options{}}) {
    temp_dir dir;
    mapout::ostream out(dir / "out", std::ios::out, opts);
    system_call_log calls;
    for (int i = 0; i < 100; ++i) out << "line " << i << std::endl;
    EXPECT_EQ(calls.output_calls(), 0u);
    out.publish();
    EXPECT_EQ(calls.writes(), 1);
    EXPECT_EQ(std::filesystem::file_size(dir / "out"), 790u);
    out.close();
    ASSERT_TRUE(out);
  }
}

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

}  // namespace
