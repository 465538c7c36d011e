// The functions behind the core's decisions, each checked on a table of inputs: the inline short
// copy, the inline decimal writer, the extension step, and which kind of target a descriptor is.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>
#ifndef _WIN32
#include <sys/socket.h>
#endif

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "backends/strategy.hpp"
#include "bytes.hpp"
#include "file/open_mode.hpp"
#include "file_system_type.hpp"
#include "mapout/detail/copy_short.hpp"
#include "mapout/detail/decimal.hpp"
#include "mapping/extent.hpp"
#include "platform/sys.hpp"
#include "temp_dir.hpp"

namespace mapout::detail {

// Failure messages name the kind.
void PrintTo(target_kind kind, std::ostream* out) {
  switch (kind) {
    case target_kind::unmappable:
      *out << "unmappable";
      return;
    case target_kind::buffer_wins:
      *out << "buffer_wins";
      return;
    case target_kind::mapping_wins:
      *out << "mapping_wins";
      return;
  }
  *out << "target_kind " << static_cast<int>(kind);
}

}  // namespace mapout::detail

namespace {

using mapout::detail::copy_short;
using mapout::detail::kind_of;
using mapout::detail::next_extent;
using mapout::detail::target_kind;
using mapout::test::pattern;
using mapout::test::temp_dir;

// ---- copy_short

// Every size in each of its size classes and at each boundary between them, then sizes that go to
// memcpy; from every alignment of source and destination. The result must be memcpy's, with the
// bytes on either side of the destination untouched.
TEST(CopyShort, EverySizeAndAlignmentCopiesExactlyLikeMemcpy) {
  const std::size_t sizes[] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,  12,
                               13, 14, 15, 16, 17, 23, 24, 31, 32, 33, 64, 100, 4096};
  constexpr std::size_t margin = 32;
  constexpr char untouched = '\xff';  // never a byte of the pattern
  const std::string source = pattern(4096 + 8);
  for (const std::size_t size : sizes) {
    for (std::size_t from = 0; from < 8; ++from) {
      for (std::size_t to = 0; to < 8; ++to) {
        SCOPED_TRACE("size " + std::to_string(size) + " from offset " + std::to_string(from) +
                     " to offset " + std::to_string(to));
        std::string expected(size + 2 * margin, untouched);
        std::string got = expected;
        std::memcpy(expected.data() + margin + to, source.data() + from, size);
        copy_short(got.data() + margin + to, source.data() + from, size);
        ASSERT_EQ(got, expected);
      }
    }
  }
}

// ---- write_decimal

// Writes `value` both ways, with a margin that must stay untouched, and compares.
template <typename Integer>
void expect_decimal_like_to_chars(Integer value) {
  constexpr char untouched = '\xff';
  std::string expected(24, untouched);
  std::string got = expected;
  const char* const expected_end = std::to_chars(&expected[0], &expected[0] + 20, value).ptr;
  const char* const got_end = mapout::detail::write_decimal(&got[0], value);
  ASSERT_EQ(got, expected) << +value;
  ASSERT_EQ(got_end - got.data(), expected_end - expected.data()) << +value;
}

// Every integer type at its limits, at every power of ten and its neighbours (where the digit count
// changes), and at random values of every length.
template <typename Integer>
void check_every_length() {
  using limits = std::numeric_limits<Integer>;
  expect_decimal_like_to_chars<Integer>(limits::min());
  expect_decimal_like_to_chars<Integer>(limits::max());
  expect_decimal_like_to_chars<Integer>(0);
  Integer power = 1;
  for (int digits = 0; digits <= limits::digits10; ++digits) {
    for (const Integer value :
         {power, static_cast<Integer>(power - 1), static_cast<Integer>(power + 1)}) {
      expect_decimal_like_to_chars(value);
      if constexpr (limits::is_signed) expect_decimal_like_to_chars<Integer>(-value);
    }
    if (digits < limits::digits10) power = static_cast<Integer>(power * 10);
  }
  std::mt19937_64 random(limits::digits);
  for (int i = 0; i < 2000; ++i) {
    const auto bits = random() >> (random() % 64);
    expect_decimal_like_to_chars(static_cast<Integer>(bits));
  }
}

TEST(WriteDecimal, EveryIntegerTypeWritesWhatToCharsWrites) {
  check_every_length<signed char>();
  check_every_length<unsigned char>();
  check_every_length<short>();
  check_every_length<unsigned short>();
  check_every_length<int>();
  check_every_length<unsigned int>();
  check_every_length<long>();
  check_every_length<unsigned long>();
  check_every_length<long long>();
  check_every_length<unsigned long long>();
}

// ---- next_extent

constexpr std::uint64_t KiB = std::uint64_t{1} << 10;
constexpr std::uint64_t MiB = std::uint64_t{1} << 20;
constexpr std::uint64_t GiB = std::uint64_t{1} << 30;

struct extension_row {
  const char* name;
  std::uint64_t extent;
  std::uint64_t needed;
  std::uint64_t expected;
};

// The file grows by its own size, by 64 KiB at the least and 64 MiB at the most, and always at
// least to what is needed.
TEST(NextExtent, StepIsTheExtentBetweenTheFloorAndTheCap) {
  const extension_row rows[] = {
      {"empty file: the floor", 0, 1, 64 * KiB},
      {"empty file, nothing needed: still the floor", 0, 0, 64 * KiB},
      {"one page: the floor", 4 * KiB, 4 * KiB + 1, 68 * KiB},
      {"just under the floor", 32 * KiB, 32 * KiB + 1, 96 * KiB},
      {"at the floor: doubles", 64 * KiB, 64 * KiB + 1, 128 * KiB},
      {"1 MiB: doubles", MiB, MiB + 1, 2 * MiB},
      {"just under the cap: doubles", 63 * MiB, 63 * MiB + 1, 126 * MiB},
      {"at the cap: doubles", 64 * MiB, 64 * MiB + 1, 128 * MiB},
      {"past the cap: 64 MiB", GiB, GiB + 1, GiB + 64 * MiB},
      {"a terabyte: 64 MiB", 1024 * GiB, 1024 * GiB + 1, 1024 * GiB + 64 * MiB},
      {"needed exactly one step away", GiB, GiB + 64 * MiB, GiB + 64 * MiB},
      {"needed past the floor of an empty file", 0, 10 * MiB, 10 * MiB},
      {"needed past the doubling", MiB, 5 * MiB, 5 * MiB},
      {"needed past the cap", GiB, 2 * GiB, 2 * GiB},
      {"needed inside the extent: one step anyway", 4 * MiB, MiB, 8 * MiB},
  };
  for (const extension_row& row : rows) {
    SCOPED_TRACE(row.name);
    EXPECT_EQ(next_extent(row.extent, row.needed), row.expected)
        << "extent " << row.extent << ", needed " << row.needed;
  }
}

// ---- kind_of

// Descriptors of every kind and the file system's type (statfs magic): Linux's classification.
#ifndef _WIN32
using mapout::test::file_system_type;
// Opens the descriptors a row needs and closes them after the test; restores the real calls.
class KindOf : public testing::Test {
 protected:
  ~KindOf() override {
    mapout::detail::sys() = mapout::detail::real_system_calls();
    for (const int fd : fds_) ::close(fd);
  }

  int keep(int fd) {
    EXPECT_GE(fd, 0) << std::strerror(errno);
    fds_.push_back(fd);
    return fd;
  }
  int regular_file() {
    return keep(
        ::open((dir_ / "file").string().c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  }
  int directory() { return keep(::open(dir_.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)); }
  int dev_null() { return keep(::open("/dev/null", O_WRONLY | O_CLOEXEC)); }
  int pipe_end() {
    int ends[2] = {-1, -1};
    EXPECT_EQ(::pipe2(ends, O_CLOEXEC), 0) << std::strerror(errno);
    keep(ends[0]);
    return keep(ends[1]);
  }
  int socket_end() {
    int ends[2] = {-1, -1};
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends), 0)
        << std::strerror(errno);
    keep(ends[1]);
    return keep(ends[0]);
  }

  temp_dir dir_;

 private:
  std::vector<int> fds_;
};

struct descriptor_row {
  const char* name;
  int fd;
};

TEST_F(KindOf, DescriptorsThatAreNotRegularFilesAreUnmappable) {
  const descriptor_row rows[] = {{"pipe", pipe_end()},
                                 {"/dev/null", dev_null()},
                                 {"socket", socket_end()},
                                 {"directory", directory()}};
  for (const descriptor_row& row : rows) {
    SCOPED_TRACE(row.name);
    EXPECT_EQ(kind_of(row.fd), target_kind::unmappable);
    // Not even where the file system would let a regular file be mapped.
    const mapout::test::on_unmeasured_file_system unmeasured;
    EXPECT_EQ(kind_of(row.fd), target_kind::unmappable);
  }
}

// The suite's temporary directory is on a local file system, whichever it is.
TEST_F(KindOf, RegularFileInTheTemporaryDirectoryCanBeMapped) {
  EXPECT_NE(kind_of(regular_file()), target_kind::unmappable);
}

// kind_of with fstatfs reporting `Magic` as the file system type.
template <long Magic>
target_kind kind_on(int fd) {
  const file_system_type<Magic> pretend;
  return kind_of(fd);
}

struct file_system_row {
  const char* name;
  target_kind (*kind)(int fd);
  target_kind expected;
};

TEST_F(KindOf, RegularFileByFileSystemType) {
  using mapout::test::ext4_magic;
  using mapout::test::fuse_magic;
  using mapout::test::nfs_magic;
  using mapout::test::tmpfs_magic;
  using mapout::test::xfs_magic;
  const file_system_row rows[] = {
      {"tmpfs: write(2) is faster", kind_on<tmpfs_magic>, target_kind::buffer_wins},
      {"ext4: write(2) is faster", kind_on<ext4_magic>, target_kind::buffer_wins},
      {"XFS: not measured, keeps the mapping", kind_on<xfs_magic>, target_kind::mapping_wins},
      {"NFS: remote", kind_on<nfs_magic>, target_kind::unmappable},
      {"FUSE: another process", kind_on<fuse_magic>, target_kind::unmappable},
  };
  const int fd = regular_file();
  for (const file_system_row& row : rows) {
    SCOPED_TRACE(row.name);
    EXPECT_EQ(row.kind(fd), row.expected);
  }
}

int failing_fstat(int, struct stat*) {
  errno = EIO;
  return -1;
}

int failing_fstatfs(int, struct statfs*) {
  errno = EIO;
  return -1;
}

// What cannot be known cannot be mapped.
TEST_F(KindOf, FailedFstatOrFstatfsIsUnmappable) {
  const int fd = regular_file();
  mapout::detail::sys().fstat = failing_fstat;
  EXPECT_EQ(kind_of(fd), target_kind::unmappable);
  mapout::detail::sys() = mapout::detail::real_system_calls();
  mapout::detail::sys().fstatfs = failing_fstatfs;
  EXPECT_EQ(kind_of(fd), target_kind::unmappable);
}
#endif  // _WIN32

}  // namespace
