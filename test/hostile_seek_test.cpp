// The inline seeks as a hostile caller drives them: seeks back over bytes stored a moment ago,
// past the end and back, relative to every origin, before the start, through std::ostream& and
// through a cursor, in bursts that make strategy::automatic change hands, on new and existing
// files. Every position and every stream state is compared with std::fstream's at each step, and
// the bytes at the end.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <ostream>
#include <random>
#include <string>

#include "mapout/cursor.hpp"
#include "mapout/ostream.hpp"
#include "random_sequences.hpp"
#include "strategies.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::pattern;
using mapout::test::pick;
using mapout::test::read_file;
using mapout::test::temp_dir;
using mapout::test::window_cases;

// Both streams, driven by one sequence; `size` is the file's size as std::fstream makes it.
struct pair_of_streams {
  mapout::ostream& out;
  std::fstream& reference;
  std::int64_t size;

  std::int64_t position() { return static_cast<std::int64_t>(reference.tellp()); }

  void write(const std::string& bytes) {
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    reference.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    size = std::max(size, position());
  }
  void seek(std::int64_t offset, std::ios_base::seekdir dir) {
    out.seekp(offset, dir);
    reference.seekp(offset, dir);
    after_seek();
  }
  void seek_to(std::int64_t position) {
    out.seekp(position);
    reference.seekp(position);
    after_seek();
  }
  // A failed seek sets failbit on both and moves neither; the sequence goes on after clear().
  void after_seek() {
    ASSERT_EQ(out.fail(), reference.fail());
    if (reference.fail()) {
      out.clear();
      reference.clear();
    }
    ASSERT_EQ(static_cast<std::int64_t>(out.tellp()), position());
  }
};

const std::string& bytes_pool() {
  static const std::string pool = pattern(1 << 20, 3);
  return pool;
}

std::string some_bytes(std::mt19937& random) {
  static constexpr int sizes[] = {0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 63, 64, 65, 4095, 4096, 70000};
  const int size = sizes[pick(random, 0, static_cast<int>(std::size(sizes)) - 1)];
  const int from = pick(random, 0, static_cast<int>(bytes_pool().size()) - size);
  return bytes_pool().substr(static_cast<std::size_t>(from), static_cast<std::size_t>(size));
}

void one_step(pair_of_streams& both, std::mt19937& random) {
  const std::int64_t at = both.position();
  switch (pick(random, 0, 11)) {
    case 0:
    case 1:
      both.write(some_bytes(random));
      break;
    case 2: {  // a length patched behind its record, as binary formats do
      const std::int64_t start = at;
      both.write(std::string(4, '\0'));
      both.write(some_bytes(random));
      const std::int64_t end = both.position();
      both.seek_to(start);
      both.write(std::to_string(end - start).substr(0, 4));
      both.seek_to(end);
      break;
    }
    case 3:  // anywhere, holes included
      both.seek_to(pick(random, 0, static_cast<int>(both.size) + 300));
      break;
    case 4:
      both.seek(pick(random, static_cast<int>(-at) - 3, 300), std::ios_base::cur);
      break;
    case 5:
      both.seek(pick(random, static_cast<int>(-both.size) - 3, 100), std::ios_base::end);
      break;
    case 6: {  // through the base class: the streambuf's virtual seekoff and xsputn
      std::ostream& base_out = both.out;
      std::ostream& base_reference = both.reference;
      const std::int64_t back = pick(random, 0, static_cast<int>(at));
      base_out.seekp(-back, std::ios_base::cur);
      base_reference.seekp(-back, std::ios_base::cur);
      ASSERT_EQ(static_cast<std::int64_t>(base_out.tellp()),
                static_cast<std::int64_t>(base_reference.tellp()));
      both.write(some_bytes(random));
      break;
    }
    case 7: {  // a cursor taken where a seek left the stream
      const std::string bytes = some_bytes(random);
      {
        mapout::cursor put(both.out);
        put.write(bytes.data(), bytes.size());
      }
      both.reference.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      both.size = std::max(both.size, both.position());
      ASSERT_EQ(static_cast<std::int64_t>(both.out.tellp()), both.position());
      break;
    }
    case 8: {  // a burst of short records at random offsets: automatic may take the mapping
      const int count = pick(random, 60, 80);
      for (int i = 0; i < count && both.size > 8; ++i) {
        both.seek_to(pick(random, 0, static_cast<int>(both.size) - 8));
        both.write(bytes_pool().substr(static_cast<std::size_t>(i), 8));
      }
      break;
    }
    case 9:
      both.out.flush();
      both.reference.flush();
      break;
    case 10:
      both.out.put('#');
      both.reference.put('#');
      both.size = std::max(both.size, both.position());
      break;
    default:
      ASSERT_EQ(static_cast<std::int64_t>(both.out.tellp()), at);
      break;
  }
  ASSERT_TRUE(both.out.good());
  ASSERT_TRUE(both.reference.good());
}

// Runs `seeds` sequences on each window shape; `existing` bytes are in both files at open, which
// is then in|out.
void run_sequences(unsigned seeds, std::size_t existing) {
  const temp_dir dir;
  const auto cases = window_cases();
  for (unsigned seed = 0; seed < seeds; ++seed) {
    const auto& which = cases[seed % cases.size()];
    SCOPED_TRACE("seed " + std::to_string(seed) + ", " + which.name);
    std::mt19937 random(seed);
    const auto path = dir / ("out" + std::to_string(seed));
    const auto reference_path = dir / ("reference" + std::to_string(seed));
    std::ios_base::openmode mode = std::ios::out | std::ios::binary;
    if (existing > 0) {
      const std::string old = pattern(existing, 5);
      for (const auto& p : {path, reference_path}) std::ofstream(p, std::ios::binary) << old;
      mode |= std::ios::in;
    }
    mapout::ostream out(path, mode, which.opts);
    std::fstream reference(reference_path, mode);
    ASSERT_TRUE(out.is_open());
    ASSERT_TRUE(reference.is_open());
    pair_of_streams both{out, reference, static_cast<std::int64_t>(existing)};
    for (int step = 0; step < 120; ++step) {
      SCOPED_TRACE("step " + std::to_string(step));
      one_step(both, random);
      if (::testing::Test::HasFatalFailure()) return;
    }
    out.close();
    reference.close();
    ASSERT_TRUE(out.good()) << out.error_message();
    ASSERT_EQ(read_file(path), read_file(reference_path));
  }
}

TEST(HostileSeek, NewFileMatchesFstreamAtEveryStep) {
  run_sequences(48, 0);
}

TEST(HostileSeek, ExistingFileOpenedInOutMatchesFstreamAtEveryStep) {
  run_sequences(48, 100000);
}

// A seek to the end counts bytes stored since the last call, and the end is never moved back by
// a seek inside them.
TEST(HostileSeek, EndCountsBytesStoredSinceTheLastCall) {
  const temp_dir dir;
  for (const auto& which : window_cases()) {
    SCOPED_TRACE(which.name);
    const auto path = dir / which.name;
    mapout::ostream out(path, std::ios::out, which.opts);
    out.write("0123456789", 10);
    out.seekp(3);
    out.write("ab", 2);
    out.seekp(0, std::ios_base::end);
    EXPECT_EQ(static_cast<std::int64_t>(out.tellp()), 10);
    out.seekp(-1, std::ios_base::end);
    out.put('Z');
    out.close();
    EXPECT_TRUE(out.good()) << out.error_message();
    EXPECT_EQ(read_file(path), "012ab5678Z");
  }
}

// A seek before the start fails as std::fstream's does and leaves the position where it was, both
// inline and through std::ostream&.
TEST(HostileSeek, BeforeTheStartFailsAndKeepsThePosition) {
  const temp_dir dir;
  for (const auto& which : window_cases()) {
    SCOPED_TRACE(which.name);
    const auto path = dir / which.name;
    mapout::ostream out(path, std::ios::out, which.opts);
    out.write("abcdef", 6);
    out.seekp(-7, std::ios_base::cur);
    EXPECT_TRUE(out.fail());
    out.clear();
    EXPECT_EQ(static_cast<std::int64_t>(out.tellp()), 6);
    std::ostream& base = out;
    base.seekp(-7, std::ios_base::end);
    EXPECT_TRUE(base.fail());
    base.clear();
    EXPECT_EQ(static_cast<std::int64_t>(base.tellp()), 6);
    out.put('g');
    out.close();
    EXPECT_EQ(read_file(path), "abcdefg");
  }
}

}  // namespace
