// Output that ends exactly where the window ends: at a page, at the extent the file was extended
// to, at the end of the reservation; outputs far larger than the reservation; and no output at all.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "bytes.hpp"
#include "mapout/ostream.hpp"
#include "mapout/output_file.hpp"
#include "mapping/extent.hpp"
#include "strategies.hpp"
#include "system_call_log.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::mapped;
using mapout::test::page_size;
using mapout::test::pattern;
using mapout::test::read_file;
using mapout::test::strategies;
using mapout::test::strategy_case;
using mapout::test::system_call_log;
using mapout::test::temp_dir;
using mapout::test::write_file;

const std::size_t page = page_size();

// Writes `bytes` in chunks of the sizes given in turn (the last repeating), closes, and checks
// that the file holds exactly those bytes.
void write_in_chunks(const std::filesystem::path& path, const std::string& bytes,
                     const mapout::options& opts, const std::vector<std::size_t>& chunks) {
  mapout::ostream out(path, std::ios::out, opts);
  ASSERT_TRUE(out.is_open()) << out.rdbuf()->error_message();
  std::size_t done = 0;
  for (std::size_t i = 0; done < bytes.size(); ++i) {
    const std::size_t chunk = std::min(chunks[std::min(i, chunks.size() - 1)], bytes.size() - done);
    out.write(bytes.data() + done, static_cast<std::streamsize>(chunk));
    done += chunk;
  }
  out.close();
  ASSERT_TRUE(out) << out.rdbuf()->error_message();
  const std::string got = read_file(path);
  ASSERT_EQ(got.size(), bytes.size());
  EXPECT_TRUE(got == bytes);
}

void put_each_byte(const std::filesystem::path& path, const std::string& bytes,
                   const mapout::options& opts) {
  mapout::ostream out(path, std::ios::out, opts);
  ASSERT_TRUE(out.is_open()) << out.rdbuf()->error_message();
  for (char c : bytes) out.put(c);
  out.close();
  ASSERT_TRUE(out) << out.rdbuf()->error_message();
  const std::string got = read_file(path);
  ASSERT_EQ(got.size(), bytes.size());
  EXPECT_TRUE(got == bytes);
}

// The extents the mapped file passes through, from its first extension on.
std::vector<std::uint64_t> extents(int count) {
  std::vector<std::uint64_t> result;
  std::uint64_t extent = 0;
  for (int i = 0; i < count; ++i) {
    extent = mapout::detail::next_extent(extent, extent + 1);
    result.push_back(extent);
  }
  return result;
}

TEST(Boundary, WindowEndsAtTheFirstExtentThenAtTheReservation) {
  temp_dir dir;
  const std::uint64_t first_extent = extents(1)[0];
  mapout::output_file file;
  ASSERT_FALSE(file.open(dir / "out", std::ios::out, mapped()));
  mapout::output_file::window view = file.current();
  ASSERT_FALSE(file.make_room(view, 1));
  EXPECT_EQ(static_cast<std::uint64_t>(view.end - view.begin), first_extent);
  ASSERT_FALSE(file.close(view));

  mapout::output_file small;
  ASSERT_FALSE(small.open(dir / "small", std::ios::out, mapped(2 * page)));
  view = small.current();
  ASSERT_FALSE(small.make_room(view, 1));
  // Where a page is as large as the first extent (Windows' 64 KiB), the extent ends it first.
  EXPECT_EQ(static_cast<std::uint64_t>(view.end - view.begin),
            std::min<std::uint64_t>(2 * page, first_extent));
  ASSERT_FALSE(small.close(view));
}

TEST(Boundary, WriteEndingAtPageEnd) {
  temp_dir dir;
  for (std::size_t size : {page - 1, page, page + 1, 2 * page, 3 * page}) {
    SCOPED_TRACE("size " + std::to_string(size));
    const std::string bytes = pattern(size);
    write_in_chunks(dir / "whole", bytes, mapped(), {size});
    write_in_chunks(dir / "odd", bytes, mapped(), {page - 1, 1});
    put_each_byte(dir / "bytes", bytes, mapped());
    write_in_chunks(dir / "one-page-reserve", bytes, mapped(page), {page - 1, 1});
  }
}

TEST(Boundary, WriteEndingAtExtentEnd) {
  temp_dir dir;
  const std::vector<std::uint64_t> ends = extents(2);
  for (std::uint64_t end : ends) {
    for (std::size_t size : {end, end + 1}) {
      SCOPED_TRACE("size " + std::to_string(size) + ", extent end " + std::to_string(end));
      const std::string bytes = pattern(size);
      system_call_log calls;
      write_in_chunks(dir / "whole", bytes, mapped(), {size});
      write_in_chunks(dir / "pages", bytes, mapped(), {page});
      write_in_chunks(dir / "odd", bytes, mapped(), {end - 1000, 999, 1, 1});
      // The extension really stopped at `end`: page by page, one write ends there exactly.
      EXPECT_NE(std::find(calls.ftruncate_lengths().begin(), calls.ftruncate_lengths().end(),
                          static_cast<off_t>(end)),
                calls.ftruncate_lengths().end());
    }
  }
  put_each_byte(dir / "bytes", pattern(ends[0] + 1), mapped());
}

TEST(Boundary, WriteEndingAtReservationEnd) {
  temp_dir dir;
  const std::size_t reserve = 2 * page;
  for (std::size_t size : {reserve, reserve + 1, 2 * reserve, 2 * reserve + 1}) {
    SCOPED_TRACE("size " + std::to_string(size));
    const std::string bytes = pattern(size);
    write_in_chunks(dir / "whole", bytes, mapped(reserve), {size});
    write_in_chunks(dir / "to-the-end", bytes, mapped(reserve), {reserve - 3, 3});
    put_each_byte(dir / "bytes", bytes, mapped(reserve));
  }
}

TEST(Boundary, ReservationEndingAtExtentEnd) {
  temp_dir dir;
  const std::size_t end = extents(1)[0];
  for (std::size_t size : {end, end + 1, 2 * end}) {
    SCOPED_TRACE("size " + std::to_string(size));
    const std::string bytes = pattern(size);
    write_in_chunks(dir / "whole", bytes, mapped(end), {size});
    write_in_chunks(dir / "chunks", bytes, mapped(end), {end - 5, 5, 1});
  }
}

TEST(Boundary, ReservationIsRoundedUpToPages) {
  temp_dir dir;
  const std::string bytes = pattern(5 * page + 3);
  for (std::size_t reserve : {std::size_t{0}, std::size_t{1}, page + 1}) {
    SCOPED_TRACE("reserve " + std::to_string(reserve));
    write_in_chunks(dir / "out", bytes, mapped(reserve), {page / 2, page + 7});
  }
}

TEST(Boundary, OnePageReservationWritesTensOfMebibytes) {
  temp_dir dir;
  const std::string bytes = pattern((std::size_t{24} << 20) + 5);
  write_in_chunks(dir / "out", bytes, mapped(page), {1, 1000, 65536, 3 * page + 1, 777});
}

TEST(Boundary, TinyReservationPatchesTheStartAfterTensOfMebibytes) {
  temp_dir dir;
  const auto path = dir / "out";
  std::string expected = pattern(std::size_t{20} << 20);
  {
    mapout::ostream out(path, std::ios::out, mapped(3 * page));
    for (std::size_t done = 0; done < expected.size(); done += 4096 + 13) {
      out.write(expected.data() + done, static_cast<std::streamsize>(std::min<std::size_t>(
                                            4096 + 13, expected.size() - done)));
    }
    out.seekp(10);
    out << "header";
    out.seekp(0, std::ios::end);
    out << "tail";
    out.close();
    ASSERT_TRUE(out) << out.rdbuf()->error_message();
  }
  expected.replace(10, 6, "header");
  expected += "tail";
  const std::string got = read_file(path);
  ASSERT_EQ(got.size(), expected.size());
  EXPECT_TRUE(got == expected);
}

TEST(Boundary, TinyReservationTakesEveryByteThroughPut) {
  temp_dir dir;
  put_each_byte(dir / "out", pattern((std::size_t{4} << 20) + 1), mapped(3 * page));
}

std::uintmax_t size_on_disk(const std::filesystem::path& path) {
  struct stat st;
  if (::stat(path.string().c_str(), &st) != 0) return ~std::uintmax_t{0};
  return static_cast<std::uintmax_t>(st.st_size);
}

TEST(Boundary, ZeroLengthOutputLeavesZeroByteFile) {
  temp_dir dir;
  for (const strategy_case& c : strategies()) {
    SCOPED_TRACE(c.name);
    const auto fresh = dir / "fresh";
    {
      mapout::ostream out(fresh, std::ios::out, c.opts);
      out.close();
      ASSERT_TRUE(out) << out.rdbuf()->error_message();
    }
    EXPECT_EQ(size_on_disk(fresh), 0u);

    const auto existing = dir / "existing";
    write_file(existing, pattern(3 * page));
    {
      mapout::ostream out(existing, std::ios::out, c.opts);
      out.write("", 0);
      out << "";
      out.flush();
      out.close();
      ASSERT_TRUE(out) << out.rdbuf()->error_message();
    }
    EXPECT_EQ(size_on_disk(existing), 0u);

    const auto unclosed = dir / "unclosed";
    { mapout::ostream out(unclosed, std::ios::out, c.opts); }
    EXPECT_EQ(size_on_disk(unclosed), 0u);

    // As with std::ofstream, a seek alone writes nothing.
    const auto sought = dir / "sought";
    {
      mapout::ostream out(sought, std::ios::out, c.opts);
      out.seekp(5 * page);
      EXPECT_TRUE(out);
      out.close();
    }
    EXPECT_EQ(size_on_disk(sought), 0u);
  }
}

TEST(Boundary, GapAfterSeekPastEndReadsAsZeros) {
  temp_dir dir;
  for (const strategy_case& c : strategies()) {
    SCOPED_TRACE(c.name);
    const auto path = dir / "gap";
    {
      mapout::ostream out(path, std::ios::out, c.opts);
      out << "head";
      out.seekp(3 * page + 1);
      out << "tail";
      out.close();
      ASSERT_TRUE(out) << out.rdbuf()->error_message();
    }
    std::string expected = "head" + std::string(3 * page + 1 - 4, '\0') + "tail";
    EXPECT_EQ(read_file(path), expected);
  }
}

}  // namespace
