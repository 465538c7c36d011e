// The mapped strategy populates its pages a bounded stretch ahead of the stores
// (MADV_POPULATE_WRITE), never past the end of the file, and writes on with plain page faults
// where the kernel refuses.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "bytes.hpp"
#include "mapout/ostream.hpp"
#include "platform/sys.hpp"
#include "populate_log.hpp"
#include "strategies.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::mapped;
using mapout::test::pattern;
using mapout::test::populate_call;
using mapout::test::populate_log;
using mapout::test::read_file;
using mapout::test::temp_dir;

// Writes `text` in 100-byte pieces through a mapped mapout::ostream with a 4 MiB reservation, so
// that the mapping also moves along the file.
void write_in_pieces(const std::filesystem::path& path, const std::string& text) {
  mapout::ostream out(path, std::ios::out, mapped(std::size_t{4} << 20));
  ASSERT_TRUE(out.is_open()) << out.rdbuf()->error_message();
  for (std::size_t at = 0; at < text.size(); at += 100) {
    out.write(text.data() + at,
              static_cast<std::streamsize>(std::min<std::size_t>(100, text.size() - at)));
  }
  out.close();
  ASSERT_TRUE(out) << out.rdbuf()->error_message();
}

TEST(Populate, MappedPopulatesAheadInBoundedStepsWithinTheFile) {
  temp_dir dir;
  const std::string text = pattern((std::size_t{10} << 20) + 12345);
  {
    const populate_log log;
    write_in_pieces(dir / "out", text);
  }
  // One call per stretch, not one per page: 10 MiB in 1 MiB steps, plus the short stretches
  // while the file's extent is still small and at each move of the mapping.
  ASSERT_GE(populate_log::taken().size(), 10u);
  EXPECT_LE(populate_log::taken().size(), 40u);
  for (const populate_call& call : populate_log::taken()) {
    EXPECT_LE(call.length, std::size_t{1} << 20);
    EXPECT_EQ(call.result, 0);
  }
  EXPECT_EQ(read_file(dir / "out"), text);
}

// A writer that seeks back and writes a block at a time populates nothing: the block's own pages
// fault in, where populating a step ahead for each block cost 365 us apiece.
TEST(Populate, ScatteredBlocksBehindTheEndPopulateNothing) {
  temp_dir dir;
  const std::string block = pattern(4096);
  std::string expected((std::size_t{8} << 20), '\0');
  mapout::ostream out(dir / "out", std::ios::out, mapped(std::size_t{1} << 20));
  out.seekp(static_cast<std::streamoff>(expected.size() - 1));
  out.put('\0');
  const populate_log log;
  for (std::size_t i = 0; i < 500; ++i) {
    const std::size_t at = (i * 7919 % 2048) * 4096;
    out.seekp(static_cast<std::streamoff>(at));
    out.write(block.data(), static_cast<std::streamsize>(block.size()));
    expected.replace(at, block.size(), block);
  }
  out.close();
  ASSERT_TRUE(out) << out.rdbuf()->error_message();
  EXPECT_EQ(populate_log::taken().size(), 0u);
  EXPECT_TRUE(read_file(dir / "out") == expected);
}

TEST(Populate, MappedWritesOnWithPageFaultsWhenPopulatingIsRefused) {
  temp_dir dir;
  const std::string text = pattern((std::size_t{6} << 20) + 777);
  {
    const populate_log log(populate_log::refuse);
    write_in_pieces(dir / "out", text);
  }
  EXPECT_EQ(populate_log::taken().size(), 1u);  // asked once, then never again for this file
  EXPECT_EQ(read_file(dir / "out"), text);
}

}  // namespace
