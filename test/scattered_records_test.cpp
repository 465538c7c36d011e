// Small records stored at random offsets of a laid-out file, what an index or a hash table in a
// file is: the mapping covers every byte laid out instead of moving at each record, and
// strategy::automatic moves from its buffer to that mapping, while a stream is never mapped.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>
#include <random>
#include <string>

#include "file_system_type.hpp"
#include "mapout/cursor.hpp"
#include "mapout/ostream.hpp"
#include "strategies.hpp"
#include "system_call_log.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::mapped;
using mapout::test::page_size;
using mapout::test::read_file;
using mapout::test::system_call_log;
using mapout::test::temp_dir;

constexpr std::size_t record = 16;

// Lays out `slots` records of zeros, as an index is (a seek to the last byte, a zero), then
// stores `count` records at random slots in `out` and in the returned bytes alike.
std::string fill_at_random(mapout::ostream& out, std::size_t slots, int count) {
  std::string expected(slots * record, '\0');
  out.seekp(static_cast<std::streamoff>(expected.size() - 1));
  out.put('\0');
  std::mt19937_64 random(7);
  for (int i = 0; i < count; ++i) {
    const std::size_t slot = random() % slots;
    const std::string bytes(record, static_cast<char>('a' + i % 26));
    out.seekp(static_cast<std::streamoff>(slot * record));
    out.write(bytes.data(), record);
    expected.replace(slot * record, record, bytes);
  }
  return expected;
}

// The file system's type (statfs magic) is Linux's: what automatic asks there.
#ifndef _WIN32
template <long Magic>
void expect_automatic_maps_scattered_records() {
  temp_dir dir;
  const mapout::test::file_system_type<Magic> pretend;
  const auto path = dir / "index";
  mapout::ostream out(path, std::ios::binary);
  ASSERT_TRUE(out.is_open()) << out.rdbuf()->error_message();
  const std::string expected = fill_at_random(out, 65536, 1000);
  EXPECT_TRUE(out.rdbuf()->file().is_mapped());
  out.close();
  ASSERT_TRUE(out) << out.rdbuf()->error_message();
  EXPECT_EQ(read_file(path), expected);
}

TEST(ScatteredRecords, AutomaticMapsThemOnExt4) {
  expect_automatic_maps_scattered_records<mapout::test::ext4_magic>();
}

TEST(ScatteredRecords, AutomaticMapsThemOnTmpfs) {
  expect_automatic_maps_scattered_records<mapout::test::tmpfs_magic>();
}

// Length-prefixed records patched behind their bodies, and a header patched at the end: seeks
// that come back, which the buffer serves, never a reason to map.
TEST(ScatteredRecords, AutomaticNeverMapsAPatchedStream) {
  temp_dir dir;
  const mapout::test::file_system_type<mapout::test::ext4_magic> ext4;
  const auto path = dir / "stream";
  mapout::ostream out(path, std::ios::binary);
  std::string expected(8, '\0');
  out.write(expected.data(), 8);
  for (int i = 0; i < 200000; ++i) {
    const std::string body(static_cast<std::size_t>(16 + i % 180), static_cast<char>('a' + i % 26));
    const std::streamoff start = out.tellp();
    out.write("????", 4);
    out.write(body.data(), static_cast<std::streamsize>(body.size()));
    const std::string length = std::to_string(body.size() % 1000 + 1000);
    out.seekp(start);
    out.write(length.data(), 4);
    out.seekp(0, std::ios::end);
    expected += length + body;
    ASSERT_FALSE(out.rdbuf()->file().is_mapped()) << "record " << i;
  }
  out.seekp(0);
  out.write("header!!", 8);
  expected.replace(0, 8, "header!!");
  EXPECT_FALSE(out.rdbuf()->file().is_mapped());
  out.close();
  ASSERT_TRUE(out) << out.rdbuf()->error_message();
  EXPECT_EQ(read_file(path), expected);
}
#endif  // _WIN32

// With a one-page mapping, each record would otherwise move it: the laid-out file is mapped once
// for all of them.
TEST(ScatteredRecords, MappedMapsTheLaidOutFileOnce) {
  temp_dir dir;
  const auto path = dir / "index";
  mapout::ostream out(path, std::ios::binary, mapped(page_size()));
  ASSERT_TRUE(out.is_open()) << out.rdbuf()->error_message();
  const system_call_log calls;
  const std::string expected = fill_at_random(out, 65536, 1000);
  EXPECT_LE(calls.mmaps(), 2);
  out.close();
  ASSERT_TRUE(out) << out.rdbuf()->error_message();
  EXPECT_EQ(read_file(path), expected);
}

// After the laid-out file is mapped whole, a seek far past its end still leaves a hole.
TEST(ScatteredRecords, SeekFarPastTheEndStillLeavesAHole) {
  temp_dir dir;
  const auto path = dir / "index";
  mapout::ostream out(path, std::ios::binary, mapped(page_size()));
  std::string expected = fill_at_random(out, 65536, 100);
  constexpr std::streamoff gap = std::streamoff{64} << 20;
  out.seekp(gap);
  out.write("end", 3);
  out.seekp(5);
  out.write("x", 1);
  expected[5] = 'x';
  out.close();
  ASSERT_TRUE(out) << out.rdbuf()->error_message();
  struct stat st = {};
  ASSERT_EQ(::stat(path.string().c_str(), &st), 0);
  EXPECT_EQ(st.st_size, gap + 3);
#ifndef _WIN32
  // Windows's struct stat has no st_blocks: there the bytes alone are checked.
  EXPECT_LT(st.st_blocks * 512, 16 << 20) << "the gap was filled";
#endif
  const std::string got = read_file(path);
  EXPECT_EQ(got.substr(0, expected.size()), expected);
  EXPECT_EQ(got.substr(static_cast<std::size_t>(gap)), "end");
}

// A seek into the mapped bytes moves the cursor without a call. Bytes stored past them first must
// still reach the file: a later seek back may not skip the call that takes note of them.
TEST(ScatteredRecords, InlineSeekBackAfterStoresPastTheWrittenBytesKeepsThem) {
  temp_dir dir;
  const auto path = dir / "index";
  mapout::ostream out(path, std::ios::binary, mapped(page_size()));
  std::string expected = fill_at_random(out, 1024, 100);
  std::mt19937_64 random(11);
  for (int i = 0; i < 2000; ++i) {
    const std::size_t at = random() % (expected.size() + 64);
    const std::string bytes(random() % 200 + 1, static_cast<char>('A' + i % 26));
    out.seekp(static_cast<std::streamoff>(at));
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (at > expected.size()) expected.resize(at, '\0');
    expected.resize(std::max(expected.size(), at + bytes.size()), '\0');
    expected.replace(at, bytes.size(), bytes);
    ASSERT_EQ(static_cast<std::size_t>(out.tellp()), at + bytes.size()) << "record " << i;
  }
  out.close();
  ASSERT_TRUE(out) << out.rdbuf()->error_message();
  EXPECT_EQ(read_file(path), expected);
}

// A cursor may move the mapping while it writes: the seeks after it go where its window is now.
TEST(ScatteredRecords, InlineSeeksAfterACursorMovedTheMappingLandInTheFile) {
  temp_dir dir;
  const auto path = dir / "index";
  mapout::ostream out(path, std::ios::binary, mapped(page_size()));
  std::string expected = fill_at_random(out, 1024, 100);
  out.seekp(0, std::ios::end);
  {
    mapout::cursor put(out);
    for (int i = 0; i < 300000; ++i) put.put(static_cast<char>('a' + i % 26));
  }
  for (int i = 0; i < 300000; ++i) expected += static_cast<char>('a' + i % 26);
  std::mt19937_64 random(13);
  for (int i = 0; i < 1000; ++i) {
    const std::size_t at = random() % (expected.size() - record);
    out.seekp(static_cast<std::streamoff>(at));
    out.write("0123456789abcdef", record);
    expected.replace(at, record, "0123456789abcdef");
  }
  out.close();
  ASSERT_TRUE(out) << out.rdbuf()->error_message();
  EXPECT_EQ(read_file(path), expected);
}

// With write_if_changed every byte stored reaches the comparison: records that rewrite the old
// bytes keep the old file, one that changes a byte replaces it.
// Tells a replaced file by its inode number, which Windows's struct stat lacks (st_ino is 0).
#ifndef _WIN32
TEST(ScatteredRecords, WriteIfChangedSeesEveryRecordStoredAfterASeek) {
  temp_dir dir;
  const auto path = dir / "index";
  std::string old_bytes;
  {
    mapout::ostream out(path, std::ios::binary, mapped(page_size()));
    old_bytes = fill_at_random(out, 4096, 3000);
  }
  for (const bool change : {false, true}) {
    struct stat before = {};
    ASSERT_EQ(::stat(path.c_str(), &before), 0);
    mapout::options opts = mapped(page_size());
    opts.write_if_changed = true;
    mapout::ostream out(path, std::ios::binary, opts);
    ASSERT_TRUE(out.is_open()) << out.rdbuf()->error_message();
    std::string expected = fill_at_random(out, 4096, 3000);
    if (change) {
      out.seekp(777);
      out.put('!');
      expected[777] = '!';
    }
    out.close();
    ASSERT_TRUE(out) << out.rdbuf()->error_message();
    struct stat after = {};
    ASSERT_EQ(::stat(path.c_str(), &after), 0);
    EXPECT_EQ(after.st_ino != before.st_ino, change);
    EXPECT_EQ(read_file(path), expected);
  }
}

#endif  // _WIN32

}  // namespace
