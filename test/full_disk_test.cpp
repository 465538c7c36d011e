// A full disk through mapout, on the buffer and on the mapping: an error that names the operation,
// the path and ENOSPC, the bytes before it kept, and no crash. A suite under Wine cannot mount:
// ./build.sh windows mounts a small tmpfs and names it in MAPOUT_TEST_FULL_DISK (Wine's Z: drive
// is Linux's root); elsewhere the test mounts its own, as root.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>

#include "bytes.hpp"
#include "mapout/ostream.hpp"
#include "mounted_file_system.hpp"
#include "strategies.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::buffered;
using mapout::test::mapped;
using mapout::test::mounted_file_system;
using mapout::test::pattern;
using mapout::test::read_file;

// A directory on a file system of 1 MiB: MAPOUT_TEST_FULL_DISK's, or a tmpfs mounted here.
class full_disk {
 public:
  full_disk() {
    const char* given = std::getenv("MAPOUT_TEST_FULL_DISK");
    if (given != nullptr && *given != '\0') {
      directory_ = given;
      return;
    }
    mounted_.emplace("1m");
    if (mounted_->mounted()) {
      directory_ = *mounted_ / "";
    } else {
      why_not_ = mounted_->error() +
                 "; or name a directory on a small file system in MAPOUT_TEST_FULL_DISK";
    }
  }

  // Why there is no full disk to write to, or "".
  const std::string& why_not() const { return why_not_; }
  std::filesystem::path operator/(const std::string& name) const { return directory_ / name; }

 private:
  std::optional<mounted_file_system> mounted_;
  std::filesystem::path directory_;
  std::string why_not_;
};

// Writes 4 MiB onto the 1 MiB disk in blocks of 64 KiB: the stream must fail, say why and where,
// and leave in the file a prefix of the bytes written. The file is removed after, for the next.
void expect_full_disk_reported(const std::string& name, const mapout::options& opts) {
  full_disk disk;
  if (!disk.why_not().empty()) GTEST_SKIP() << disk.why_not();
  const auto path = disk / name;
  const std::string bytes = pattern(std::size_t{4} << 20);
  {
    mapout::ostream out(path, std::ios::binary, opts);
    ASSERT_TRUE(out.is_open()) << out.rdbuf()->error_message();
    constexpr std::size_t block = 65536;
    for (std::size_t at = 0; at < bytes.size() && out; at += block) {
      out.write(bytes.data() + at, static_cast<std::streamsize>(block));
    }
    out.close();
    EXPECT_FALSE(out) << "4 MiB fitted on a disk of 1 MiB";
    const std::string message = out.rdbuf()->error_message();
    EXPECT_EQ(out.rdbuf()->error(), std::errc::no_space_on_device) << message;
    EXPECT_EQ(message.rfind("mapout: ", 0), 0u) << message;
    // mapout names the path as the caller spelled it.
    EXPECT_NE(message.find("'" + path.string() + "'"), std::string::npos) << message;
  }
  const std::string kept = read_file(path);
  EXPECT_LT(kept.size(), bytes.size());
  EXPECT_TRUE(bytes.compare(0, kept.size(), kept) == 0) << "the file is not what was written";
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
}

TEST(FullDisk, BufferReportsEnospcWithItsPath) {
  expect_full_disk_reported("buffered", buffered());
}

TEST(FullDisk, MappingReportsEnospcWithItsPath) {
  expect_full_disk_reported("mapped", mapped());
}

TEST(FullDisk, MappingWindowOfOnePageReportsEnospcWithItsPath) {
  expect_full_disk_reported("one-page", mapped(mapout::test::page_size()));
}

}  // namespace
