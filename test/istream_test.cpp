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
#include "mapout/istream.hpp"
#include "mapout/ostream.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::read_file;
using mapout::test::temp_dir;
using mapout::test::write_file;

const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));

// Text that every extractor has something to do with: words, numbers (some too large for an
// int), runs of blanks and newlines, and now and then a NUL or a byte above 127.
std::string random_text(std::size_t size, unsigned seed) {
  std::mt19937 random(seed);
  static const char alphabet[] = "abcxyz0123456789-+ \n\t.";
  std::string text(size, ' ');
  for (char& c : text) {
    const unsigned pick = random() % 100;
    c = pick == 0 ? '\0' : pick == 1 ? '\xe9' : alphabet[random() % (sizeof alphabet - 1)];
  }
  return text;
}

// One step of a random sequence, applied alike to both streams; what it returns is compared.
std::string step(std::istream& in, unsigned op, std::mt19937& random, std::int64_t size) {
  std::ostringstream seen;
  switch (op) {
    case 0:
      seen << "get " << in.get();
      break;
    case 1: {
      std::string line;
      std::getline(in, line);
      seen << "getline " << line;
      break;
    }
    case 2: {
      const char delimiter = "\n x"[random() % 3];
      char line[64];
      in.getline(line, 1 + random() % sizeof line, delimiter);
      seen << "getline(n) " << std::string(line, static_cast<std::size_t>(in.gcount()));
      break;
    }
    case 3: {
      std::string bytes(random() % (2 * page + 3), '\0');
      in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      seen << "read " << std::string(bytes.data(), static_cast<std::size_t>(in.gcount()));
      break;
    }
    case 4: {
      int number = 0;
      in >> number;
      seen << ">>int " << number;
      break;
    }
    case 5: {
      std::string word;
      in >> word;
      seen << ">>string " << word;
      break;
    }
    case 6: {
      const std::int64_t target = static_cast<std::int64_t>(random() % (size + 10)) - 3;
      switch (random() % 3) {
        case 0:
          in.seekg(target);
          break;
        case 1:
          in.seekg(target - size / 2, std::ios_base::cur);
          break;
        default:
          in.seekg(target - size, std::ios_base::end);
          break;
      }
      seen << "seekg";
      break;
    }
    case 7:
      seen << "tellg " << in.tellg();
      break;
    case 8:
      in.unget();
      seen << "unget";
      break;
    case 9:
      seen << "peek " << in.peek();
      break;
    case 10: {
      char bytes[32];
      in.get(bytes, 1 + random() % sizeof bytes, "\n x"[random() % 3]);
      seen << "get(n) " << std::string(bytes, static_cast<std::size_t>(in.gcount()));
      break;
    }
    case 11:
      in.ignore(random() % 300, '\n');
      seen << "ignore";
      break;
    default:
      in.clear();
      seen << "clear";
      break;
  }
  seen << " gcount " << in.gcount() << " state " << in.rdstate();
  return seen.str();
}

void expect_same_as_ifstream(const std::filesystem::path& path, unsigned seed) {
  std::ifstream expected(path, std::ios::binary);
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

TEST(Istream, PipeAndProcInputsReadLikeIfstream) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  const std::string text = random_text(300'000, 9);
  std::thread writer([&] {
    mapout::test::write_all(ends[1], text);
    ::close(ends[1]);
  });
  mapout::istream pipe("/dev/fd/" + std::to_string(ends[0]));
  writer.join();
  ::close(ends[0]);
  std::ostringstream copy;
  copy << pipe.rdbuf();
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

TEST(Istream, BadPathFailsWithTheOutputSidesMessage) {
  temp_dir dir;
  const auto path = dir / "missing";
  mapout::istream in(path);
  EXPECT_TRUE(in.fail());
  EXPECT_FALSE(in.is_open());
  EXPECT_EQ(in.error_message(), "mapout: open '" + path.string() + "': " + std::strerror(ENOENT));

  mapout::istream throwing;
  throwing.exceptions(std::ios::failbit);
  try {
    throwing.open(path);
    ADD_FAILURE() << "no exception";
  } catch (const std::ios_base::failure& e) {
    EXPECT_EQ(e.code(), std::error_code(ENOENT, std::system_category()));
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

}  // namespace
