// mapout_printf against glibc's snprintf: the same bytes, return value and errno for random
// conversions across window edges, on both strategies, and for what the format grammar allows.
#include "mapout/mapout.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <locale.h>
#include <unistd.h>

#include <cerrno>
#include <cfloat>
#include <climits>
#include <clocale>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cwchar>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "temp_dir.hpp"

namespace {

using mapout::test::read_file;
using mapout::test::temp_dir;

mapout_options small_windows(int strategy, std::size_t buffer_size) {
  mapout_options opts;
  mapout_options_init(&opts);
  opts.strategy = strategy;
  opts.buffer_size = buffer_size;
  opts.mapping_size = 16 << 10;
  return opts;
}

// One file written through mapout_printf, and what snprintf gave for the same calls.
class printed {
 public:
  printed(const temp_dir& dir, const mapout_options& opts) : path_((dir / "out").string()) {
    out_ = mapout_open(path_.c_str(), "w", &opts);
    EXPECT_NE(out_, nullptr);
  }

  // Both calls with the same arguments: the same return value, errno after a failure, and text.
  template <typename... Args>
  void both(const char* format, Args... args) {
    errno = E2BIG;  // for %m
    const int want = std::snprintf(nullptr, 0, format, args...);
    const int want_errno = errno;
    std::string text(want > 0 ? static_cast<std::size_t>(want) : 0, '\0');
    if (want > 0) {
      errno = E2BIG;
      std::snprintf(text.data(), text.size() + 1, format, args...);
    }
    errno = E2BIG;
    const int got = mapout_printf(out_, format, args...);
    ASSERT_EQ(got, want) << '"' << format << "\" wants \"" << text << '"';
    if (want < 0) {
      EXPECT_EQ(errno, want_errno) << format;
      return;
    }
    expected_ += text;
  }

  mapout_file* file() const noexcept { return out_; }
  std::string& expected() noexcept { return expected_; }

  // Closes and compares the file with snprintf's text.
  void check() {
    ASSERT_EQ(mapout_close(out_), 0);
    const std::string got = read_file(path_);
    ASSERT_EQ(got.size(), expected_.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i], expected_[i])
          << "at " << i << ": ..." << expected_.substr(i > 40 ? i - 40 : 0, 80);
    }
  }

 private:
  std::string path_;
  mapout_file* out_ = nullptr;
  std::string expected_;
};

// Random specifications: flags, width and precision as digits or '*', a length and a conversion,
// with text around them.
class spec_maker {
 public:
  explicit spec_maker(unsigned seed) : random_(seed) {}

  int below(int n) { return std::uniform_int_distribution<int>(0, n - 1)(random_); }

  // "%" with flags, width and precision; sets the star arguments it asked for.
  std::string head(bool& width_star, bool& precision_star) {
    std::string s = pick_text();
    s += '%';
    for (int flags = below(4); flags > 0; --flags) s += "-+ #0"[below(5)];
    width_star = precision_star = false;
    switch (below(5)) {
      case 0:
        width_star = true;
        s += '*';
        break;
      case 1:
      case 2:
        s += std::to_string(1 + below(below(2) ? 12 : 40));
        break;
      default:
        break;
    }
    switch (below(6)) {
      case 0:
        precision_star = true;
        s += ".*";
        break;
      case 1:
        s += '.';
        break;
      case 2:
      case 3:
        s += '.' + std::to_string(below(below(3) ? 8 : 40));
        break;
      default:
        break;
    }
    return s;
  }

  std::string pick_text() {
    static const char* const texts[] = {"", "", "", ",", " x=", "\n", "[", "long literal text "};
    return texts[below(8)];
  }

  int star() { return below(4) == 0 ? -below(20) : below(30); }

  template <typename Integer>
  Integer integer() {
    using limits = std::numeric_limits<Integer>;
    switch (below(8)) {
      case 0:
        return limits::min();
      case 1:
        return limits::max();
      case 2:
        return 0;
      case 3:
        return static_cast<Integer>(below(3) - 1);
      default: {
        std::uniform_int_distribution<long long> any(LLONG_MIN, LLONG_MAX);
        const long long bits = any(random_) >> below(64);
        return static_cast<Integer>(bits);
      }
    }
  }

  double floating() {
    static const double special[] = {0.0,           -0.0,    HUGE_VAL,    -HUGE_VAL, std::nan(""),
                                     -std::nan(""), DBL_MIN, 4.9e-324,    DBL_MAX,   -DBL_MAX,
                                     0.5,           1.5,     2.5,         9.9999995, 999999.5,
                                     0.000123456,   1e21,    123456789.0, 0.1,       -1.0,
                                     9.5,           99.95,   1e-5,        0.00001234};
    if (below(3) == 0) return special[below(static_cast<int>(std::size(special)))];
    const double mantissa = std::uniform_real_distribution<double>(-10, 10)(random_);
    return std::ldexp(mantissa, below(2) ? below(60) - 30 : below(2000) - 1000);
  }

  const char* string() {
    static const std::string long_text(300, 'y');
    static const char* const strings[] = {"", "a", "hello world", "ab\tc", long_text.c_str()};
    return strings[below(5)];
  }

 private:
  std::mt19937 random_;
};

// Calls printed::both with the stars the specification asked for, then `value`.
template <typename Value>
void call(printed& p, spec_maker& make, const std::string& format, bool width_star,
          bool precision_star, Value value) {
  const int width = make.star();
  const int precision = make.star();
  if (width_star && precision_star) {
    p.both(format.c_str(), width, precision, value);
  } else if (width_star) {
    p.both(format.c_str(), width, value);
  } else if (precision_star) {
    p.both(format.c_str(), precision, value);
  } else {
    p.both(format.c_str(), value);
  }
}

// One random specification and value through both.
void random_conversion(printed& p, spec_maker& make) {
  bool width_star = false;
  bool precision_star = false;
  std::string format = make.head(width_star, precision_star);
  const char conversion = "diouxXeEfFgGaAcsp"[make.below(17)];
  const std::string tail = make.pick_text();
  switch (conversion) {
    case 'd':
    case 'i':
    case 'o':
    case 'u':
    case 'x':
    case 'X': {
      const int which = make.below(8);
      static const char* const lengths[] = {"hh", "h", "", "l", "ll", "j", "z", "t"};
      format += lengths[which];
      format += conversion;
      format += tail;
      const bool is_signed = conversion == 'd' || conversion == 'i';
      switch (which) {
        case 0:
        case 1:
        case 2:
          if (is_signed) {
            call(p, make, format, width_star, precision_star, make.integer<int>());
          } else {
            call(p, make, format, width_star, precision_star, make.integer<unsigned>());
          }
          break;
        case 3:
          if (is_signed) {
            call(p, make, format, width_star, precision_star, make.integer<long>());
          } else {
            call(p, make, format, width_star, precision_star, make.integer<unsigned long>());
          }
          break;
        case 4:
          if (is_signed) {
            call(p, make, format, width_star, precision_star, make.integer<long long>());
          } else {
            call(p, make, format, width_star, precision_star, make.integer<unsigned long long>());
          }
          break;
        case 5:
          if (is_signed) {
            call(p, make, format, width_star, precision_star, make.integer<intmax_t>());
          } else {
            call(p, make, format, width_star, precision_star, make.integer<uintmax_t>());
          }
          break;
        case 6:
          if (is_signed) {
            call(p, make, format, width_star, precision_star, make.integer<ssize_t>());
          } else {
            call(p, make, format, width_star, precision_star, make.integer<size_t>());
          }
          break;
        default:
          call(p, make, format, width_star, precision_star, make.integer<ptrdiff_t>());
          break;
      }
      break;
    }
    case 'c':
      format += conversion + tail;
      call(p, make, format, width_star, precision_star, make.below(256) - 128);
      break;
    case 's':
      format += conversion + tail;
      call(p, make, format, width_star, precision_star, make.string());
      break;
    case 'p':
      format += conversion + tail;
      call(p, make, format, width_star, precision_star,
           make.below(4) == 0 ? nullptr : reinterpret_cast<void*>(make.integer<std::uintptr_t>()));
      break;
    default:
      if (make.below(4) == 0) {
        format += 'L';
        format += conversion + tail;
        call(p, make, format, width_star, precision_star,
             static_cast<long double>(make.floating()) / (make.below(2) ? 3 : 1));
      } else {
        format += make.below(5) == 0 ? "l" : "";
        format += conversion + tail;
        call(p, make, format, width_star, precision_star, make.floating());
      }
      break;
  }
}

struct strategy_case {
  const char* name;
  int strategy;
  std::size_t buffer_size;
};

const strategy_case strategies[] = {{"mapped", MAPOUT_MAPPED, 64 << 10},
                                    {"buffered, 64 bytes", MAPOUT_BUFFERED, 64},
                                    {"buffered, 1000 bytes", MAPOUT_BUFFERED, 1000},
                                    {"automatic", MAPOUT_AUTOMATIC, 4096}};

TEST(CPrintf, RandomConversionsMatchSnprintfAcrossWindows) {
  for (const strategy_case& strategy : strategies) {
    for (unsigned seed = 1; seed <= 3; ++seed) {
      SCOPED_TRACE(std::string(strategy.name) + " seed " + std::to_string(seed));
      temp_dir dir;
      printed p(dir, small_windows(strategy.strategy, strategy.buffer_size));
      spec_maker make(seed);
      for (int i = 0; i < 4000 && !testing::Test::HasFatalFailure(); ++i) {
        random_conversion(p, make);
      }
      p.check();
    }
  }
}

// The perf row's line, and several conversions in one format, each on a window edge in turn.
TEST(CPrintf, MixedRowsMatchSnprintfAtEveryWindowEdge) {
  for (const strategy_case& strategy : strategies) {
    SCOPED_TRACE(strategy.name);
    temp_dir dir;
    printed p(dir, small_windows(strategy.strategy, strategy.buffer_size));
    for (int i = 0; i < 3000; ++i) {
      p.both("%d,%s,%.3f,%ld\n", i * 7919 - 100000, i % 3 ? "name" : "", i / 7.0, -1L * i * i);
      p.both("%s%c%5.2e|%-8x|%+i%%\n", "", 'a' + i % 26, i * 1e-3, i, i);
    }
    p.check();
  }
}

TEST(CPrintf, NullStringsAndPointersAreGlibcs) {
  temp_dir dir;
  printed p(dir, small_windows(MAPOUT_BUFFERED, 64));
  // Hidden from the compiler, which would warn of the null it sees.
  const char* volatile hidden = nullptr;
  const char* const null_text = hidden;
  p.both("[%s][%10s][%-8s][%.3s][%.6s]", null_text, null_text, null_text, null_text, null_text);
  p.both("[%p][%12p][%-12p]", nullptr, nullptr, nullptr);
  p.check();
}

// Formats glibc hands to its own parser: numbered arguments, unknown conversions, "%5%".
TEST(CPrintf, PositionalAndUnknownConversionsAreGlibcs) {
  temp_dir dir;
  printed p(dir, small_windows(MAPOUT_BUFFERED, 64));
  p.both("%2$s-%1$d-%2$s\n", 42, "two");
  p.both("%1$*2$d|\n", 7, 5);
  p.both("before %d %y after %s\n", 3, "x");
  p.both("[%5%][%-%]\n", 0);
  p.both("%d %#m %m\n", 1);
  p.both("%b %#B %08b\n", 5u, 6u, 7u);
  p.check();
}

// %n with C99's length modifiers (hh, z): mapout.h's format(printf) is Microsoft's printf under
// mingw-w64, which knows neither.
#ifndef _WIN32
TEST(CPrintf, CountIsStoredForEveryLength) {
  temp_dir dir;
  printed p(dir, small_windows(MAPOUT_BUFFERED, 16));
  int n = -1;
  signed char hh = -1;
  short h = -1;
  long l = -1;
  long long ll = -1;
  ssize_t z = 0;
  p.both("%s", "abc");
  const int got = mapout_printf(p.file(), "abcdef%n%-20d%hhn|%hn%s%ln%lln%zn", &n, 5, &hh, &h,
                                "0123456789012345678901234", &l, &ll, &z);
  EXPECT_EQ(got, 6 + 20 + 1 + 25);
  p.expected() += "abcdef5                   |0123456789012345678901234";
  EXPECT_EQ(n, 6);
  EXPECT_EQ(hh, 26);
  EXPECT_EQ(h, 27);
  EXPECT_EQ(l, 52);
  EXPECT_EQ(ll, 52);
  EXPECT_EQ(z, 52);
  p.check();
}
#endif  // _WIN32

TEST(CPrintf, BadFormatsFailAsGlibcFails) {
  temp_dir dir;
  printed p(dir, small_windows(MAPOUT_BUFFERED, 64));
  p.both("trailing %", 0);
  p.expected() += "trailing ";  // written before the failure, as by fprintf (below)
  p.both("%2147483648d", 1);
  p.both("%.2147483648d", 1);
  p.both("%ls", L"\u00e9t\u00e9");  // no multibyte form in the C locale: EILSEQ
  p.both("%lc|%ls|%S|%C", static_cast<wint_t>(L'a'), L"wide", L"S", static_cast<wint_t>(L'C'));
  errno = 0;
  EXPECT_EQ(mapout_printf(nullptr, "%d", 1), -1);
  EXPECT_EQ(errno, EINVAL);
  errno = 0;
  EXPECT_EQ(mapout_printf(p.file(), nullptr), -1);
  EXPECT_EQ(errno, EINVAL);
  p.check();
}

// A width of INT_MIN from '*' has no magnitude in an int: glibc writes 2^31 bytes of the field,
// then fails with EOVERFLOW; mapout writes the bytes before the specification and none of the
// field, and fails at once, with the file unharmed.
TEST(CPrintf, IntMinWidthWritesNoneOfTheFieldAndFailsWithEoverflow) {
  temp_dir dir;
  printed p(dir, small_windows(MAPOUT_BUFFERED, 16));
  // Hidden from the compiler, which would warn of the width it sees.
  const volatile int least = INT_MIN;
  errno = 0;
  EXPECT_EQ(mapout_printf(p.file(), "before %*d after", least, 1), -1);
  EXPECT_EQ(errno, EOVERFLOW);
  errno = 0;
  EXPECT_EQ(mapout_printf(p.file(), "|%-*s|", least, "text"), -1);
  EXPECT_EQ(errno, EOVERFLOW);
  EXPECT_EQ(mapout_printf(p.file(), "%d", 3), 1);
  p.expected() = "before |3";
  p.check();
}

// One format through the C library's fprintf and through mapout_printf, with errno set for a %m:
// the same return value, and errno after a failure.
template <typename... Args>
void fprintf_both(std::FILE* theirs, mapout_file* ours, const char* format, Args... args) {
  errno = E2BIG;
  const int want = std::fprintf(theirs, format, args...);
  const int want_errno = errno;
  errno = E2BIG;
  EXPECT_EQ(mapout_printf(ours, format, args...), want) << format;
  if (want < 0) {
    EXPECT_EQ(errno, want_errno) << format;
  }
  std::fputs("|", theirs);
  mapout_puts("|", ours);
}

// A format that ends inside a specification ("abc%", "x%5", "%-") fails with EINVAL after the
// bytes before it, which glibc's fprintf writes first: text, conversions written here and those
// handed to the C library with the rest of the format. Numbered arguments make glibc write the
// '%' as text. Across window edges on both strategies, the bytes compared with fprintf's file.
TEST(CPrintf, FormatEndingInsideASpecificationWritesTheBytesBeforeIt) {
  for (const int strategy : {MAPOUT_BUFFERED, MAPOUT_MAPPED}) {
    SCOPED_TRACE(strategy);
    temp_dir dir;
    std::FILE* theirs = std::fopen((dir / "stdio").string().c_str(), "wb");
    const mapout_options opts = small_windows(strategy, 4);
    mapout_file* ours = mapout_open((dir / "mapout").string().c_str(), "w", &opts);
    ASSERT_NE(theirs, nullptr);
    ASSERT_NE(ours, nullptr);
    for (const char* format : {"abc%", "x%5", "%-", "abc%ll", "a%.*", "a% #0", "a%%%", "%d abc%",
                               "%d%%%5.3l", "%x and a longer text than the window%"}) {
      fprintf_both(theirs, ours, format, 5, 6);
    }
    fprintf_both(theirs, ours, "%s, %c%", "text", 'c');
    fprintf_both(theirs, ours, "%.2f %e%", 0.5, 2.0);
#ifndef _WIN32
    // glibc's own: %b, %m and numbered arguments, written with the rest of the format.
    fprintf_both(theirs, ours, "%b abc%", 5u, 6u);
    fprintf_both(theirs, ours, "%b %m.%", 5u, 6u);
    fprintf_both(theirs, ours, "%1$d abc%", 5, 6);
#endif
    ASSERT_EQ(std::fclose(theirs), 0);
    ASSERT_EQ(mapout_close(ours), 0);
    EXPECT_EQ(read_file(dir / "mapout"), read_file(dir / "stdio"));
#ifndef _WIN32
    EXPECT_EQ(read_file(dir / "stdio").substr(0, 12), "abc|x||abc|a");
#endif
  }
}

#ifndef _WIN32
// A locale that writes "1234,5" and groups "1.234.567": the floating conversions and the '
// flag go to glibc, for the thread's locale. The locale is compiled for the test (localedef).
TEST(CPrintf, LocaleDecimalPointAndGroupingAreGlibcs) {
  temp_dir dir;
  const std::string command =
      "localedef -i de_DE -f UTF-8 " + (dir / "de_DE.UTF-8").string() + " >/dev/null 2>&1";
  if (std::system(command.c_str()) != 0) GTEST_SKIP() << "localedef cannot make de_DE.UTF-8";
  ASSERT_EQ(::setenv("LOCPATH", dir.path().c_str(), 1), 0);
  const locale_t german = ::newlocale(LC_ALL_MASK, "de_DE.UTF-8", nullptr);
  ::unsetenv("LOCPATH");
  ASSERT_NE(german, nullptr);
  {
    printed p(dir, small_windows(MAPOUT_BUFFERED, 64));
    const locale_t before = ::uselocale(german);
    for (int i = 0; i < 200; ++i) {
      p.both("%.3f|%e|%g|%'d|%'.2f|%10.1f|%d\n", i * 1234.5678, i * 1e-7, i / 3.0, i * 98765,
             i * 12345.678, -i / 7.0, i);
      p.both("%Lf|%ls\n", static_cast<long double>(i) / 3, L"gr\u00fc\u00df");
    }
    ::uselocale(before);
    p.check();
  }
  ::freelocale(german);
}
#endif  // _WIN32

// Past INT_MAX bytes in one call the count cannot be returned: -1 with EOVERFLOW, as vfprintf.
TEST(CPrintf, MoreThanIntMaxBytesIsEoverflow) {
  const int fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  mapout_file* out = mapout_fdopen(fd, "w", nullptr);
  ASSERT_NE(out, nullptr);
  // Hidden from the compiler, which would warn of the overflow it sees.
  const volatile int half = 1 << 30;
  const volatile int most = INT_MAX;
  EXPECT_EQ(mapout_printf(out, "%*d", most, 1), INT_MAX);
  errno = 0;
  EXPECT_EQ(mapout_printf(out, "%*d%*d", half, 1, half, 2), -1);
  EXPECT_EQ(errno, EOVERFLOW);
  EXPECT_EQ(std::snprintf(nullptr, 0, "%*d%*d", half, 1, half, 2), -1);
  // Not sticky: the file was not harmed.
  EXPECT_EQ(mapout_printf(out, "%d", 12), 2);
  EXPECT_EQ(mapout_close(out), 0);
}

#ifndef _WIN32
// A write that fails fails the call: -1 with the write's errno, as vfprintf.
TEST(CPrintf, FailedWriteFailsTheCall) {
  int pipe_ends[2];
  ASSERT_EQ(::pipe2(pipe_ends, O_CLOEXEC), 0);
  ::close(pipe_ends[0]);
  mapout_options opts = small_windows(MAPOUT_AUTOMATIC, 16);
  mapout_file* out = mapout_fdopen(pipe_ends[1], "w", &opts);
  ASSERT_NE(out, nullptr);
  const sighandler_t old = std::signal(SIGPIPE, SIG_IGN);
  errno = 0;
  EXPECT_EQ(mapout_printf(out, "%s and %d more bytes than the buffer", "longer", 40), -1);
  EXPECT_EQ(errno, EPIPE);
  EXPECT_EQ(mapout_printf(out, "%d", 1), -1);
  EXPECT_EQ(mapout_close(out), -1);
  std::signal(SIGPIPE, old);
}
#endif  // _WIN32

}  // namespace
