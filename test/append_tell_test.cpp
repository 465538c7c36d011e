// Appending: every write lands at the file's end wherever a seek left the offset, and tellp says
// what std::fstream's says, for every buffer size; and sparse files keep the bytes of
// std::ofstream in every strategy.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <ios>
#include <random>
#include <string>

#include "bytes.hpp"
#include "mapout/ostream.hpp"
#include "strategies.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::pattern;
using mapout::test::read_file;
using mapout::test::temp_dir;
using mapout::test::write_file;

constexpr std::ios_base::openmode appending = std::ios::out | std::ios::app | std::ios::binary;

// Random writes (some longer than the buffer), seeks and tellp on a file opened out|app that
// holds a few bytes first, against std::fstream doing the same. libstdc++'s tellp adds what its
// own buffer holds to the descriptor's offset, which a seek left anywhere: its answer is where
// the bytes land only once they are out, so it is asked after a flush, and mapout's before.
void append_randomly(const std::filesystem::path& dir, std::size_t buffer_size, unsigned seed) {
  std::mt19937 random(seed);
  const std::string start = pattern(random() % 20, 5);
  write_file(dir / "got", start);
  write_file(dir / "want", start);
  mapout::ostream got(dir / "got", appending, mapout::test::buffered(buffer_size));
  std::fstream want(dir / "want", appending);
  std::size_t size = start.size();
  for (unsigned step = 0; step < 60; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    switch (random() % 3) {
      case 0: {
        const std::size_t length = random() % 4 == 0 ? random() % 20000 : random() % 100;
        const std::string piece = pattern(length, step);
        got << piece;
        want << piece;
        size += length;
        break;
      }
      case 1: {
        const auto to = static_cast<std::streamoff>(random() % (size + 1));
        got.seekp(to);
        want.seekp(to);
        break;
      }
      default: {
        const auto told = static_cast<std::streamoff>(got.tellp());
        want.flush();
        ASSERT_EQ(told, static_cast<std::streamoff>(want.tellp()));
      }
    }
  }
  got.close();
  want.close();
  ASSERT_TRUE(got) << got.error_message();
  ASSERT_EQ(read_file(dir / "got"), read_file(dir / "want"));
}

TEST(Append, TellpSaysWhereTheBytesLandForEveryBufferSize) {
  temp_dir dir;
  for (const std::size_t buffer_size : {std::size_t{1}, std::size_t{7}, std::size_t{100},
                                        std::size_t{4096}, std::size_t{8191}, std::size_t{65536}}) {
    for (unsigned seed = 1; seed <= 30; ++seed) {
      SCOPED_TRACE("buffer " + std::to_string(buffer_size) + ", seed " + std::to_string(seed));
      append_randomly(dir.path(), buffer_size, seed);
      if (HasFatalFailure()) return;
    }
  }
}

// The case that was found: seekp(2), then a write shorter than the buffer.
TEST(Append, TellpAfterASeekBackAndAWriteCountsFromTheEnd) {
  temp_dir dir;
  write_file(dir / "log", "0123456789");
  mapout::ostream out(dir / "log", appending);
  out.seekp(2);
  out << pattern(8000);
  EXPECT_EQ(static_cast<std::streamoff>(out.tellp()), 8010);
}

// Writes far apart: the bytes between them are zeros, as with std::ofstream, in every strategy
// (what they cost on the disk: docs/decisions.md, "holes").
TEST(SparseFile, FarApartWritesGiveTheBytesOfOfstream) {
  temp_dir dir;
  std::vector<mapout::test::strategy_case> modes = {{"automatic", mapout::options{}},
                                                    {"mapped", mapout::test::mapped()},
                                                    {"buffered", mapout::test::buffered()}};
  mapout::options on_fault = mapout::test::mapped();
  on_fault.extension = mapout::extension::on_fault;
  modes.push_back({"on_fault", on_fault});
  for (const auto& mode : modes) {
    SCOPED_TRACE(mode.name);
    {
      mapout::ostream got(dir / "got", std::ios::out, mode.opts);
      std::ofstream want(dir / "want", std::ios::out | std::ios::binary);
      for (unsigned i = 0; i < 10; ++i) {
        const auto at = static_cast<std::streamoff>(i) * (std::streamoff{3} << 20) + i;
        got.seekp(at);
        want.seekp(at);
        got << "rec" << i;
        want << "rec" << i;
      }
      got.close();
      ASSERT_TRUE(got) << got.error_message();
    }
    ASSERT_EQ(read_file(dir / "got"), read_file(dir / "want"));
  }
}

}  // namespace
