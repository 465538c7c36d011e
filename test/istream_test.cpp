// mapout::istream against std::ifstream: random sequences of every reading and seeking call, on
// files of every size class, pipes and /proc, and the errors of a bad path and a truncated file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <utility>

#include "child_process.hpp"
#include "input_sequences.hpp"
#include "mapout/istream.hpp"
#include "mapout/ostream.hpp"
#include "system_call_override.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::random_text;
using mapout::test::read_file;
using mapout::test::step;
using mapout::test::temp_dir;
using mapout::test::write_file;

const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));

void expect_same_as_ifstream(const std::filesystem::path& path, unsigned seed) {
  mapout::test::oracle_ifstream expected(path, std::ios::binary);
  mapout::istream actual(path, std::ios::binary);
  ASSERT_TRUE(actual.is_open());
  const auto size = static_cast<std::int64_t>(std::filesystem::file_size(path));
  std::mt19937 random_expected(seed);
  std::mt19937 random_actual(seed);
  for (int i = 0; i < 3000; ++i) {
    const unsigned op = random_expected() % 14;
    random_actual();
    const std::string want = step(expected, op, random_expected, size);
    const std::string got = step(actual, op, random_actual, size);
    ASSERT_EQ(got, want) << "step " << i << " of seed " << seed;
  }
}

TEST(Istream, RandomCallsMatchIfstreamForEverySizeClass) {
  temp_dir dir;
  for (const std::size_t size :
       {std::size_t{0}, std::size_t{1}, page - 1, page, page + 1, (std::size_t{3} << 20) + 7}) {
    SCOPED_TRACE(size);
    const auto path = dir / ("f" + std::to_string(size));
    write_file(path, random_text(size, static_cast<unsigned>(size)));
    for (unsigned seed = 1; seed <= 8; ++seed) expect_same_as_ifstream(path, seed);
  }
}

// The buffer that reads what cannot be mapped, made to read regular files: every call and seek
// across its refills, its ends and the byte it keeps for unget.
TEST(Istream, RandomCallsMatchIfstreamWhenReadThroughTheBuffer) {
  temp_dir dir;
  const mapout::test::system_call_override<&mapout::detail::system_calls::mmap> no_device(
      [](void*, std::size_t, int, int, int, off_t) -> void* {
        errno = ENODEV;
        return MAP_FAILED;
      });
  for (const std::size_t size :
       {std::size_t{1}, page + 1, (std::size_t{64} << 10) + 1, (std::size_t{1} << 20) + 7}) {
    SCOPED_TRACE(size);
    const auto path = dir / ("f" + std::to_string(size));
    write_file(path, random_text(size, static_cast<unsigned>(size)));
    {
      const mapout::istream in(path);
      ASSERT_FALSE(in.rdbuf()->input().is_mapped());
    }
    for (unsigned seed = 1; seed <= 8; ++seed) expect_same_as_ifstream(path, seed);
  }
}

TEST(Istream, GetlineReadsEveryLineAsIfstreamDoes) {
  temp_dir dir;
  const auto path = dir / "lines";
  write_file(path, random_text(1 << 20, 3));
  std::ifstream expected(path);
  mapout::istream actual(path);
  std::string want;
  std::string got;
  std::size_t lines = 0;
  while (std::getline(expected, want)) {
    ASSERT_TRUE(std::getline(actual, got));
    ASSERT_EQ(got, want);
    ++lines;
  }
  EXPECT_FALSE(std::getline(actual, got));
  EXPECT_EQ(actual.rdstate(), expected.rdstate());
  EXPECT_GT(lines, 1000u);
}

TEST(Istream, RdbufStreamsTheWholeFile) {
  temp_dir dir;
  const std::string bytes = random_text(3 * page + 11, 5);
  write_file(dir / "in", bytes);
  mapout::istream in(dir / "in");
  std::ostringstream copy;
  copy << in.rdbuf();
  EXPECT_EQ(copy.str(), bytes);
  in.seekg(0);
  {
    mapout::ostream out(dir / "out");
    out << in.rdbuf();
  }
  EXPECT_EQ(read_file(dir / "out"), bytes);
}

// std::filebuf's readsome gives what its buffer holds; the get area holds the rest of the file.
TEST(Istream, ReadsomeGivesWhatIsLeft) {
  temp_dir dir;
  write_file(dir / "f", "0123456789");
  mapout::istream in(dir / "f");
  char bytes[8];
  EXPECT_EQ(in.readsome(bytes, sizeof bytes), 8);
  EXPECT_EQ(std::string(bytes, 8), "01234567");
  EXPECT_EQ(in.readsome(bytes, sizeof bytes), 2);
  EXPECT_EQ(std::string(bytes, 2), "89");
  EXPECT_EQ(in.readsome(bytes, sizeof bytes), 0);
  EXPECT_TRUE(in.good());
}

TEST(Istream, AteStartsAtTheEnd) {
  temp_dir dir;
  write_file(dir / "f", "0123456789");
  mapout::istream in(dir / "f", std::ios::in | std::ios::ate);
  EXPECT_EQ(in.tellg(), 10);
  in.seekg(-3, std::ios::end);
  EXPECT_EQ(in.get(), '7');
}

TEST(Istream, PutbackOfTheSameCharacterWorksAnotherFails) {
  temp_dir dir;
  write_file(dir / "f", "ab");
  mapout::istream in(dir / "f");
  EXPECT_EQ(in.get(), 'a');
  EXPECT_TRUE(in.putback('a'));
  EXPECT_EQ(in.get(), 'a');
  EXPECT_FALSE(in.putback('z'));  // the bytes are read-only, as in an input-only std::stringbuf
  EXPECT_TRUE(in.bad());
  EXPECT_EQ(read_file(dir / "f"), "ab");
}

#ifndef _WIN32
TEST(Istream, PipeAndProcInputsReadLikeIfstream) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  const std::string text = random_text(300'000, 9);
  std::thread writer([&] {
    mapout::test::write_all(ends[1], text);
    ::close(ends[1]);
  });
  mapout::istream pipe("/dev/fd/" + std::to_string(ends[0]));
  EXPECT_EQ(pipe.view(), "");  // read as it is consumed, not at open
  std::ostringstream copy;
  copy << pipe.rdbuf();
  writer.join();
  ::close(ends[0]);
  EXPECT_EQ(copy.str(), text);

  mapout::istream proc("/proc/filesystems");
  std::ifstream expected("/proc/filesystems");
  std::string want;
  std::string got;
  while (std::getline(expected, want)) {
    ASSERT_TRUE(std::getline(proc, got));
    EXPECT_EQ(got, want);
  }
  EXPECT_FALSE(std::getline(proc, got));
}
#endif  // _WIN32

TEST(Istream, BadPathFailsWithTheOutputSidesMessage) {
  temp_dir dir;
  const auto path = dir / "missing";
  mapout::istream in(path);
  EXPECT_TRUE(in.fail());
  EXPECT_FALSE(in.is_open());
  EXPECT_EQ(in.error(), std::errc::no_such_file_or_directory);
  EXPECT_EQ(in.error_message(), "mapout: open '" + path.string() + "': " + in.error().message());

  mapout::istream throwing;
  throwing.exceptions(std::ios::failbit);
  try {
    throwing.open(path);
    ADD_FAILURE() << "no exception";
  } catch (const std::ios_base::failure& e) {
    EXPECT_EQ(e.code(), in.error());
    EXPECT_EQ(std::string(e.what()), in.error_message());
  }
}

TEST(Istream, CloseAndReopen) {
  temp_dir dir;
  write_file(dir / "a", "first\n");
  write_file(dir / "b", "second\n");
  mapout::istream in(dir / "a");
  std::string line;
  EXPECT_TRUE(std::getline(in, line));
  EXPECT_EQ(line, "first");
  in.close();
  EXPECT_FALSE(in.is_open());
  in.close();  // as std::ifstream: closing a closed stream fails
  EXPECT_TRUE(in.fail());
  in.open(dir / "b");
  EXPECT_TRUE(in.good());
  EXPECT_TRUE(std::getline(in, line));
  EXPECT_EQ(line, "second");
  EXPECT_EQ(in.view(), "second\n");
}

TEST(Istream, MoveAndSwapKeepThePosition) {
  temp_dir dir;
  write_file(dir / "a", "abc");
  write_file(dir / "b", "xyz");
  mapout::istream a(dir / "a");
  EXPECT_EQ(a.get(), 'a');
  mapout::istream moved(std::move(a));
  EXPECT_EQ(moved.get(), 'b');
  EXPECT_EQ(moved.rdbuf()->sgetc(), 'c');
  mapout::istream b(dir / "b");
  swap(moved, b);
  EXPECT_EQ(moved.get(), 'x');
  EXPECT_EQ(b.get(), 'c');
  moved = std::move(b);
  EXPECT_EQ(moved.get(), std::char_traits<char>::eof());
  moved.clear();
  moved.seekg(0);
  EXPECT_EQ(moved.get(), 'a');
}

#ifndef _WIN32
// Reading on through bytes another process cut away: zeroes, then badbit at the end, with the
// path and EIO in the exception.
TEST(Istream, FileTruncatedByAnotherProcessEndsInBadbit) {
  temp_dir dir;
  const auto path = dir / "cut";
  write_file(path, std::string(16 * page, 'x'));
  mapout::istream in(path);
  in.exceptions(std::ios::badbit);
  const pid_t truncator =
      mapout::test::spawn([&] { return ::truncate(path.c_str(), static_cast<off_t>(page)); });
  ASSERT_EQ(mapout::test::wait_for(truncator), 0);
  std::string bytes(16 * page, '-');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  EXPECT_EQ(bytes, std::string(page, 'x') + std::string(15 * page, '\0'));
  try {
    in.get();
    ADD_FAILURE() << "no exception";
  } catch (const std::ios_base::failure& e) {
    EXPECT_EQ(e.code(), std::error_code(EIO, std::system_category()));
    EXPECT_NE(std::string(e.what()).find("read from a file truncated by another process '" +
                                         path.string() + "'"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(in.bad());
}
#endif  // _WIN32

}  // namespace
