// Numbers through mapout::ostream, through the static type and through std::ostream&, against
// std::ostringstream: every floatfield, precision, flag, width, fill and value class, and the
// locales a user imbues.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <limits>
#include <locale>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "mapout/num_put.hpp"
#include "mapout/ostream.hpp"
#include "mapout/streambuf.hpp"
#include "number_cases.hpp"
#include "sanitized.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::first_difference;
using mapout::test::number_case;
using mapout::test::read_file;
using mapout::test::temp_dir;

using mapout::test::sanitized;
// A million cases in a plain build; a tenth of them under the sanitizers, which are ten times
// slower.
constexpr int batches = sanitized ? 2 : 20;
constexpr int cases_per_batch = 50000;

TEST(Numbers, RandomFloatingPointMatchesOstringstream) {
  temp_dir dir;
  std::mt19937_64 random(20261201);
  for (int batch = 0; batch < batches; ++batch) {
    std::ostringstream reference;
    mapout::ostream out(dir / "numbers.txt");
    const std::vector<number_case> cases =
        mapout::test::insert_random_cases(out, reference, random, cases_per_batch);
    out.close();
    ASSERT_TRUE(out) << out.error_message();
    const std::string got = read_file(dir / "numbers.txt");
    ASSERT_TRUE(got == reference.str()) << first_difference(got, reference.str(), cases);
  }
}

TEST(Numbers, RandomIntegersThroughBaseReferenceMatchOstringstream) {
  using std::ios_base;
  temp_dir dir;
  std::mt19937_64 random(7);
  std::ostringstream reference;
  mapout::ostream out(dir / "integers.txt");
  static const ios_base::fmtflags bases[] = {ios_base::fmtflags{}, ios_base::dec, ios_base::oct,
                                             ios_base::hex};
  static const ios_base::fmtflags adjusts[] = {ios_base::fmtflags{}, ios_base::left,
                                               ios_base::right, ios_base::internal};
  for (int i = 0; i < 100000; ++i) {
    const ios_base::fmtflags flags =
        bases[random() % 4] | adjusts[random() % 4] |
        (random() % 4 == 0 ? ios_base::showpos : ios_base::fmtflags{}) |
        (random() % 4 == 0 ? ios_base::showbase : ios_base::fmtflags{});
    const auto width = static_cast<std::streamsize>(random() % 4 == 0 ? random() % 25 : 0);
    const auto value = static_cast<std::int64_t>(random()) >> (random() % 64);
    for (std::ostream* stream :
         {static_cast<std::ostream*>(&reference), static_cast<std::ostream*>(&out)}) {
      stream->flags(flags);
      stream->width(width);
      stream->fill('*');
      switch (i % 4) {
        case 0:
          *stream << static_cast<long>(value) << ' ';
          break;
        case 1:
          *stream << static_cast<unsigned long long>(value) << ' ';
          break;
        case 2:
          *stream << static_cast<int>(value) << ' ';
          break;
        default:
          *stream << static_cast<short>(value) << ' ';
      }
    }
  }
  out.close();
  ASSERT_TRUE(out) << out.error_message();
  EXPECT_TRUE(read_file(dir / "integers.txt") == reference.str());
}

TEST(Numbers, StreamCarriesMapoutFacetInClassicLocale) {
  temp_dir dir;
  mapout::ostream out(dir / "facet.txt");
  EXPECT_TRUE(out.getloc() == mapout::numbers_locale());
  EXPECT_NE(dynamic_cast<const mapout::num_put*>(&std::use_facet<std::num_put<char>>(out.getloc())),
            nullptr);
}

// A comma for the point and digits grouped by three, so that a wrongly taken fast path shows.
struct comma_punct : std::numpunct<char> {
  char do_decimal_point() const override { return ','; }
  char do_thousands_sep() const override { return '.'; }
  std::string do_grouping() const override { return "\3"; }
};

void write_numbers(std::ostream& out) {
  out << 1234567.25 << ' ' << 1234567L << ' ' << std::fixed << 9876543.5f << ' ' << std::scientific
      << 1e-5L << '\n';
}

TEST(Numbers, ImbuedLocaleFormatsAsOnOfstream) {
  temp_dir dir;
  const std::locale comma(std::locale::classic(), new comma_punct);
  std::ostringstream reference;
  reference.imbue(comma);
  write_numbers(reference);
  mapout::ostream out(dir / "imbued.txt");
  out.imbue(comma);
  write_numbers(static_cast<std::ostream&>(out));
  out << 1234567.25 << ' ' << 1234567L << '\n';
  reference << 1234567.25 << ' ' << 1234567L << '\n';
  out.close();
  EXPECT_EQ(read_file(dir / "imbued.txt"), reference.str());
}

TEST(Numbers, GlobalLocaleAtConstructionIsKept) {
  temp_dir dir;
  const std::locale comma(std::locale::classic(), new comma_punct);
  const std::locale previous = std::locale::global(comma);
  mapout::ostream out(dir / "global.txt");
  std::ostringstream reference;
  std::locale::global(previous);
  EXPECT_TRUE(out.getloc() == comma);
  write_numbers(out);
  write_numbers(reference);
  out.close();
  EXPECT_EQ(read_file(dir / "global.txt"), reference.str());
}

TEST(Numbers, PlainOstreamOverStreambufWithNumbersLocale) {
  temp_dir dir;
  mapout::streambuf buf;
  ASSERT_NE(buf.open(dir / "plain.txt", std::ios::out), nullptr);
  std::ostream out(&buf);
  out.imbue(mapout::numbers_locale());
  std::ostringstream reference;
  for (std::ostream* stream : {&out, static_cast<std::ostream*>(&reference)}) {
    write_numbers(*stream);
    *stream << std::defaultfloat << std::setprecision(17) << 0.1 << ' ' << -0.0 << '\n';
  }
  ASSERT_NE(buf.close(), nullptr);
  EXPECT_EQ(read_file(dir / "plain.txt"), reference.str());
}

}  // namespace
