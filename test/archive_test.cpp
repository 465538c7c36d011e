// Boost.Serialization's text_oarchive into a mapout::ostream: the bytes std::ostringstream gets,
// read back by text_iarchive, and every number on mapout's path although the archive imbues a
// locale of its own.
#include <gtest/gtest.h>

#include <boost/archive/text_iarchive.hpp>
#include <boost/archive/text_oarchive.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>
#include <cstdint>
#include <fstream>
#include <limits>
#include <locale>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "mapout/ostream.hpp"
#include "number_cases.hpp"
#include "temp_dir.hpp"
#include "vsnprintf_calls.hpp"

namespace {

using mapout::test::read_file;
using mapout::test::temp_dir;

// What a program serializes: doubles of every finite class, integers, a string.
struct record {
  std::vector<double> values;
  std::vector<std::int64_t> counts;
  std::string name;
  float ratio = 0;

  template <class Archive>
  void serialize(Archive& archive, unsigned) {
    archive& values& counts& name& ratio;
  }
};

record random_record(std::uint64_t seed) {
  std::mt19937_64 random(seed);
  record r;
  while (r.values.size() < 20000) {
    const double x = mapout::test::random_value<double>(random);
    if (std::isfinite(x)) r.values.push_back(x);
  }
  for (int i = 0; i < 5000; ++i)
    r.counts.push_back(static_cast<std::int64_t>(random()) >> (i % 64));
  r.name = "doubles and counts";
  r.ratio = 0.1f;
  return r;
}

template <class Stream>
void save(Stream& out, const record& r, unsigned flags) {
  boost::archive::text_oarchive archive(out, flags);
  archive << r;
  for (double x : r.values) archive << x;
}

class TextArchive : public testing::TestWithParam<unsigned> {};

TEST_P(TextArchive, BytesMatchOstringstreamAndReadBack) {
  temp_dir dir;
  const record r = random_record(GetParam() + 5);
  mapout::ostream out(dir / "archive.txt");
  save(out, r, GetParam());
  out.close();
  ASSERT_TRUE(out) << out.error_message();
  std::ostringstream reference;
  save(reference, r, GetParam());
  const std::string got = read_file(dir / "archive.txt");
  ASSERT_TRUE(got == reference.str()) << got.substr(0, 200) << "\n"
                                      << reference.str().substr(0, 200);

  std::ifstream in(dir / "archive.txt");
  boost::archive::text_iarchive archive(in, GetParam());
  record back;
  archive >> back;
  EXPECT_EQ(back.values, r.values);
  EXPECT_EQ(back.counts, r.counts);
  EXPECT_EQ(back.name, r.name);
  EXPECT_EQ(back.ratio, r.ratio);
}

INSTANTIATE_TEST_SUITE_P(Flags, TextArchive,
                         testing::Values(0u, unsigned{boost::archive::no_codecvt}));

// libstdc++'s num_put formats every double through vsnprintf; under the archive's locale
// mapout's never does.
TEST(TextArchiveLocale, DoublesStayOnMapoutsPathUnderTheArchivesCodecvt) {
  temp_dir dir;
  const record r = random_record(9);
  mapout::ostream out(dir / "archive.txt");
  const std::locale before = out.getloc();
  const int calls_before = mapout::test::vsnprintf_calls;
  {
    boost::archive::text_oarchive archive(out);
    EXPECT_FALSE(out.getloc() == before) << "the archive imbues its own locale";
    archive << r;
  }
  EXPECT_EQ(mapout::test::vsnprintf_calls - calls_before, 0);
  EXPECT_TRUE(out.getloc() == before);
  // The probe works: the same archive into std::ostringstream formats through vsnprintf.
  std::ostringstream reference;
  {
    boost::archive::text_oarchive archive(reference);
    archive << r;
  }
  EXPECT_GE(mapout::test::vsnprintf_calls - calls_before, static_cast<int>(r.values.size()));
  out.close();
  ASSERT_TRUE(out) << out.error_message();
  EXPECT_TRUE(read_file(dir / "archive.txt") == reference.str());
}

}  // namespace
