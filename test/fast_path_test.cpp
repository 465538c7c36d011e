// mapout::ostream's inline path against std::ostream: the same operations through the static type
// and through std::ostringstream (or through std::ostream& where the file itself fails) must leave
// the same bytes, the same state after every operation, and the same exceptions.
#include <gtest/gtest.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <iomanip>
#include <locale>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "mapout/ostream.hpp"
#include "platform/sys.hpp"
#include "system_call_log.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::read_file;
using mapout::test::temp_dir;

// Digits grouped by three with '_', so that a wrongly taken inline path shows in the bytes.
struct grouping_punct : std::numpunct<char> {
  char do_thousands_sep() const override { return '_'; }
  std::string do_grouping() const override { return "\3"; }
};

const std::locale& grouping_locale() {
  static const std::locale locale(std::locale::classic(), new grouping_punct);
  return locale;
}

// The stream tied to each side: counts the flushes the sentry makes.
struct counting_buf : std::stringbuf {
  int syncs = 0;
  int sync() override {
    ++syncs;
    return 0;
  }
};

enum color { red, green };
std::ostream& operator<<(std::ostream& out, color c) {
  return out << (c == red ? "red" : "green");
}

struct point {
  int x;
  int y;
};
std::ostream& operator<<(std::ostream& out, const point& p) {
  return out << '(' << p.x << ',' << p.y << ')';
}

// What a step does to the stream. The insertions up to insert_unsigned_long_long are what the
// inline path covers, and are drawn more often.
enum class operation {
  put,
  write,
  insert_char,
  insert_signed_char,
  insert_unsigned_char,
  insert_c_string,
  insert_string,
  insert_string_view,
  insert_short,
  insert_unsigned_short,
  insert_int,
  insert_unsigned_int,
  insert_long,
  insert_unsigned_long,
  insert_long_long,
  insert_unsigned_long_long,
  insert_bool,
  insert_double,
  insert_endl,
  insert_flush,
  insert_user_enum,
  insert_user_type,
  insert_setw_string,
  set_width,
  set_fill,
  set_flag,
  unset_flag,
  imbue,
  imbue_through_ios_base,
  set_failbit,
  clear,
  set_exceptions,
  tie,
  copyfmt,
  insert_null_c_string,
  write_negative_size,
  insert_text_and_number,
  tell_and_seek_back,
};

// Each operation's name, for failure messages, in the enum's order.
struct named_operation {
  operation op;
  const char* name;
};

constexpr named_operation operation_names[] = {
    {operation::put, "put"},
    {operation::write, "write"},
    {operation::insert_char, "insert_char"},
    {operation::insert_signed_char, "insert_signed_char"},
    {operation::insert_unsigned_char, "insert_unsigned_char"},
    {operation::insert_c_string, "insert_c_string"},
    {operation::insert_string, "insert_string"},
    {operation::insert_string_view, "insert_string_view"},
    {operation::insert_short, "insert_short"},
    {operation::insert_unsigned_short, "insert_unsigned_short"},
    {operation::insert_int, "insert_int"},
    {operation::insert_unsigned_int, "insert_unsigned_int"},
    {operation::insert_long, "insert_long"},
    {operation::insert_unsigned_long, "insert_unsigned_long"},
    {operation::insert_long_long, "insert_long_long"},
    {operation::insert_unsigned_long_long, "insert_unsigned_long_long"},
    {operation::insert_bool, "insert_bool"},
    {operation::insert_double, "insert_double"},
    {operation::insert_endl, "insert_endl"},
    {operation::insert_flush, "insert_flush"},
    {operation::insert_user_enum, "insert_user_enum"},
    {operation::insert_user_type, "insert_user_type"},
    {operation::insert_setw_string, "insert_setw_string"},
    {operation::set_width, "set_width"},
    {operation::set_fill, "set_fill"},
    {operation::set_flag, "set_flag"},
    {operation::unset_flag, "unset_flag"},
    {operation::imbue, "imbue"},
    {operation::imbue_through_ios_base, "imbue_through_ios_base"},
    {operation::set_failbit, "set_failbit"},
    {operation::clear, "clear"},
    {operation::set_exceptions, "set_exceptions"},
    {operation::tie, "tie"},
    {operation::copyfmt, "copyfmt"},
    {operation::insert_null_c_string, "insert_null_c_string"},
    {operation::write_negative_size, "write_negative_size"},
    {operation::insert_text_and_number, "insert_text_and_number"},
    {operation::tell_and_seek_back, "tell_and_seek_back"},
};

constexpr int operations = static_cast<int>(std::size(operation_names));

constexpr bool names_in_enum_order() {
  for (int i = 0; i < operations; ++i) {
    if (static_cast<int>(operation_names[i].op) != i) return false;
  }
  return true;
}
static_assert(names_in_enum_order() &&
                  static_cast<int>(operation::tell_and_seek_back) == operations - 1,
              "every operation named once, in order");

// The flags set_flag and unset_flag choose from, by the step's number.
struct named_flag {
  const char* name;
  std::ios::fmtflags flag;
};

const named_flag flag_choices[] = {{"hex", std::ios::hex},
                                   {"oct", std::ios::oct},
                                   {"dec", std::ios::dec},
                                   {"showpos", std::ios::showpos},
                                   {"showbase", std::ios::showbase},
                                   {"uppercase", std::ios::uppercase},
                                   {"left", std::ios::left},
                                   {"right", std::ios::right},
                                   {"internal", std::ios::internal},
                                   {"unitbuf", std::ios::unitbuf},
                                   {"boolalpha", std::ios::boolalpha}};

// One operation, drawn once and applied to both sides.
struct step {
  operation op;
  long long number;
  std::string text;
};

const named_flag& flag_of(const step& s) {
  return flag_choices[static_cast<unsigned long long>(s.number) % std::size(flag_choices)];
}

const long long interesting_numbers[] = {0,       1,        -1,        7,         -42,     999,
                                         1000,    -1000,    32767,     -32768,    65535,   123456,
                                         INT_MAX, INT_MIN,  LLONG_MAX, LLONG_MIN, 1 << 20, -1234567,
                                         4294967, 99999999, 10000000,  255,       256,     -255};

step draw(std::mt19937& random) {
  auto pick = [&](int low, int high) {
    return std::uniform_int_distribution<int>(low, high)(random);
  };
  step s{static_cast<operation>(pick(0, operations - 1)), 0, {}};
  if (pick(0, 2) == 0) {
    s.op = static_cast<operation>(pick(0, static_cast<int>(operation::insert_unsigned_long_long)));
  }
  const int length = pick(0, 3) == 0 ? pick(0, 300) : pick(0, 12);
  for (int i = 0; i < length; ++i)
    s.text += static_cast<char>(pick(0, 3) == 0 ? pick(1, 255) : pick('a', 'z'));
  s.number = pick(0, 1) == 0 ? interesting_numbers[pick(0, std::size(interesting_numbers) - 1)]
                             : static_cast<long long>(random()) - static_cast<long long>(random());
  return s;
}

// The other stream each side's copyfmt copies from: grouping and hex, or the defaults.
struct format_sources {
  std::ios grouped_hex{nullptr};
  std::ios defaults{nullptr};
  format_sources() {
    grouped_hex.imbue(grouping_locale());
    grouped_hex.setf(std::ios::hex, std::ios::basefield);
    grouped_hex.width(6);
    grouped_hex.fill('*');
  }
};

// Applies `s` to `out`, mapout::ostream through its static type or std::ostringstream.
template <typename Stream>
void apply(Stream& out, const step& s, std::ostream& tied, const format_sources& sources) {
  const char c = s.text.empty() ? 'x' : s.text[0];
  switch (s.op) {
    case operation::put:
      out.put(c);
      break;
    case operation::write:
      out.write(s.text.data(), static_cast<std::streamsize>(s.text.size()));
      break;
    case operation::insert_char:
      out << c;
      break;
    case operation::insert_signed_char:
      out << static_cast<signed char>(c);
      break;
    case operation::insert_unsigned_char:
      out << static_cast<unsigned char>(c);
      break;
    case operation::insert_c_string:
      out << s.text.c_str();
      break;
    case operation::insert_string:
      out << s.text;
      break;
    case operation::insert_string_view:
      out << std::string_view(s.text);
      break;
    case operation::insert_short:
      out << static_cast<short>(s.number);
      break;
    case operation::insert_unsigned_short:
      out << static_cast<unsigned short>(s.number);
      break;
    case operation::insert_int:
      out << static_cast<int>(s.number);
      break;
    case operation::insert_unsigned_int:
      out << static_cast<unsigned int>(s.number);
      break;
    case operation::insert_long:
      out << static_cast<long>(s.number);
      break;
    case operation::insert_unsigned_long:
      out << static_cast<unsigned long>(s.number);
      break;
    case operation::insert_long_long:
      out << s.number;
      break;
    case operation::insert_unsigned_long_long:
      out << static_cast<unsigned long long>(s.number);
      break;
    case operation::insert_bool:
      out << (s.number % 2 == 0);
      break;
    case operation::insert_double:
      out << static_cast<double>(s.number) / 7;
      break;
    case operation::insert_endl:
      out << std::endl;
      break;
    case operation::insert_flush:
      out << std::flush;
      break;
    case operation::insert_user_enum:
      out << (s.number % 2 == 0 ? red : green);
      break;
    case operation::insert_user_type:
      out << s.number << point{static_cast<int>(s.number), 3} << ';';
      break;
    case operation::insert_setw_string:
      out << std::setw(static_cast<int>(s.number % 12)) << s.text;
      break;
    case operation::set_width:
      out.width(static_cast<std::streamsize>(s.number % 12));
      break;
    case operation::set_fill:
      out.fill(c);
      break;
    case operation::set_flag:
      out.setf(flag_of(s).flag);
      break;
    case operation::unset_flag:
      out.unsetf(flag_of(s).flag);
      break;
    case operation::imbue:
      out.imbue(s.number % 2 == 0 ? grouping_locale() : std::locale::classic());
      break;
    case operation::imbue_through_ios_base:
      // The base class's imbue, as generic code may call it, skips std::ios's.
      static_cast<std::ios_base&>(out).imbue(s.number % 2 == 0 ? grouping_locale()
                                                               : std::locale::classic());
      break;
    case operation::set_failbit:
      out.setstate(std::ios::failbit);
      break;
    case operation::clear:
      out.clear();
      break;
    case operation::set_exceptions: {
      const std::ios::iostate masks[] = {std::ios::goodbit, std::ios::badbit, std::ios::failbit,
                                         std::ios::badbit | std::ios::failbit};
      out.exceptions(masks[static_cast<unsigned long long>(s.number) % 4]);
      break;
    }
    case operation::tie:
      out.tie(s.number % 2 == 0 ? &tied : nullptr);
      break;
    case operation::copyfmt:
      out.copyfmt(s.number % 2 == 0 ? sources.grouped_hex : sources.defaults);
      break;
    case operation::insert_null_c_string:
      out << static_cast<const char*>(nullptr);
      break;
    case operation::write_negative_size:
      out.write(s.text.data(), -1);
      break;
    case operation::insert_text_and_number:
      out << "x = " << s.number << ";\n";
      break;
    case operation::tell_and_seek_back: {
      // tellp goes into the bytes; the seek lands anywhere in what was written, from the start
      // or from the cursor.
      const std::streamoff at = out.tellp();
      out << '@' << at << '@';
      const std::streamoff back =
          at > 0 ? static_cast<std::streamoff>(static_cast<unsigned long long>(s.number) %
                                               static_cast<unsigned long long>(at + 1))
                 : 0;
      if (s.number % 2 == 0) {
        out.seekp(at - back);
      } else {
        out.seekp(-back, std::ios::cur);
      }
      break;
    }
  }
}

// "set_flag(unitbuf) number 9 text size 3": the operation by name, and the flag where it takes one.
std::string describe(const step& s) {
  std::string name = operation_names[static_cast<int>(s.op)].name;
  if (s.op == operation::set_flag || s.op == operation::unset_flag) {
    name += std::string("(") + flag_of(s).name + ")";
  }
  return name + " number " + std::to_string(s.number) + " text size " +
         std::to_string(s.text.size());
}

// Runs the same steps on both sides; returns a description of the first difference.
template <typename Static, typename Reference>
void run_both(Static& fast, Reference& reference, const std::vector<step>& steps) {
  counting_buf fast_tied_buf;
  counting_buf reference_tied_buf;
  std::ostream fast_tied(&fast_tied_buf);
  std::ostream reference_tied(&reference_tied_buf);
  const format_sources sources;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    bool fast_threw = false;
    bool reference_threw = false;
    try {
      apply(fast, steps[i], fast_tied, sources);
    } catch (const std::ios_base::failure&) {
      fast_threw = true;
    }
    try {
      apply(reference, steps[i], reference_tied, sources);
    } catch (const std::ios_base::failure&) {
      reference_threw = true;
    }
    ASSERT_EQ(fast.rdstate(), reference.rdstate()) << "step " << i << ": " << describe(steps[i]);
    ASSERT_EQ(fast_threw, reference_threw) << "step " << i << ": " << describe(steps[i]);
    ASSERT_EQ(fast.width(), reference.width()) << "step " << i << ": " << describe(steps[i]);
    ASSERT_EQ(fast_tied_buf.syncs, reference_tied_buf.syncs)
        << "step " << i << ": " << describe(steps[i]);
  }
}

std::vector<step> draw_steps(unsigned seed) {
  std::mt19937 random(seed);
  std::vector<step> steps(std::uniform_int_distribution<int>(20, 200)(random));
  for (step& s : steps) s = draw(random);
  return steps;
}

mapout::options options_for(unsigned seed) {
  mapout::options opts;
  // A small buffer puts the window's end under many operations; the mapping has one large window.
  const std::size_t buffer_sizes[] = {1, 7, 64, 4096};
  if (seed % 2 == 1) {
    opts.strategy = mapout::strategy::buffered;
    opts.buffer_size = buffer_sizes[(seed / 2) % 4];
  }
  return opts;
}

constexpr unsigned seeds = 600;

TEST(FastPath, RandomOperationsMatchOstringstream) {
  temp_dir dir;
  for (unsigned seed = 0; seed < seeds; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const std::vector<step> steps = draw_steps(seed);
    const auto path = dir / ("out" + std::to_string(seed));
    std::string expected;
    {
      mapout::ostream fast(path, std::ios::out, options_for(seed));
      std::ostringstream reference;
      run_both(fast, reference, steps);
      if (HasFatalFailure()) return;
      expected = reference.str();
      fast.exceptions(std::ios::goodbit);
      fast.close();
    }
    ASSERT_EQ(read_file(path), expected);
  }
}

// Every write fails (a full disk): the inline path's fallbacks must leave the state and throw as
// std::ostream does over the same buffer.
ssize_t full_disk_write(int, const void*, std::size_t) {
  errno = ENOSPC;
  return -1;
}

// libstdc++'s sentry destructor calls setstate for a failed unitbuf flush, and with exceptions()
// asking for badbit that throws out of a destructor: std::terminate. Failing-write runs turn
// set_flag(unitbuf) into unset_flag(unitbuf).
std::vector<step> without_unitbuf(std::vector<step> steps) {
  for (step& s : steps) {
    if (s.op == operation::set_flag && flag_of(s).flag == std::ios::unitbuf) {
      s.op = operation::unset_flag;
    }
  }
  return steps;
}

TEST(FastPath, FailingWritesMatchStandardPath) {
  temp_dir dir;
  for (unsigned seed = 0; seed < seeds / 4; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const std::vector<step> steps = without_unitbuf(draw_steps(seed));
    mapout::options opts;
    opts.strategy = mapout::strategy::buffered;
    opts.buffer_size = 16;
    mapout::ostream fast(dir / "fast", std::ios::out, opts);
    mapout::ostream standard(dir / "standard", std::ios::out, opts);
    mapout::detail::sys().write = full_disk_write;
    run_both(fast, static_cast<std::ostream&>(standard), steps);
    fast.exceptions(std::ios::goodbit);
    standard.exceptions(std::ios::goodbit);
    fast.close();
    standard.close();
    mapout::detail::sys() = mapout::detail::real_system_calls();
    if (HasFatalFailure()) return;
  }
}

TEST(FastPath, ClosedStreamMatchesStandardPath) {
  temp_dir dir;
  for (unsigned seed = 0; seed < seeds / 4; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    mapout::ostream fast(dir / "fast");
    mapout::ostream standard(dir / "standard");
    fast.close();
    standard.close();
    run_both(fast, static_cast<std::ostream&>(standard), draw_steps(seed));
    if (HasFatalFailure()) return;
  }
}

// unitbuf makes std::ostream's sentry flush after every output operation, and the inline path
// must not skip that: on a character device each flush is a write(2). (The randomized run cannot
// see it: a regular file's flush writes nothing.)
TEST(FastPath, UnitbufFlushesAfterEveryInlineCall) {
  mapout::ostream out("/dev/null");
  ASSERT_TRUE(out.is_open());
  out << std::unitbuf;
  const mapout::test::system_call_log calls;
  out.put('a');
  out.write("bc", 2);
  out << 'd' << "ef" << std::string("gh") << 42;
  EXPECT_TRUE(out);
  EXPECT_EQ(calls.writes(), 6);
}

TEST(FastPath, ChainsKeepTheStaticType) {
  temp_dir dir;
  mapout::ostream out(dir / "chain");
  std::string text = "s";
  char buffer[] = "b";
  static_assert(
      std::is_same_v<
          decltype(out << "x = " << 42 << ';' << text << buffer << 1.5 << true << std::endl
                       << std::hex << red << nullptr << std::setw(3) << std::string_view("v")),
          mapout::ostream&>);
  // After a user's operator<< the chain goes on as std::ostream&.
  static_assert(std::is_same_v<decltype(operator<<(out << 1, point{1, 2}) << 3), std::ostream&>);
  out << "x = " << 42 << ';' << text << buffer << 1.5 << true << std::endl
      << std::hex << 255 << red << point{1, 2} << std::setw(4) << 7 << '\n';
  out.close();
  EXPECT_EQ(read_file(dir / "chain"), "x = 42;sb1.51\nffred(1,2)   7\n");
}

TEST(FastPath, CopyfmtFromPlainStreamGroupsDigits) {
  temp_dir dir;
  mapout::ostream out(dir / "copyfmt");
  std::ios grouped(nullptr);
  grouped.imbue(grouping_locale());
  out << 1234567 << ' ';
  // copyfmt takes the locale without std::ios::imbue and replaces the callback list.
  out.copyfmt(grouped);
  out << 1234567 << ' ';
  out.copyfmt(std::ios(nullptr));
  out << 1234567 << ' ';
  out.copyfmt(grouped);
  out << 1234567;
  out.close();
  EXPECT_EQ(read_file(dir / "copyfmt"), "1234567 1_234_567 1234567 1_234_567");
}

TEST(FastPath, MovedAndSwappedStreamsKeepTheirLocales) {
  temp_dir dir;
  mapout::ostream grouped(dir / "grouped");
  grouped.imbue(grouping_locale());
  mapout::ostream moved(std::move(grouped));
  mapout::ostream plain(dir / "plain");
  moved << 1234567 << ' ';
  plain << 1234567 << ' ';
  // Swapping exchanges the files and the locales alike.
  moved.swap(plain);
  moved << 7654321;
  plain << 7654321;
  moved.close();
  plain.close();
  EXPECT_EQ(read_file(dir / "grouped"), "1_234_567 7_654_321");
  EXPECT_EQ(read_file(dir / "plain"), "1234567 7654321");
}

TEST(FastPath, ReplacedBufferReceivesOutput) {
  temp_dir dir;
  mapout::ostream out(dir / "file");
  // The first write opens a window that the inline path could go on storing into.
  out << "before ";
  std::stringbuf other;
  // std::ios::rdbuf(sb), through a base reference, bypasses mapout::ostream entirely.
  static_cast<std::ostream&>(out).rdbuf(&other);
  out << "text " << 42 << 'c';
  out.put('p').write("w", 1);
  EXPECT_EQ(other.str(), "text 42cpw");
  static_cast<std::ostream&>(out).rdbuf(out.rdbuf());
  out.close();
  EXPECT_EQ(read_file(dir / "file"), "before ");
}

}  // namespace
