// A part of a parallel output held in memory has its pages populated a bounded step ahead of the
// stores (MADV_POPULATE_WRITE), one call per step instead of a fault per page, and writes on with
// page faults where the kernel refuses or the part seeks past the populated pages.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "bytes.hpp"
#include "mapout/parallel.hpp"
#include "populate_log.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::pattern;
using mapout::test::populate_call;
using mapout::test::populate_log;
using mapout::test::read_file;
using mapout::test::temp_dir;

constexpr std::size_t step = std::size_t{256} << 10;

void write_in_pieces(mapout::ostream& out, const std::string& text) {
  for (std::size_t at = 0; at < text.size(); at += 100) {
    out.write(text.data() + at,
              static_cast<std::streamsize>(std::min<std::size_t>(100, text.size() - at)));
  }
}

std::size_t populated(const std::vector<populate_call>& calls) {
  std::size_t sum = 0;
  for (const populate_call& call : calls) sum += call.length;
  return sum;
}

// Part 1 runs ahead of part 0, so it is held in memory until the join. The calls are read before
// part 0 writes and the join copies, which populate too where they map (tmpfs).
TEST(ParallelPopulate, HeldPartPopulatesAheadInBoundedSteps) {
  temp_dir dir;
  const std::string first = pattern(5000);
  const std::string second = pattern((std::size_t{10} << 20) + 12345, 7);
  std::vector<populate_call> calls;
  {
    const populate_log log;
    mapout::parallel_output out(dir / "out", 2);
    write_in_pieces(out.part(1), second);
    calls = populate_log::taken();
    out.part(0) << first;
    ASSERT_FALSE(out.close()) << out.error_message();
  }
  // One call per step, not one per page, and never much past the bytes: 10 MiB in 256 KiB steps,
  // and a few shorter ones while the usable memory is smaller than a step.
  ASSERT_GE(calls.size(), second.size() / step);
  EXPECT_LE(calls.size(), second.size() / step + 4);
  for (const populate_call& call : calls) {
    EXPECT_LE(call.length, step);
    EXPECT_EQ(call.result, 0);
  }
  EXPECT_GE(populated(calls), second.size());
  EXPECT_LE(populated(calls), second.size() + step);
  EXPECT_EQ(read_file(dir / "out"), first + second);
}

TEST(ParallelPopulate, OneWriteLargerThanAStepIsPopulatedWhole) {
  temp_dir dir;
  const std::string second = pattern((std::size_t{3} << 20) + 5, 3);
  std::vector<populate_call> calls;
  {
    const populate_log log;
    mapout::parallel_output out(dir / "out", 2);
    out.part(1) << 'x';
    out.part(1).write(second.data(), static_cast<std::streamsize>(second.size()));
    calls = populate_log::taken();
    ASSERT_FALSE(out.close()) << out.error_message();
  }
  EXPECT_GE(populated(calls), second.size() + 1);
  EXPECT_LE(populated(calls), second.size() + 1 + step);
  EXPECT_EQ(read_file(dir / "out"), "x" + second);
}

TEST(ParallelPopulate, RefusedOnceTheStoresFaultThePagesIn) {
  temp_dir dir;
  const std::string second = pattern((std::size_t{2} << 20) + 77, 5);
  std::vector<populate_call> calls;
  {
    const populate_log log(populate_log::refuse);
    mapout::parallel_output out(dir / "out", 2);
    write_in_pieces(out.part(1), second);
    calls = populate_log::taken();
    out.part(0) << "head";
    ASSERT_FALSE(out.close()) << out.error_message();
  }
  EXPECT_EQ(calls.size(), 1u);  // asked once, then never again for this part
  EXPECT_EQ(read_file(dir / "out"), "head" + second);
}

// A part that leaves a hole populates none of the pages past it: the hole stays unbacked.
TEST(ParallelPopulate, SeekPastThePopulatedPagesStopsPopulating) {
  temp_dir dir;
  const std::string before = pattern(100000, 1);
  const std::string after = pattern(std::size_t{1} << 20, 2);
  const std::size_t hole_end = std::size_t{8} << 20;
  std::size_t calls_before_seek = 0;
  std::size_t calls_after = 0;
  {
    const populate_log log;
    mapout::parallel_output out(dir / "out", 2);
    mapout::ostream& part = out.part(1);
    write_in_pieces(part, before);
    calls_before_seek = populate_log::taken().size();
    part.seekp(static_cast<std::streamoff>(hole_end));
    write_in_pieces(part, after);
    ASSERT_TRUE(part) << part.rdbuf()->error_message();
    calls_after = populate_log::taken().size();
    ASSERT_FALSE(out.close()) << out.error_message();
  }
  EXPECT_GE(calls_before_seek, 1u);
  EXPECT_EQ(calls_after, calls_before_seek);
  std::string expected = before;
  expected.resize(hole_end, '\0');
  expected += after;
  EXPECT_EQ(read_file(dir / "out"), expected);
}

}  // namespace
