// mapout::parallel_output used as a careless program would: parts that seek before their own
// start, past their end, to their end, parts taken one after another by one thread, parts asked for
// after the close. Each part must behave as a std::fstream of a file of its own, and the joined
// file must be those files laid end to end.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bytes.hpp"
#include "mapout/parallel.hpp"
#include "strategies.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::pattern;
using mapout::test::read_file;
using mapout::test::temp_dir;

int pick(std::mt19937& random, int low, int high) {
  return std::uniform_int_distribution<int>(low, high)(random);
}

// One part's stream beside a std::fstream of a file of its own, given the same random steps; the
// two must agree on every state and position after each.
void write_like_a_file(mapout::ostream& part, std::fstream& reference, unsigned seed) {
  std::mt19937 random(seed);
  const int steps = pick(random, 0, 60);
  for (int step = 0; step < steps; ++step) {
    const std::streamoff at = reference.tellp();
    switch (pick(random, 0, 9)) {
      case 0: {  // before the part's own start
        const std::streamoff back = at + pick(random, 1, 5000);
        part.seekp(-back, std::ios::cur);
        reference.seekp(-back, std::ios::cur);
        break;
      }
      case 1: {  // past the end: a hole
        const std::streamoff to = at + pick(random, 1, 200000);
        part.seekp(to);
        reference.seekp(to);
        break;
      }
      case 2:
        part.seekp(0, std::ios::end);
        reference.seekp(0, std::ios::end);
        break;
      case 3: {  // back into the part's bytes, then a patch
        const std::streamoff to = at > 0 ? pick(random, 0, static_cast<int>(at)) : 0;
        part.seekp(to);
        reference.seekp(to);
        break;
      }
      case 4:
        part.put(static_cast<char>('a' + step % 26));
        reference.put(static_cast<char>('a' + step % 26));
        break;
      case 5:
        part.flush();
        reference.flush();
        break;
      default: {
        const int size =
            pick(random, 0, 9) == 0 ? pick(random, 65536, 300000) : pick(random, 0, 700);
        const std::string bytes = pattern(static_cast<std::size_t>(size), seed + step);
        part.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        reference.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      }
    }
    ASSERT_EQ(part.good(), reference.good()) << "seed " << seed << " step " << step;
    ASSERT_EQ(static_cast<std::streamoff>(part.tellp()),
              static_cast<std::streamoff>(reference.tellp()))
        << "seed " << seed << " step " << step;
    part.clear();
    reference.clear();
  }
}

std::fstream open_reference(const std::filesystem::path& path) {
  return std::fstream(path, std::ios::in | std::ios::out | std::ios::trunc | std::ios::binary);
}

// Parts written by `parts` threads at once, or by one thread taking them in index order and
// closing each before it asks for the next (a part whose place is then known).
void run(const temp_dir& dir, unsigned seed, const mapout::options& opts, bool one_after_another) {
  std::mt19937 random(seed);
  const auto parts = static_cast<std::size_t>(pick(random, 1, 6));
  std::vector<std::filesystem::path> references;
  for (std::size_t k = 0; k < parts; ++k) {
    references.push_back(dir / ("reference" + std::to_string(k)));
  }
  const auto path = dir / "joined";
  {
    mapout::parallel_output out(path, parts, opts);
    const auto write_part = [&](std::size_t k) {
      std::fstream reference = open_reference(references[k]);
      write_like_a_file(out.part(k), reference, seed * 17u + static_cast<unsigned>(k));
    };
    if (one_after_another) {
      for (std::size_t k = 0; k < parts; ++k) {
        write_part(k);
        out.part(k).close();
      }
    } else {
      std::vector<std::thread> threads;
      for (std::size_t k = 0; k < parts; ++k) threads.emplace_back(write_part, k);
      for (std::thread& thread : threads) thread.join();
    }
    ASSERT_FALSE(out.close()) << out.error_message();
  }
  std::string expected;
  for (const auto& reference : references) expected += read_file(reference);
  ASSERT_TRUE(read_file(path) == expected) << "seed " << seed << ": " << read_file(path).size()
                                           << " bytes, expected " << expected.size();
}

// Every strategy and extension mode, and buffers whose ends fall everywhere in a part.
void run_on_every_window(unsigned first_seed, bool one_after_another) {
  const temp_dir dir;
  const auto cases = mapout::test::window_cases();
  for (unsigned seed = first_seed; seed < first_seed + 3 * cases.size(); ++seed) {
    const auto& which = cases[seed % cases.size()];
    SCOPED_TRACE(which.name);
    ASSERT_NO_FATAL_FAILURE(run(dir, seed, which.opts, one_after_another));
  }
}

TEST(ParallelHostile, PartsSeekingAnywhereJoinAsFilesOfTheirOwn) {
  run_on_every_window(0, false);
}

TEST(ParallelHostile, PartsTakenOneAfterAnotherJoinAsFilesOfTheirOwn) {
  run_on_every_window(1000, true);
}

TEST(ParallelMisuse, PartAskedForAfterTheCloseIsClosedAndTheFileKept) {
  const temp_dir dir;
  mapout::parallel_output out(dir / "joined", 2);
  out.part(0) << "first";
  out.part(1) << "second";
  ASSERT_FALSE(out.close()) << out.error_message();
  // Closed, as a std::ofstream after its close: the next write fails.
  mapout::ostream& late = out.part(1);
  EXPECT_FALSE(late.is_open());
  late << "late";
  EXPECT_TRUE(late.fail());
  out.part(0) << "again";
  EXPECT_TRUE(out.part(0).fail());
  EXPECT_FALSE(out.close()) << "a second close returns the first's result";
  EXPECT_EQ(read_file(dir / "joined"), "firstsecond");
}

TEST(ParallelMisuse, NoPartsMakesAnEmptyFileAndRefusesPartZero) {
  const temp_dir dir;
  mapout::parallel_output out(dir / "joined", 0);
  EXPECT_FALSE(out.part(0).good());
  EXPECT_TRUE(out.close());
  EXPECT_EQ(read_file(dir / "joined"), "");
}

TEST(ParallelMisuse, ThePartsStreamIsTheSameAtEveryCall) {
  const temp_dir dir;
  mapout::parallel_output out(dir / "joined", 3);
  mapout::ostream& first = out.part(2);
  first << "x";
  EXPECT_EQ(&out.part(2), &first);
  EXPECT_EQ(static_cast<std::streamoff>(out.part(2).tellp()), 1);
  ASSERT_FALSE(out.close()) << out.error_message();
  EXPECT_EQ(read_file(dir / "joined"), "x");
}

}  // namespace
