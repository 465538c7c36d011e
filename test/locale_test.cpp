// Numbers under locales derived from a mapout::ostream's own, as libraries imbue them: through the
// static type and through std::ostream&, against std::ostringstream imbued with the same facets
// and the standard num_put. Those that punctuate as the classic locale must stay on mapout's path.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <iomanip>
#include <limits>
#include <locale>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "mapout/num_put.hpp"
#include "mapout/ostream.hpp"
#include "number_cases.hpp"
#include "temp_dir.hpp"
#ifndef _WIN32
#include "vsnprintf_calls.hpp"
#endif

namespace {

using mapout::test::first_difference;
using mapout::test::number_case;
using mapout::test::read_file;
using mapout::test::temp_dir;

// What Boost's codecvt_null is to a char stream.
struct null_codecvt : std::codecvt<char, char, std::mbstate_t> {
  bool do_always_noconv() const noexcept override { return true; }
};

// A facet of the user's own category: it plays no part in numbers.
struct user_facet : std::locale::facet {
  static std::locale::id id;
};
std::locale::id user_facet::id;

// '.' and no grouping, with its own words for bool: numbers as the classic locale's.
struct words_punct : std::numpunct<char> {
  char do_thousands_sep() const override { return ','; }
  std::string do_truename() const override { return "yes"; }
  std::string do_falsename() const override { return "no"; }
};

// A separator, but groups of unlimited size: no separator is ever written.
struct unlimited_group_punct : std::numpunct<char> {
  char do_thousands_sep() const override { return ','; }
  std::string do_grouping() const override { return std::string(1, CHAR_MAX); }
};

struct grouping_punct : std::numpunct<char> {
  char do_thousands_sep() const override { return ','; }
  std::string do_grouping() const override { return "\3"; }
};

struct comma_punct : std::numpunct<char> {
  char do_decimal_point() const override { return ','; }
  char do_thousands_sep() const override { return '.'; }
};

// Widens the digit zero to 'o', one by one and in ranges alike.
struct zero_ctype : std::ctype<char> {
  char do_widen(char c) const override { return c == '0' ? 'o' : c; }
  const char* do_widen(const char* first, const char* last, char* to) const override {
    for (; first != last; ++first) *to++ = do_widen(*first);
    return last;
  }
};

struct derived_locale {
  const char* name;
  std::locale (*derive)(const std::locale& base);
  bool classic_punctuation;
};

void PrintTo(const derived_locale& locale, std::ostream* out) {
  *out << locale.name;
}

const derived_locale derived_locales[] = {
    {"codecvt", [](const std::locale& l) { return std::locale(l, new null_codecvt); }, true},
    {"user_facet", [](const std::locale& l) { return std::locale(l, new user_facet); }, true},
    {"words_numpunct", [](const std::locale& l) { return std::locale(l, new words_punct); }, true},
    {"unlimited_groups",
     [](const std::locale& l) { return std::locale(l, new unlimited_group_punct); }, true},
    {"classic_with_codecvt",
     [](const std::locale&) { return std::locale(std::locale::classic(), new null_codecvt); },
     true},
    {"grouping_3", [](const std::locale& l) { return std::locale(l, new grouping_punct); }, false},
    {"comma_point", [](const std::locale& l) { return std::locale(l, new comma_punct); }, false},
    {"widened_zero", [](const std::locale& l) { return std::locale(l, new zero_ctype); }, false},
};

// The same facets with the standard num_put in place of mapout's: what std::ofstream would use.
std::locale standard_numbers(const std::locale& locale) {
  return std::locale(locale, new std::num_put<char>);
}

class DerivedLocale : public testing::TestWithParam<derived_locale> {};

TEST_P(DerivedLocale, RandomNumbersMatchOstringstreamInTheSameLocale) {
  temp_dir dir;
  std::mt19937_64 random(20261202);
  mapout::ostream out(dir / "numbers.txt");
  const std::locale locale = GetParam().derive(out.getloc());
  out.imbue(locale);
  std::ostringstream reference;
  reference.imbue(standard_numbers(locale));
  const std::vector<number_case> cases = mapout::test::insert_random_cases(
      out, reference, random, 200000, mapout::test::number_type_count);
  out.close();
  ASSERT_TRUE(out) << out.error_message();
  const std::string got = read_file(dir / "numbers.txt");
  ASSERT_TRUE(got == reference.str()) << first_difference(got, reference.str(), cases);
}

INSTANTIATE_TEST_SUITE_P(Locales, DerivedLocale, testing::ValuesIn(derived_locales),
                         [](const testing::TestParamInfo<derived_locale>& info) {
                           return std::string(info.param.name);
                         });

template <class Stream>
void write_every_kind(Stream& out) {
  out << 1.5 << ' ' << -42L << ' ' << 7u << ' ' << std::scientific << std::setprecision(17) << 0.1
      << ' ' << std::fixed << -2.25f << ' ' << std::defaultfloat << std::setw(12) << std::internal
      << -3.0L << ' ' << 123456789012LL << '\n';
}

// libstdc++'s num_put formats every floating-point number through vsnprintf, mapout's never.
// Counted by taking vsnprintf's place with dlsym(RTLD_NEXT), which Windows has not.
#ifndef _WIN32
TEST(ClassicPunctuation, DerivedLocaleDoublesNeverReachTheStandardFacet) {
  temp_dir dir;
  mapout::ostream out(dir / "fast.txt");
  const std::locale locale(std::locale(out.getloc(), new words_punct), new null_codecvt);
  out.imbue(locale);
  const int before = mapout::test::vsnprintf_calls;
  write_every_kind(out);
  write_every_kind(static_cast<std::ostream&>(out));
  EXPECT_EQ(mapout::test::vsnprintf_calls - before, 0);
  // The probe works: the same numbers through the standard facet are counted.
  std::ostringstream reference;
  reference.imbue(standard_numbers(locale));
  write_every_kind(reference);
  write_every_kind(reference);
  EXPECT_EQ(mapout::test::vsnprintf_calls - before, 8);
  out.close();
  EXPECT_EQ(read_file(dir / "fast.txt"), reference.str());
}
#endif  // _WIN32

// Every imbue is seen, whichever way it comes: std::ios's, std::ios_base's, copyfmt, and a move.
TEST(ClassicPunctuation, ImbueMidStreamSwitchesBothWays) {
  temp_dir dir;
  mapout::ostream out(dir / "switch.txt");
  const std::locale fast(out.getloc(), new null_codecvt);
  const std::locale comma(out.getloc(), new comma_punct);
  const std::locale grouping(out.getloc(), new grouping_punct);
  std::ostringstream reference;
  std::ostringstream grouping_source;
  grouping_source.imbue(grouping);
  std::ostringstream reference_grouping_source;
  reference_grouping_source.imbue(standard_numbers(grouping));
  std::mt19937_64 random(11);
  for (int i = 0; i < 4000; ++i) {
    switch (i % 5) {
      case 0:
        out.imbue(fast);
        reference.imbue(standard_numbers(fast));
        break;
      case 1:
        static_cast<std::ios_base&>(out).imbue(comma);
        static_cast<std::ios_base&>(reference).imbue(standard_numbers(comma));
        // std::ios_base::imbue leaves the standard library's cached num_put as it was: restore
        // both so that only the punctuation differs.
        out.imbue(comma);
        reference.imbue(standard_numbers(comma));
        break;
      case 2:
        out.copyfmt(grouping_source);
        reference.copyfmt(reference_grouping_source);
        break;
      case 3:
        out.imbue(fast);
        reference.imbue(standard_numbers(fast));
        break;
      default:
        out.imbue(grouping);
        reference.imbue(standard_numbers(grouping));
    }
    const number_case c = mapout::test::random_case(random, mapout::test::number_type_count);
    mapout::test::insert(static_cast<std::ostream&>(out), c);
    mapout::test::insert(out, c);
    mapout::test::insert(reference, c);
    mapout::test::insert(reference, c);
  }
  mapout::ostream moved(std::move(out));
  moved.imbue(comma);
  reference.imbue(standard_numbers(comma));
  write_every_kind(static_cast<std::ostream&>(moved));
  write_every_kind(reference);
  moved.close();
  ASSERT_TRUE(moved) << moved.error_message();
  EXPECT_TRUE(read_file(dir / "switch.txt") == reference.str());
}

// A numpunct whose answers change is the user's bug; what happens: mapout reads them at the
// stream's first number after an imbue and keeps that answer until the next imbue.
char changing_point = '.';
struct changing_punct : std::numpunct<char> {
  char do_decimal_point() const override { return changing_point; }
};

TEST(ClassicPunctuation, NumpunctAnswersAreReadAtTheFirstNumberAfterImbue) {
  temp_dir dir;
  mapout::ostream out(dir / "changing.txt");
  const std::locale locale(out.getloc(), new changing_punct);
  changing_point = '.';
  out.imbue(locale);
  std::ostream& base = out;
  base << 1.5 << ' ';
  changing_point = ',';
  base << 2.5 << ' ';
  out.imbue(locale);
  base << 3.5 << '\n';
  changing_point = '.';
  out.close();
  EXPECT_EQ(read_file(dir / "changing.txt"), "1.5 2.5 3,5\n");
}

// The corners the random cases reach seldom: internal padding of signs and of "0x", -0.0, NaN and
// infinity with showpos and uppercase, precisions beyond any buffer, long double.
TEST(ClassicPunctuation, CornersMatchOstringstreamUnderDerivedLocale) {
  temp_dir dir;
  mapout::ostream out(dir / "corners.txt");
  const std::locale locale(out.getloc(), new null_codecvt);
  out.imbue(locale);
  std::ostringstream reference;
  reference.imbue(standard_numbers(locale));
  for (std::ostream* stream :
       {static_cast<std::ostream*>(&out), static_cast<std::ostream*>(&reference)}) {
    std::ostream& s = *stream;
    s << std::setfill('*') << std::internal << std::showpos << std::setw(12) << -0.0 << ' '
      << std::setw(12) << 1.25 << ' ' << std::setw(12) << std::numeric_limits<double>::quiet_NaN()
      << ' ' << std::uppercase << std::setw(12) << -std::numeric_limits<double>::infinity() << ' '
      << std::setw(12) << std::numeric_limits<double>::quiet_NaN() << ' ' << std::hexfloat
      << std::setw(20) << -0.1 << ' ' << std::setw(20) << 0.1L << std::noshowpos << std::nouppercase
      << '\n';
    s << std::fixed << std::setprecision(1000) << 1e300 << '\n'
      << std::scientific << std::setprecision(500) << -5e-324 << '\n'
      << std::defaultfloat << std::setprecision(40) << 0.1L << ' '
      << std::numeric_limits<long double>::max() << ' '
      << std::numeric_limits<long double>::denorm_min() << ' ' << std::showpoint
      << std::setprecision(0) << 1e22 << '\n';
    s << std::hex << std::showbase << std::internal << std::setw(10) << 255 << ' ' << std::dec
      << std::setw(10) << -255L << ' ' << std::left << std::setw(10) << 255ULL << std::right
      << std::setw(0) << std::boolalpha << true << '\n';
  }
  out.close();
  EXPECT_EQ(read_file(dir / "corners.txt"), reference.str());
}

}  // namespace
