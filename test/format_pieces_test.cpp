// mapout::print at the limits of its format cutter: literal text of 255, 256 and 257 bytes, an
// escape that ends on the limit, 16 and 17 fields, against fmt::format, through a literal (cut
// with limits under C++20), FMT_STRING and FMT_COMPILE (cut without), on a stream and a cursor,
// in windows shorter and longer than the text.
#include <gtest/gtest.h>

#include <string>

#include "mapout/format.hpp"
#include "strategies.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::read_file;
using mapout::test::temp_dir;

#define TEXT_15 "abcdefghijklmn|"
#define TEXT_16 "abcdefghijklmno|"
#define TEXT_64 TEXT_16 TEXT_16 TEXT_16 TEXT_16
#define TEXT_255 TEXT_64 TEXT_64 TEXT_64 TEXT_16 TEXT_16 TEXT_16 TEXT_15
#define TEXT_256 TEXT_64 TEXT_64 TEXT_64 TEXT_64
#define FIELDS_16 "{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}"
#define ARGS_16 i, 'c', true, "s", text, 2.5, -i, i, i, i, i, i, i, i, i, i

// Each format once as a literal, once through FMT_STRING and once through FMT_COMPILE, on `out`
// (a mapout::ostream or mapout::cursor); returns what fmt::format makes of them.
#define PRINT_EACH_WAY(out, pattern, ...)                                                          \
  (mapout::print(out, pattern, __VA_ARGS__), mapout::print(out, FMT_STRING(pattern), __VA_ARGS__), \
   mapout::print(out, FMT_COMPILE(pattern), __VA_ARGS__), [&] {                                    \
     const std::string once = fmt::format(pattern, __VA_ARGS__);                                   \
     return once + once + once;                                                                    \
   }())

template <typename Out>
std::string print_at_the_limits(Out& out, int i) {
  const std::string text(static_cast<std::size_t>(i & 3), 'x');
  std::string expected;
  expected += PRINT_EACH_WAY(out, TEXT_255 "{}", i);
  expected += PRINT_EACH_WAY(out, TEXT_256 "{}", i);
  expected += PRINT_EACH_WAY(out, TEXT_256 "|{}", i);
  expected += PRINT_EACH_WAY(out, TEXT_255 "{{}}{}", i);
  expected += PRINT_EACH_WAY(out, TEXT_256 "{}", "");
  expected += PRINT_EACH_WAY(out, "{}" TEXT_256, text);
  expected += PRINT_EACH_WAY(out, FIELDS_16, ARGS_16);
  expected += PRINT_EACH_WAY(out, FIELDS_16 "{}", ARGS_16, text);
  expected += PRINT_EACH_WAY(out, "[" FIELDS_16 "]" TEXT_255, ARGS_16);
  return expected;
}

TEST(PrintPieces, FormatsAtTheCuttersLimitsMatchFmtFormat) {
  temp_dir dir;
  for (std::size_t buffer_size = 1; buffer_size < 700; buffer_size += 37) {
    SCOPED_TRACE("buffer " + std::to_string(buffer_size));
    const auto path = dir / ("limits" + std::to_string(buffer_size));
    mapout::ostream out(path, std::ios::out, mapout::test::buffered(buffer_size));
    std::string expected;
    for (int i = -3; i < 3; ++i) {
      expected += print_at_the_limits(out, i * 1000003);
      mapout::cursor put(out);
      expected += print_at_the_limits(put, i);
    }
    out.close();
    ASSERT_TRUE(out.good());
    ASSERT_EQ(read_file(path), expected);
  }
}

}  // namespace
