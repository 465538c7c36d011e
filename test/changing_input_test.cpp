// mapout::istream against std::ifstream on a file that is cut or grown between reads, on ext4,
// tmpfs and an XFS loop image: a growth is read on, as std::ifstream reads it; a cut gives what
// std::ifstream gives until the bytes differ, and reading on ends in badbit with EIO, never in a
// good end of file.
#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <random>
#include <string>

#include "input_sequences.hpp"
#include "mapout/input.hpp"
#include "mapout/istream.hpp"
#include "mounted_file_system.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::mounted_file_system;
using mapout::test::random_text;
using mapout::test::step;
using mapout::test::temp_dir;
using mapout::test::write_file;

const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
constexpr char cut_message[] = "read from a file truncated by another process";

std::int64_t size_of(const std::filesystem::path& path) {
  return static_cast<std::int64_t>(std::filesystem::file_size(path));
}

void append(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::app) << bytes;
}

// The directory of the test's files: the temporary directory when it is on ext4, a tmpfs mounted
// for the test, or an XFS loop image.
class ChangingInput : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string& type = GetParam();
    if (type == "ext4") {
      struct statfs fs;
      if (::statfs(dir_.path().c_str(), &fs) != 0 || fs.f_type != EXT4_SUPER_MAGIC) {
        GTEST_SKIP() << "the temporary directory is not on ext4";
      }
      return;
    }
    if (::geteuid() != 0) GTEST_SKIP() << "mounting " << type << " needs root";
    if (type == "tmpfs") {
      mounted_.emplace("64m");
    } else {
      if (std::system("command -v mkfs.xfs >/dev/null 2>&1") != 0) {
        GTEST_SKIP() << "mkfs.xfs is not installed (xfsprogs)";
      }
      mounted_.emplace("mkfs.xfs -q -f", 300);
    }
    if (!mounted_->mounted()) GTEST_SKIP() << "cannot mount " << type << ": " << mounted_->error();
  }

  std::filesystem::path file(const std::string& name) const {
    return mounted_ ? *mounted_ / name : dir_ / name;
  }

  // After a cut below what was mapped: reading on to the end must end in badbit with EIO.
  static void expect_reading_on_ends_in_eio(mapout::istream& in,
                                            const std::filesystem::path& path) {
    in.clear();
    in.ignore(std::numeric_limits<std::streamsize>::max());
    EXPECT_TRUE(in.bad());
    EXPECT_EQ(in.error(), std::error_code(EIO, std::system_category()));
    EXPECT_EQ(in.error_message(), "mapout: " + std::string(cut_message) + " '" + path.string() +
                                      "': " + std::strerror(EIO));
  }

 private:
  temp_dir dir_;
  std::optional<mounted_file_system> mounted_;
};

TEST_P(ChangingInput, AppendedBetweenReadsIsReadOnAsIfstreamReadsIt) {
  const auto path = file("growing");
  for (unsigned seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    write_file(path, random_text(3 * page + 123, seed));
    std::ifstream expected(path, std::ios::binary);
    mapout::istream actual(path, std::ios::binary);
    ASSERT_TRUE(actual.is_open());
    std::mt19937 random_expected(seed);
    std::mt19937 random_actual(seed);
    std::mt19937 growth(seed + 100);
    for (int i = 0; i < 1500; ++i) {
      if (growth() % 40 == 0) append(path, random_text(growth() % (2 * page), growth()));
      const unsigned op = random_expected() % 14;
      random_actual();
      const std::int64_t size = size_of(path);
      const std::string want = step(expected, op, random_expected, size);
      const std::string got = step(actual, op, random_actual, size);
      ASSERT_EQ(got, want) << "step " << i;
    }
    EXPECT_FALSE(actual.error());
  }
}

TEST_P(ChangingInput, CutBetweenReadsReadsAsIfstreamUntilItEndsInEio) {
  const auto path = file("shrinking");
  for (unsigned seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const std::size_t size = 5 * page + 321;
    write_file(path, random_text(size, seed));
    std::ifstream expected(path, std::ios::binary);
    mapout::istream actual(path, std::ios::binary);
    ASSERT_TRUE(actual.is_open());
    std::mt19937 random_expected(seed);
    std::mt19937 random_actual(seed);
    std::mt19937 cut(seed + 200);
    const int cut_at = static_cast<int>(cut() % 200);
    // Half the cuts stay inside the last page (no fault: the rest of the page reads as zeroes),
    // half drop pages (a fault the guard catches).
    const std::size_t last_page = size - size % page;
    const std::size_t new_size =
        seed % 2 ? last_page + cut() % (size - last_page) : cut() % last_page;
    bool differed = false;
    for (int i = 0; i < 600 && !differed; ++i) {
      if (i == cut_at) {
        ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(new_size)), 0);
      }
      const unsigned op = random_expected() % 14;
      random_actual();
      const std::int64_t now = size_of(path);
      const std::string want = step(expected, op, random_expected, now);
      const std::string got = step(actual, op, random_actual, now);
      differed = got != want;
      if (differed) {
        ASSERT_GE(i, cut_at) << "differs before the cut: " << got << " / " << want;
      }
    }
    // A seek from the end before any read of the part cut away reads on as std::ifstream reads;
    // error() still reports the cut.
    if (differed) {
      expect_reading_on_ends_in_eio(actual, path);
    } else {
      EXPECT_EQ(actual.error(), std::error_code(EIO, std::system_category()));
    }
  }
}

// A log still being written: std::ifstream reads the lines appended after it met end of file.
TEST_P(ChangingInput, LinesAppendedAfterEndOfFileAreRead) {
  const auto path = file("log");
  write_file(path, std::string(page - 2, 'a') + "\n");
  std::ifstream expected(path);
  mapout::istream actual(path);
  std::string line;
  ASSERT_TRUE(std::getline(actual, line));
  EXPECT_FALSE(std::getline(actual, line));
  append(path, "second line\nthird");
  actual.clear();
  ASSERT_TRUE(std::getline(actual, line));
  EXPECT_EQ(line, "second line");
  ASSERT_TRUE(std::getline(actual, line));
  EXPECT_EQ(line, "third");
  EXPECT_TRUE(actual.eof());
  EXPECT_FALSE(actual.bad());
  EXPECT_EQ(actual.view().size(), page - 1);  // the mapping stays as it was at open
  std::string want;
  while (std::getline(expected, want)) {
  }
  EXPECT_EQ(want, "third");
}

// A file cut inside its last page faults nowhere: its lost bytes read as zeroes from the page
// cache. The end of the mapping finds the cut, and the stream ends in badbit, not in end of file.
TEST_P(ChangingInput, FileCutInsideItsLastPageEndsInBadbitNotEndOfFile) {
  const auto path = file("cut");
  std::string text;
  while (text.size() < 4000) text += "line " + std::to_string(text.size()) + "\n";
  text.resize(4000);
  write_file(path, text);
  std::ifstream expected(path);
  mapout::istream actual(path);
  mapout::mapped_input whole(path);
  ASSERT_TRUE(actual.is_open());
  ASSERT_EQ(::truncate(path.c_str(), 100), 0);
  const std::string bytes((std::istreambuf_iterator<char>(expected)), {});
  EXPECT_EQ(bytes, text.substr(0, 100));
  EXPECT_FALSE(expected.bad());
  std::string got;
  while (std::getline(actual, got)) {
  }
  EXPECT_TRUE(actual.bad());
  EXPECT_EQ(actual.error(), std::error_code(EIO, std::system_category()));
  EXPECT_NE(actual.error_message().find(cut_message), std::string::npos);
  // mapped_input cannot stop a reader of its bytes; it says so when asked.
  EXPECT_EQ(whole.error(), std::error_code(EIO, std::system_category()));
  EXPECT_EQ(whole.error_message(), actual.error_message());
}

INSTANTIATE_TEST_SUITE_P(FileSystems, ChangingInput, ::testing::Values("ext4", "tmpfs", "xfs"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
