// mapout::print against fmt::format: random interleavings with stream and cursor calls across
// window ends and seeks, every argument type fmt takes, and fmt's own errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "mapout/format.hpp"
#include "random_sequences.hpp"
#include "strategies.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::pick;
using mapout::test::read_file;
using mapout::test::temp_dir;

struct point {
  int x;
  int y;
};

}  // namespace

template <>
struct fmt::formatter<point> {
  constexpr auto parse(fmt::format_parse_context& context) { return context.begin(); }
  template <typename Context>
  auto format(const point& p, Context& context) const {
    return fmt::format_to(context.out(), "({}, {})", p.x, p.y);
  }
};

namespace {

// Prints one random line through `out` (a mapout::ostream or mapout::cursor) and returns what
// fmt::format makes of the same call.
template <typename Out>
std::string print_random(Out& out, std::mt19937& random) {
  const auto number = static_cast<long long>(random()) - static_cast<long long>(random());
  std::string text(std::uniform_int_distribution<int>(0, 200)(random), 'a');
  for (char& c : text) c = static_cast<char>(std::uniform_int_distribution<int>(1, 255)(random));
  switch (std::uniform_int_distribution<int>(0, 6)(random)) {
    case 5:
      mapout::print(out, FMT_COMPILE("{} = {};\n"), text, number);
      return fmt::format("{} = {};\n", text, number);
    case 6:
      mapout::print(out, FMT_COMPILE("{:>12x}|{}|{:.3f}"), number, point{5, 6}, 1.0 / 3);
      return fmt::format("{:>12x}|{}|{:.3f}", number, point{5, 6}, 1.0 / 3);
    case 0:
      mapout::print(out, FMT_STRING("{} = {};\n"), text, number);
      return fmt::format(FMT_STRING("{} = {};\n"), text, number);
    case 1:
      mapout::print(out, "{:>12x}|{:+}|{}", number, static_cast<int>(number), point{1, -2});
      return fmt::format("{:>12x}|{:+}|{}", number, static_cast<int>(number), point{1, -2});
    case 2:
      mapout::print(out, "{:.3f} {}", static_cast<double>(number) / 7, 1e300);
      return fmt::format("{:.3f} {}", static_cast<double>(number) / 7, 1e300);
    case 3:
      mapout::print(out, "no arguments");
      return "no arguments";
    default:
      mapout::print(out, "{:*^{}}", std::string_view(text), text.size() + 9);
      return fmt::format("{:*^{}}", std::string_view(text), text.size() + 9);
  }
}

TEST(Print, RandomInterleavingsMatchFmtFormat) {
  temp_dir dir;
  mapout::test::for_random_sequences(
      dir, 200, [](mapout::ostream& out, std::ostringstream& reference, std::mt19937& random) {
        for (int step = pick(random, 5, 40); step > 0; --step) {
          switch (pick(random, 0, 3)) {
            case 0: {
              const auto end = static_cast<std::streamoff>(reference.str().size());
              const std::streamoff position =
                  pick(random, 0, 1) == 0 ? end : pick(random, 0, static_cast<int>(end));
              out.seekp(position);
              reference.seekp(position);
              break;
            }
            case 1:
              reference << print_random(out, random);
              break;
            case 2: {
              const int value = pick(random, INT_MIN, INT_MAX);
              out << value << '\n';
              reference << value << '\n';
              break;
            }
            default: {
              mapout::cursor put(out);
              for (int calls = pick(random, 1, 30); calls > 0; --calls) {
                if (pick(random, 0, 1) == 0) {
                  reference << print_random(put, random);
                } else {
                  put << calls << ' ';
                  reference << calls << ' ';
                }
              }
              break;
            }
          }
          ASSERT_TRUE(out.good());
        }
      });
}

TEST(Print, EveryArgumentType) {
  temp_dir dir;
  mapout::ostream out(dir / "types", std::ios::out, mapout::test::buffered(5));
  std::string expected;
  auto both = [&](auto value) {
    mapout::print(out, "{}|", value);
    mapout::print(out, FMT_COMPILE("{}|"), value);
    {
      mapout::cursor put(out);
      mapout::print(put, "{}|", value);
      mapout::print(put, FMT_COMPILE("{}|"), value);
    }
    for (int i = 0; i < 4; ++i) expected += fmt::format("{}|", value);
  };
  both(std::numeric_limits<signed char>::min());
  both(std::numeric_limits<unsigned char>::max());
  both(std::numeric_limits<short>::min());
  both(std::numeric_limits<unsigned short>::max());
  both(std::numeric_limits<int>::min());
  both(std::numeric_limits<unsigned int>::max());
  both(std::numeric_limits<long>::min());
  both(std::numeric_limits<unsigned long>::max());
  both(std::numeric_limits<long long>::min());
  both(std::numeric_limits<unsigned long long>::max());
  both(0.1f);
  both(-2.5e-300);
  both(std::numeric_limits<double>::infinity());
  both(1.0L / 3);
  both('c');
  both(true);
  both("c string");
  both(std::string("std::string"));
  both(std::string_view("string_view"));
  both(point{3, 4});
  both(static_cast<const void*>(nullptr));
  out.close();
  EXPECT_EQ(read_file(dir / "types"), expected);
}

TEST(Print, FormatErrorsAreFmtsOwn) {
  temp_dir dir;
  mapout::ostream out(dir / "errors");
  mapout::print(out, "ok ");
  EXPECT_THROW(mapout::print(out, fmt::runtime("{} {}"), 1), fmt::format_error);
  EXPECT_THROW(mapout::print(out, fmt::runtime("{:d}"), "text"), fmt::format_error);
  {
    mapout::cursor put(out);
    EXPECT_THROW(mapout::print(put, fmt::runtime("{"), 1), fmt::format_error);
    mapout::print(put, "still ");
  }
  // The stream is untouched by an error fmt reports.
  EXPECT_TRUE(out.good());
  mapout::print(out, "good");
  out.close();
  EXPECT_EQ(read_file(dir / "errors"), "ok still good");
}

// print on a stream is one unformatted output: a sentry, no width, no locale.
TEST(Print, StreamStateAppliesAsToWrite) {
  temp_dir dir;
  mapout::ostream out(dir / "state");
  out.width(20);
  out << std::hex << std::showpos;
  mapout::print(out, "{}", 255);
  out.setstate(std::ios::failbit);
  mapout::print(out, "dropped");
  mapout::print(out, FMT_COMPILE("dropped"));
  out.clear();
  {
    mapout::cursor put(out);
    mapout::print(out, "refused");
    EXPECT_TRUE(out.bad());
    out.clear();
    mapout::print(out, FMT_COMPILE("refused"));
    EXPECT_TRUE(out.bad());
    mapout::print(put, " cursor");
  }
  out.clear();
  mapout::print(out, " {}", "end");
  out.close();
  EXPECT_EQ(read_file(dir / "state"), "255 cursor end");
}

// A line longer than every window the buffer gives takes the slow path, whole.
TEST(Print, TextLongerThanTheWindow) {
  temp_dir dir;
  mapout::ostream out(dir / "long", std::ios::out, mapout::test::buffered(16));
  const std::string text(100000, 'x');
  mapout::print(out, "<{}>", text);
  mapout::print(out, FMT_COMPILE("<{}>"), text);
  {
    mapout::cursor put(out);
    mapout::print(put, "<{}>", text);
    mapout::print(put, FMT_COMPILE("<{}>"), text);
  }
  out.close();
  std::string expected;
  for (int i = 0; i < 4; ++i) expected += "<" + text + ">";
  EXPECT_EQ(read_file(dir / "long"), expected);
}

// Prints through a buffer of every size from 1 below `last`, by `step`: `write` prints to the
// stream and returns what fmt::format makes of the same, which the file must then hold exactly.
template <typename Write>
void at_every_window_end(const temp_dir& dir, std::size_t last, std::size_t step, Write write) {
  for (std::size_t buffer_size = 1; buffer_size < last; buffer_size += step) {
    SCOPED_TRACE("buffer " + std::to_string(buffer_size));
    const auto path = dir / ("window" + std::to_string(buffer_size));
    mapout::ostream out(path, std::ios::out, mapout::test::buffered(buffer_size));
    const std::string expected = write(out);
    out.close();
    ASSERT_TRUE(out.good());
    ASSERT_EQ(read_file(path), expected);
  }
}

// A compiled format of plain fields goes straight to the window when its longest text fits; one
// with specs, an index or a type of unknown length is measured first. Both at every window end.
TEST(Print, CompiledFormatsAtEveryWindowEnd) {
  temp_dir dir;
  at_every_window_end(dir, 90, 3, [](mapout::ostream& out) {
    std::string expected;
    const std::string text = "text";
    for (long long i = -30; i < 30; ++i) {
      const long long number = i * 12345678901;
      mapout::print(out, FMT_COMPILE("{{{}}} {} {}\n"), number, text, i % 2 == 0);
      expected += fmt::format("{{{}}} {} {}\n", number, text, i % 2 == 0);
      mapout::print(out, FMT_COMPILE("{1}{0:>9}{2}"), number, 'c', 0.5);
      expected += fmt::format("{1}{0:>9}{2}", number, 'c', 0.5);
      {
        mapout::cursor put(out);
        mapout::print(put, FMT_COMPILE("[{}|{}]"), static_cast<unsigned char>(i), text);
        mapout::print(put, FMT_COMPILE("{}"), point{static_cast<int>(i), 0});
      }
      expected += fmt::format("[{}|{}]", static_cast<unsigned char>(i), text);
      expected += fmt::format("{}", point{static_cast<int>(i), 0});
    }
    return expected;
  });
}

// A format known when compiling whose fields are all a plain "{}" of an integer, char, bool or
// string is written by mapout itself: the same bytes as fmt at every window end, escapes and empty
// pieces included, through FMT_STRING and FMT_COMPILE, on the stream and through a cursor.
TEST(Print, PlainFieldsAtEveryWindowEnd) {
  temp_dir dir;
  at_every_window_end(dir, 70, 2, [](mapout::ostream& out) {
    std::string expected;
    for (int i = -20; i < 20; ++i) {
      const std::string text(static_cast<std::size_t>(i + 20), static_cast<char>('a' + (i & 7)));
      const std::string_view view(text.data(), text.size() / 2);
      const long long wide = i < 0 ? LLONG_MIN + i + 20 : LLONG_MAX - i;
      const auto unsigned_wide = ULLONG_MAX - static_cast<unsigned long long>(i + 20);
      const auto small = static_cast<signed char>(i * 6);
      mapout::print(out, FMT_STRING("{{{}}}:{}|{}|{}|{}|{}|{}\n"), wide, unsigned_wide, small,
                    static_cast<char>('A' + i + 20), i % 3 == 0, text, view);
      expected += fmt::format("{{{}}}:{}|{}|{}|{}|{}|{}\n", wide, unsigned_wide, small,
                              static_cast<char>('A' + i + 20), i % 3 == 0, text, view);
      mapout::print(out, FMT_COMPILE("{}{}}}}}"), static_cast<unsigned short>(i), i);
      expected += fmt::format("{}{}}}}}", static_cast<unsigned short>(i), i);
      mapout::print(out, FMT_STRING("no fields {{}}"));
      expected += "no fields {}";
      {
        mapout::cursor put(out);
        mapout::print(put, FMT_STRING("{}"), static_cast<short>(i * 1000));
        mapout::print(put, FMT_COMPILE("[{}|{}]"), text, static_cast<unsigned long>(i + 20));
        mapout::print(put, FMT_STRING("{}{}"), std::string_view(), std::string());
      }
      expected += fmt::format("{}", static_cast<short>(i * 1000));
      expected += fmt::format("[{}|{}]", text, static_cast<unsigned long>(i + 20));
    }
    return expected;
  });
}

// FMT_STRING on a stream that is not good writes nothing and sets what write() sets.
TEST(Print, PlainFieldsHonourTheStreamState) {
  temp_dir dir;
  mapout::ostream out(dir / "plain-state");
  mapout::print(out, FMT_STRING("{} "), 1);
  out.setstate(std::ios::failbit);
  mapout::print(out, FMT_STRING("{} dropped"), 2);
  EXPECT_TRUE(out.fail());
  EXPECT_FALSE(out.bad());
  out.clear();
  out.width(10);
  mapout::print(out, FMT_STRING("{}"), 3);
  out.close();
  EXPECT_EQ(read_file(dir / "plain-state"), "1 3");
}

}  // namespace

namespace {

// A run-time format that fails at its second field, after the first was formatted.
void print_failing(mapout::ostream& out) {
  mapout::print(out, fmt::runtime("XYZ{}{:d}"), "abc", "x");
}
void print_failing(mapout::cursor& out) {
  mapout::print(out, fmt::runtime("XYZ{}{:d}"), "abc", "x");
}

}  // namespace

TEST(Print, ThrowingPrintChangesNoByteAndKeepsThePosition) {
  temp_dir dir;
  for (const auto& strategy : mapout::test::window_cases()) {
    SCOPED_TRACE(strategy.name);
    const auto path = dir / "throwing";
    mapout::ostream out(path, std::ios::out, strategy.opts);
    out << "0123456789ABCDEFGHIJ";
    out.seekp(0);
    EXPECT_THROW(print_failing(out), fmt::format_error);
    EXPECT_EQ(out.tellp(), std::streampos(0));
    out.seekp(10);
    {
      mapout::cursor put(out);
      EXPECT_THROW(print_failing(put), fmt::format_error);
      put.write("ab", 2);
    }
    // Past the end, where the window holds no byte of the file yet: the gap stays zeros.
    out.seekp(0, std::ios::end);
    EXPECT_THROW(print_failing(out), fmt::format_error);
    out.seekp(4, std::ios::cur);
    out << "!";
    out.close();
    ASSERT_TRUE(out) << out.error_message();
    EXPECT_EQ(read_file(path), std::string("0123456789abCDEFGHIJ") + std::string(4, '\0') + "!");
  }
}

TEST(Print, CStringArgumentsPrintAsFmt) {
  temp_dir dir;
  mapout::ostream out(dir / "c_strings");
  const char* name = "entry";
  char mutable_name[] = "other";
  std::string expected;
  for (int i = 0; i < 1000; ++i) {
    mapout::print(out, FMT_STRING("  table[{}] = {{{}, \"{}\"}};\n"), i, i * 7, "entry");
    mapout::print(out, FMT_COMPILE("{}{}|"), name, mutable_name);
    expected += fmt::format("  table[{}] = {{{}, \"{}\"}};\n", i, i * 7, "entry");
    expected += fmt::format("{}{}|", name, mutable_name);
  }
  const char* null_name = nullptr;
  EXPECT_THROW(mapout::print(out, FMT_COMPILE("{}"), null_name), fmt::format_error);
  out.close();
  EXPECT_EQ(read_file(dir / "c_strings"), expected);
}

// Plain literals, which C++20 builds cut when compiling, and C strings, at every window end.
TEST(Print, LiteralFormatsAtEveryWindowEnd) {
  temp_dir dir;
  at_every_window_end(dir, 70, 2, [](mapout::ostream& out) {
    std::string expected;
    for (int i = -20; i < 20; ++i) {
      const std::string text(static_cast<std::size_t>(i + 20), static_cast<char>('a' + (i & 7)));
      const char* const name = text.c_str();
      mapout::print(out, "  table[{}] = {{{}, \"{}\"}};\n", i, i * 7, "entry");
      expected += fmt::format("  table[{}] = {{{}, \"{}\"}};\n", i, i * 7, "entry");
      mapout::print(out, "{}:{}|{}}}}}", name, text, i % 2 == 0);
      expected += fmt::format("{}:{}|{}}}}}", name, text, i % 2 == 0);
      {
        mapout::cursor put(out);
        mapout::print(put, "[{}]", static_cast<unsigned long>(i + 20));
        mapout::print(put, "{:>4}|", i);
      }
      expected += fmt::format("[{}]", static_cast<unsigned long>(i + 20));
      expected += fmt::format("{:>4}|", i);
    }
    return expected;
  });
}

namespace {

// A double of one of the classes where shortest formatting goes wrong first: zeros, subnormals,
// the extremes, integers held in doubles, fmt's switch between fixed and exponent, infinities,
// NaN with either sign, and any bit pattern.
double random_double(std::mt19937_64& random) {
  constexpr double limits[] = {
      0.0,
      -0.0,
      std::numeric_limits<double>::denorm_min(),
      -std::numeric_limits<double>::denorm_min(),
      std::numeric_limits<double>::min(),
      std::numeric_limits<double>::max(),
      std::numeric_limits<double>::lowest(),
      std::numeric_limits<double>::epsilon(),
      std::numeric_limits<double>::infinity(),
      -std::numeric_limits<double>::infinity(),
      std::numeric_limits<double>::quiet_NaN(),
      -std::numeric_limits<double>::quiet_NaN(),
      1e-5,
      1e-4,
      9.999999999999999e15,
      1e16,
      -2.2250738585072014e-308,
      -1.2345678901234567e-100,
      -0.00012345678901234567,
      -1234567890123456.7,
  };
  const auto bits = [](std::uint64_t word) {
    double value;
    std::memcpy(&value, &word, sizeof value);
    return value;
  };
  switch (random() % 6) {
    case 0:
      return limits[random() % std::size(limits)];
    case 1:  // a subnormal: exponent bits zero
      return bits(random() & ((std::uint64_t{1} << 52) - 1)) * (random() % 2 ? 1 : -1);
    case 2:  // an integer, up to 2^53 and beyond
      return static_cast<double>(static_cast<std::int64_t>(random() >> (random() % 64))) *
             (random() % 2 ? 1 : -1);
    case 3:  // near fmt's fixed-or-exponent boundaries, 1e-5 and 1e16
      return std::ldexp(static_cast<double>(random() >> 11), -53) * (random() % 2 ? 1e-4 : 1e16) *
             (random() % 2 ? 1 : 10);
    case 4:
      return std::normal_distribution<double>(0, 1e3)(random);
    default:
      return bits(random());
  }
}

}  // namespace

// "{}" of a double or float on the plain path is fmt's shortest round trip, byte for byte what
// fmt::format writes, through FMT_STRING, FMT_COMPILE and a literal, on the stream and a cursor,
// windows of many sizes so that the room check and the way around it both run.
TEST(Print, ShortestFloatingPointMatchesFmtFormatInEveryValueClass) {
  temp_dir dir;
  std::mt19937_64 random(20261201);
  for (int file = 0; file < 40; ++file) {
    const auto path = dir / ("shortest" + std::to_string(file));
    mapout::ostream out(path, std::ios::out, mapout::test::buffered(1 + random() % 300));
    std::string expected;
    for (int row = 0; row < 2500; ++row) {
      const double x = random_double(random);
      const double y = random_double(random);
      const auto narrow = static_cast<float>(random_double(random));
      const long id = static_cast<long>(random());
      switch (random() % 5) {
        case 0:
          mapout::print(out, FMT_STRING("{},{},{}\n"), id, x, y);
          break;
        case 1:
          mapout::print(out, FMT_COMPILE("{},{},{}\n"), id, x, y);
          break;
        case 2:
          mapout::print(out, "{},{},{}\n", id, x, y);
          break;
        case 3: {
          mapout::cursor put(out);
          mapout::print(put, FMT_STRING("{},{},{}\n"), id, x, y);
          break;
        }
        default: {
          mapout::cursor put(out);
          mapout::print(put, "{},{},{}\n", id, x, y);
          break;
        }
      }
      expected += fmt::format("{},{},{}\n", id, x, y);
      mapout::print(out, FMT_STRING("{}|"), narrow);
      expected += fmt::format("{}|", narrow);
    }
    out.close();
    ASSERT_TRUE(out.good());
    const std::string written = read_file(path);
    const auto differs =
        std::mismatch(written.begin(), written.end(), expected.begin(), expected.end());
    const auto at = static_cast<std::size_t>(differs.first - written.begin());
    const std::size_t line =
        expected.rfind('\n', at) == std::string::npos ? 0 : expected.rfind('\n', at) + 1;
    ASSERT_EQ(written.substr(line, 80), expected.substr(line, 80)) << "at byte " << at;
    ASSERT_EQ(written.size(), expected.size());
  }
}

// The longest texts a double makes, at every window end: the bound the room check takes is theirs.
TEST(Print, LongestShortestDoublesAtEveryWindowEnd) {
  temp_dir dir;
  at_every_window_end(dir, 80, 1, [](mapout::ostream& out) {
    std::string expected;
    for (const double x : {-2.2250738585072014e-308, -1.2345678901234567e-100,
                           -0.00012345678901234567, -1234567890123456.7, -5e-324}) {
      mapout::print(out, FMT_STRING("{}|{}\n"), x, static_cast<float>(x));
      expected += fmt::format("{}|{}\n", x, static_cast<float>(x));
      mapout::cursor put(out);
      mapout::print(put, FMT_COMPILE("{}"), x);
      expected += fmt::format("{}", x);
    }
    return expected;
  });
}
