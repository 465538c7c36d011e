// strategy::automatic chooses by file system: buffered on tmpfs and ext4, where write(2) beats
// mapped page faults, while strategy::mapped still maps there; elsewhere it maps a file once the
// output outgrows the first buffer.
#include <gtest/gtest.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

#include "file_system_type.hpp"
#include "mapout/ostream.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::read_file;
using mapout::test::temp_dir;
using mapout::test::tmpfs_magic;

// A fresh directory under /dev/shm, removed with its files at the end of the test.
class shm_dir {
 public:
  shm_dir() {
    std::string pattern = "/dev/shm/mapout-strategy-XXXXXX";
    if (::mkdtemp(pattern.data())) path_ = pattern;
  }
  shm_dir(const shm_dir&) = delete;
  shm_dir& operator=(const shm_dir&) = delete;
  ~shm_dir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }

  // Empty when /dev/shm is missing or is not a tmpfs.
  const std::string& path() const { return path_; }
  bool is_tmpfs() const {
    struct statfs fs;
    return !path_.empty() && ::statfs(path_.c_str(), &fs) == 0 &&
           static_cast<long>(fs.f_type) == tmpfs_magic;
  }

 private:
  std::string path_;
};

TEST(Strategy, AutomaticWritesTmpfsThroughTheBuffer) {
  shm_dir dir;
  if (!dir.is_tmpfs()) GTEST_SKIP() << "/dev/shm is not a tmpfs here";
  const std::string path = dir.path() + "/out";
  mapout::ostream out(path);
  ASSERT_TRUE(out.is_open());
  EXPECT_FALSE(out.rdbuf()->file().is_mapped());
  const std::string text(200000, 't');
  out << text;
  out.close();
  ASSERT_TRUE(out) << out.rdbuf()->error_message();
  EXPECT_EQ(read_file(path), text);
}

TEST(Strategy, MappedIsStillHonouredOnTmpfs) {
  shm_dir dir;
  if (!dir.is_tmpfs()) GTEST_SKIP() << "/dev/shm is not a tmpfs here";
  const std::string path = dir.path() + "/out";
  mapout::options opts;
  opts.strategy = mapout::strategy::mapped;
  mapout::ostream out(path, std::ios::out, opts);
  ASSERT_TRUE(out.is_open()) << out.rdbuf()->error_message();
  EXPECT_TRUE(out.rdbuf()->file().is_mapped());
  out << "mapped on tmpfs\n";
  out.close();
  ASSERT_TRUE(out) << out.rdbuf()->error_message();
  EXPECT_EQ(read_file(path), "mapped on tmpfs\n");
}

// A file that fits in the first buffer is never mapped; one that outgrows it is mapped from where
// the stream stands, and seeks reach back into what write(2) wrote before.
TEST(Strategy, AutomaticMapsAFileOnceItOutgrowsTheFirstBuffer) {
  temp_dir dir;
  const mapout::test::on_unmeasured_file_system unmeasured;
  const auto path = dir / "out";
  mapout::options opts;
  opts.buffer_size = 4096;
  mapout::ostream out(path, std::ios::out, opts);
  std::string expected(3000, 'a');
  out << expected;
  EXPECT_FALSE(out.rdbuf()->file().is_mapped());
  EXPECT_EQ(std::filesystem::file_size(path), 0u);  // flushed by publish() or close() only
  out.seekp(10);
  out << "patch";
  expected.replace(10, 5, "patch");
  out.seekp(0, std::ios::end);
  const std::string more(10000, 'b');
  out << more;
  expected += more;
  EXPECT_TRUE(out.rdbuf()->file().is_mapped());
  out.seekp(20);
  out << "mapped patch";
  expected.replace(20, 12, "mapped patch");
  out.close();
  ASSERT_TRUE(out) << out.rdbuf()->error_message();
  EXPECT_EQ(read_file(path), expected);
}

// ext4 is told apart by its type alone, wherever the test runs.
TEST(Strategy, AutomaticKeepsTheBufferOnExt4) {
  temp_dir dir;
  const mapout::test::file_system_type<mapout::test::ext4_magic> ext4;
  const auto path = dir / "out";
  mapout::options opts;
  opts.buffer_size = 4096;
  mapout::ostream out(path, std::ios::out, opts);
  const std::string text(3 * opts.buffer_size + 1, 'e');
  out << text;
  EXPECT_FALSE(out.rdbuf()->file().is_mapped());
  out.close();
  ASSERT_TRUE(out) << out.rdbuf()->error_message();
  EXPECT_EQ(read_file(path), text);
}

}  // namespace
