// A stream's life: destruction without close(), move construction and assignment, swap, and
// reopening, for mapout::ostream and mapout::streambuf. Bytes must always reach the right file.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <utility>

#include "mapout/ostream.hpp"
#include "mapout/streambuf.hpp"
#include "strategies.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::mapped;
using mapout::test::page_size;
using mapout::test::read_file;
using mapout::test::strategies;
using mapout::test::strategy_case;
using mapout::test::temp_dir;

const std::size_t page = page_size();

// More than a page and a buffer, so that a move or swap happens with the window in mid-file.
std::string block(char c) {
  return std::string(3 * page + 5, c);
}

TEST(Lifetime, DestructionWithoutCloseLeavesTheExactBytes) {
  temp_dir dir;
  for (const strategy_case& c : strategies()) {
    SCOPED_TRACE(c.name);
    const auto path = dir / "out";
    std::string expected;
    {
      mapout::ostream out(path, std::ios::out, c.opts);
      for (int i = 0; i < 20000; ++i) {
        out << i << '\n';
        expected += std::to_string(i) + '\n';
      }
      out.seekp(0);
      out << "patched";
      expected.replace(0, 7, "patched");
    }
    const std::string got = read_file(path);
    ASSERT_EQ(got.size(), expected.size());
    EXPECT_TRUE(got == expected);

    {
      mapout::streambuf buf;
      ASSERT_NE(buf.open(path, std::ios::out, c.opts), nullptr);
      std::ostream out(&buf);
      out << "streambuf alone\n";
    }
    EXPECT_EQ(read_file(path), "streambuf alone\n");
  }
}

TEST(Lifetime, MoveConstructionKeepsWritingToTheSameFile) {
  temp_dir dir;
  for (const strategy_case& c : strategies()) {
    SCOPED_TRACE(c.name);
    const auto path = dir / "out";
    mapout::ostream source(path, std::ios::out, c.opts);
    source << block('a');
    mapout::ostream moved(std::move(source));
    EXPECT_FALSE(source.is_open());
    EXPECT_TRUE(moved.is_open());
    moved << block('b');
    source << "lost";
    EXPECT_TRUE(source.bad());
    moved.close();
    ASSERT_TRUE(moved) << moved.rdbuf()->error_message();
    EXPECT_EQ(read_file(path), block('a') + block('b'));
  }
}

TEST(Lifetime, MoveAssignmentClosesTheTargetAndTakesTheSource) {
  temp_dir dir;
  for (const strategy_case& c : strategies()) {
    SCOPED_TRACE(c.name);
    mapout::ostream first(dir / "first", std::ios::out, c.opts);
    mapout::ostream second(dir / "second", std::ios::out, c.opts);
    first << block('1');
    second << block('2');
    second = std::move(first);
    // The assigned-to stream's own file was closed to its exact bytes.
    EXPECT_EQ(read_file(dir / "second"), block('2'));
    EXPECT_FALSE(first.is_open());
    second << "more";
    second.close();
    ASSERT_TRUE(second) << second.rdbuf()->error_message();
    EXPECT_EQ(read_file(dir / "first"), block('1') + "more");
  }
}

TEST(Lifetime, SwapExchangesTheFiles) {
  temp_dir dir;
  for (const strategy_case& c : strategies()) {
    SCOPED_TRACE(c.name);
    mapout::ostream first(dir / "first", std::ios::out, c.opts);
    mapout::ostream second(dir / "second", std::ios::out, c.opts);
    first << block('1');
    second << block('2');
    first.swap(second);
    first << "to second";
    second << "to first";
    swap(first, second);
    first << ", first again";
    second << ", second again";
    first.close();
    second.close();
    ASSERT_TRUE(first && second);
    EXPECT_EQ(read_file(dir / "first"), block('1') + "to first, first again");
    EXPECT_EQ(read_file(dir / "second"), block('2') + "to second, second again");
  }
}

TEST(Lifetime, StreambufMoveAndSwapKeepTheirFiles) {
  temp_dir dir;
  for (const strategy_case& c : strategies()) {
    SCOPED_TRACE(c.name);
    mapout::streambuf first;
    ASSERT_NE(first.open(dir / "first", std::ios::out, c.opts), nullptr);
    first.sputn(block('1').data(), static_cast<std::streamsize>(block('1').size()));

    mapout::streambuf moved(std::move(first));
    EXPECT_FALSE(first.is_open());
    moved.sputn("a", 1);

    mapout::streambuf assigned;
    ASSERT_NE(assigned.open(dir / "second", std::ios::out, c.opts), nullptr);
    assigned.sputn("second", 6);
    assigned = std::move(moved);
    EXPECT_EQ(read_file(dir / "second"), "second");
    EXPECT_FALSE(moved.is_open());
    assigned.sputc('b');

    mapout::streambuf other;
    ASSERT_NE(other.open(dir / "third", std::ios::out, c.opts), nullptr);
    other.sputn(block('3').data(), static_cast<std::streamsize>(block('3').size()));
    swap(assigned, other);
    assigned.sputc('3');
    other.sputc('c');
    std::ostream through(&other);
    through << "d" << 4;

    EXPECT_EQ(assigned.close(), &assigned);
    EXPECT_EQ(other.close(), &other);
    EXPECT_EQ(read_file(dir / "first"), block('1') + "abcd4");
    EXPECT_EQ(read_file(dir / "third"), block('3') + "3");
  }
}

TEST(Lifetime, ReopenAfterCloseWritesTheNewFile) {
  temp_dir dir;
  mapout::ostream out(dir / "first", std::ios::out, mapped());
  out << "first";
  out.close();
  out.open(dir / "second");
  ASSERT_TRUE(out.is_open());
  EXPECT_TRUE(out);
  out << "second";
  out.close();
  ASSERT_TRUE(out);
  EXPECT_EQ(read_file(dir / "first"), "first");
  EXPECT_EQ(read_file(dir / "second"), "second");
}

TEST(Lifetime, ReopenAfterFailedOpenClearsTheState) {
  temp_dir dir;
  mapout::ostream out(dir / "missing" / "file");
  EXPECT_TRUE(out.fail());
  out.open(dir / "file");
  ASSERT_TRUE(out.is_open());
  EXPECT_TRUE(out);
  EXPECT_EQ(out.rdbuf()->error_message(), "");
  out << "written";
  out.close();
  EXPECT_TRUE(out);
  EXPECT_EQ(read_file(dir / "file"), "written");
}

}  // namespace
