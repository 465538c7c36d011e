// flush() and std::endl on a mapped file cost no system call: the bytes are in the page cache the
// moment they are stored. Counted through the system-call seam, not timed.
#include <gtest/gtest.h>

#include <string>

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

constexpr int lines = 10000;

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
  EXPECT_EQ(read_file(path), expected);
}

// The same count on the buffered strategy finds one write(2) per line, as std::ofstream makes:
// the log sees what the mapped test says is absent.
TEST(Flush, EndlOnTheBufferedStrategyWritesEachLine) {
  temp_dir dir;
  mapout::ostream out(dir / "out", std::ios::out, buffered());
  system_call_log calls;
  for (int i = 0; i < 100; ++i) out << "line " << i << std::endl;
  EXPECT_EQ(calls.writes(), 100);
  out.close();
  ASSERT_TRUE(out);
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
