// Parts held in memory under an address-space limit (`ulimit -v`, as shared batch machines set),
// in forked children: each part takes the address space its bytes need, so that parts whose bytes
// fit under the limit are written side by side.
#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <string>

#include "address_space_limit.hpp"
#include "bytes.hpp"
#include "child_process.hpp"
#include "mapout/parallel.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::pattern;

constexpr std::size_t mib = std::size_t{1} << 20;

// In a child with `headroom` bytes of address space beyond what it has mapped: `parts` parts of
// `size` bytes, the last first, so that every part but part 0 waits in memory until the join.
// "ok", or what failed.
std::string write_under_limit(const std::filesystem::path& path, std::size_t parts,
                              std::size_t size, std::size_t headroom) {
  if (!mapout::test::limit_address_space(headroom)) return "setrlimit failed";
  mapout::parallel_output out(path, parts);
  for (std::size_t k = parts; k-- > 0;) {
    mapout::ostream& part = out.part(k);
    for (std::size_t at = 0; at < size; at += mib) {
      const std::string piece = pattern(mib, static_cast<unsigned>(k), at);
      part.write(piece.data(), static_cast<std::streamsize>(piece.size()));
    }
  }
  return out.close() ? out.error_message() : "ok";
}

// The file holds each part's bytes in index order.
void expect_parts(const std::filesystem::path& path, std::size_t parts, std::size_t size) {
  const std::string got = mapout::test::read_file(path);
  ASSERT_EQ(got.size(), parts * size);
  for (std::size_t k = 0; k < parts; ++k) {
    const std::string want = pattern(size, static_cast<unsigned>(k));
    EXPECT_TRUE(got.compare(k * size, size, want) == 0) << "part " << k << " differs";
  }
}

void write_and_check(std::size_t parts, std::size_t size, std::size_t headroom) {
  SKIP_UNLESS_ADDRESS_SPACE_CAN_BE_LIMITED();
  mapout::test::temp_dir dir;
  const auto path = dir / "out";
  mapout::test::expect_ok(
      mapout::test::run_in_child([&] { return write_under_limit(path, parts, size, headroom); }));
  expect_parts(path, parts, size);
}

TEST(ParallelAddressSpace, SixPartsOfTwentyMiBFitInSixHundredMiB) {
  write_and_check(6, 20 * mib, 600 * mib);
}

TEST(ParallelAddressSpace, FortyPartsOfFourMiBFitInTwoThousandMiB) {
  write_and_check(40, 4 * mib, 2000 * mib);
}

}  // namespace
