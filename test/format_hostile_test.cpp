// mapout::print against formatters that misbehave: text that changes from call to call, throws on
// some call, writes to the stream it formats for; and callers that misuse it. The oracle is
// std::ofstream << fmt::format of the same call, with counters of its own.
#include <gtest/gtest.h>

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <fstream>
#include <functional>
#include <ios>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "mapout/format.hpp"
#include "random_sequences.hpp"
#include "strategies.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::pick;
using mapout::test::read_file;
using mapout::test::temp_dir;

// A value whose text changes at each call of its formatter: odd calls short, even calls
// `long_size` bytes. `calls` counts the calls of every formatter of one side of a test.
struct fickle {
  int* calls;
  std::size_t long_size;
};

// A value whose formatter throws at the call numbered `throw_at`, and writes a short text before.
struct thrower {
  int* calls;
  int throw_at;
};

// A value convertible to std::string_view without a formatter: fmt prints what the conversion
// gives, and this one gives text whose length changes from call to call.
struct fickle_view {
  int* calls;
  std::size_t long_size;
  std::string* storage;
  operator std::string_view() const {
    ++*calls;
    *storage = *calls % 2 == 1 ? "v" : std::string(long_size, 'V');
    return *storage;
  }
};

// A value whose formatter writes to a stream (or a cursor) of its own before its text.
struct reentrant {
  std::function<void()> write_inside;
};

std::string fickle_text(int call, std::size_t long_size) {
  return call % 2 == 1 ? "f" + std::to_string(call)
                       : std::string(long_size, static_cast<char>('a' + call % 26));
}

}  // namespace

// Width, fill and alignment as for a string, so that specs and dynamic widths apply to them.
template <>
struct fmt::formatter<fickle> : fmt::formatter<fmt::string_view> {
  template <typename Context>
  auto format(const fickle& value, Context& context) const {
    const std::string text = fickle_text(++*value.calls, value.long_size);
    return fmt::formatter<fmt::string_view>::format(text, context);
  }
};

template <>
struct fmt::formatter<thrower> : fmt::formatter<fmt::string_view> {
  template <typename Context>
  auto format(const thrower& value, Context& context) const {
    auto out = fmt::format_to(context.out(), "t{}:", *value.calls);
    if (++*value.calls == value.throw_at) throw std::runtime_error("thrower");
    context.advance_to(out);
    return fmt::formatter<fmt::string_view>::format("thrown-not", context);
  }
};

template <>
struct fmt::formatter<reentrant> : fmt::formatter<fmt::string_view> {
  template <typename Context>
  auto format(const reentrant& value, Context& context) const {
    value.write_inside();
    return fmt::formatter<fmt::string_view>::format("outside", context);
  }
};

namespace {

enum class way { compiled, checked, literal, runtime };
constexpr way every_way[] = {way::compiled, way::checked, way::literal, way::runtime};
const char* name_of(way how) {
  switch (how) {
    case way::compiled:
      return "FMT_COMPILE";
    case way::checked:
      return "FMT_STRING";
    case way::literal:
      return "literal";
    default:
      return "fmt::runtime";
  }
}

// One format string, printed by mapout::print and formatted by fmt::format the way `how` names.
template <typename Print, typename Format>
struct each_way {
  Print print;
  Format format;
};
template <typename Print, typename Format>
each_way(Print, Format) -> each_way<Print, Format>;

#define EACH_WAY(text)                                         \
  each_way {                                                   \
    [](auto& out, way how, const auto&... args) {              \
      switch (how) {                                           \
        case way::compiled:                                    \
          mapout::print(out, FMT_COMPILE(text), args...);      \
          break;                                               \
        case way::checked:                                     \
          mapout::print(out, FMT_STRING(text), args...);       \
          break;                                               \
        case way::literal:                                     \
          mapout::print(out, text, args...);                   \
          break;                                               \
        case way::runtime:                                     \
          mapout::print(out, fmt::runtime(text), args...);     \
          break;                                               \
      }                                                        \
    },                                                         \
        [](way how, const auto&... args) {                     \
          switch (how) {                                       \
            case way::compiled:                                \
              return fmt::format(FMT_COMPILE(text), args...);  \
            case way::checked:                                 \
              return fmt::format(FMT_STRING(text), args...);   \
            case way::literal:                                 \
              return fmt::format(text, args...);               \
            default:                                           \
              return fmt::format(fmt::runtime(text), args...); \
          }                                                    \
        }                                                      \
  }

// mapout::print on a mapout::ostream, or through a cursor made for each call.
class printed_by_mapout {
 public:
  printed_by_mapout(mapout::ostream& out, way how, bool through_cursor)
      : out_(out), how_(how), through_cursor_(through_cursor) {}
  template <typename Format, typename... T>
  void print(const Format& format, const T&... args) {
    if (through_cursor_) {
      mapout::cursor put(out_);
      format.print(put, how_, args...);
    } else {
      format.print(out_, how_, args...);
    }
  }
  mapout::ostream& stream() { return out_; }

 private:
  mapout::ostream& out_;
  way how_;
  bool through_cursor_;
};

// The oracle: std::ofstream << fmt::format(...).
class printed_by_fmt {
 public:
  printed_by_fmt(std::ofstream& out, way how) : out_(out), how_(how) {}
  template <typename Format, typename... T>
  void print(const Format& format, const T&... args) {
    out_ << format.format(how_, args...);
  }
  std::ofstream& stream() { return out_; }

 private:
  std::ofstream& out_;
  way how_;
};

// Prints, and records whether the print threw.
template <typename Side, typename Format, typename... T>
void attempt(Side& side, std::vector<bool>& threw, const Format& format, const T&... args) {
  try {
    side.print(format, args...);
    threw.push_back(false);
  } catch (const std::exception&) {
    threw.push_back(true);
  }
}

// The window shapes: every strategy and extension mode, buffers of 1, 7, 64 and 100 bytes, one
// of a page less one.
std::vector<mapout::test::strategy_case> window_shapes() {
  auto shapes = mapout::test::window_cases();
  shapes.push_back({"buffer 100", mapout::test::buffered(100)});
  shapes.push_back({"buffer 4095", mapout::test::buffered(4095)});
  return shapes;
}

// The files must hold the same bytes; the message shows where they first differ, not all of them.
void expect_same_bytes(const std::string& written, const std::string& expected) {
  const auto differs =
      std::mismatch(written.begin(), written.end(), expected.begin(), expected.end());
  const auto at = static_cast<std::size_t>(differs.first - written.begin());
  EXPECT_TRUE(written == expected)
      << "sizes " << written.size() << " and " << expected.size() << ", first difference at " << at
      << ": " << written.substr(at, 40) << " against " << expected.substr(at, 40);
}

// Runs `steps(side, threw, seed)` on a mapout::ostream of every window shape, every way, on the
// stream and through a cursor, and on a std::ofstream: the files and what threw must be alike.
template <typename Steps>
void against_ofstream(unsigned seeds, Steps steps) {
  temp_dir dir;
  for (const auto& shape : window_shapes()) {
    for (const way how : every_way) {
      for (const bool through_cursor : {false, true}) {
        for (unsigned seed = 0; seed < seeds; ++seed) {
          SCOPED_TRACE(std::string(shape.name) + ", " + name_of(how) +
                       (through_cursor ? ", cursor" : ", stream") + ", seed " +
                       std::to_string(seed));
          const auto path = dir / "mapout";
          const auto reference_path = dir / "ofstream";
          std::vector<bool> threw;
          std::vector<bool> reference_threw;
          {
            mapout::ostream out(path, std::ios::out, shape.opts);
            ASSERT_TRUE(out.is_open()) << out.error_message();
            printed_by_mapout side(out, how, through_cursor);
            steps(side, threw, seed);
            out.close();
            ASSERT_TRUE(out.good()) << out.error_message();
          }
          {
            std::ofstream reference(reference_path, std::ios::binary);
            printed_by_fmt side(reference, how);
            steps(side, reference_threw, seed);
          }
          EXPECT_EQ(threw, reference_threw);
          expect_same_bytes(read_file(path), read_file(reference_path));
        }
      }
    }
  }
}

constexpr int existing_size = 20000;

// Over the file's bytes after seeks back, and past them, with pads that move each print across
// window ends: formatters that change their length, throw on their first or second call, or
// throw from fmt's own checks of a dynamic width.
template <typename Side>
void hostile_steps(Side& side, std::vector<bool>& threw, unsigned seed) {
  std::mt19937 random(seed);
  int calls = 0;
  std::string storage;
  side.stream() << std::string(existing_size, '.');
  for (int step = 0; step < 120; ++step) {
    const long long number = static_cast<long long>(random()) - INT_MAX;
    const auto long_size = static_cast<std::size_t>(pick(random, 1, 6000));
    switch (pick(random, 0, 7)) {
      case 0:
        side.stream().seekp(pick(random, 0, existing_size));
        break;
      case 1:
        side.stream() << std::string(static_cast<std::size_t>(pick(random, 0, 300)), '-');
        break;
      case 2:
        attempt(side, threw, EACH_WAY("{} {}\n"), number, fickle{&calls, long_size});
        break;
      case 3:
        attempt(side, threw, EACH_WAY("{:>8x}|{:>7}|\n"), number, fickle{&calls, long_size});
        break;
      case 4:
        attempt(side, threw, EACH_WAY("END {} {}{}"), number, "text",
                thrower{&calls, calls + pick(random, 1, 2)});
        break;
      case 5:
        attempt(side, threw, EACH_WAY("{1}{0:*^{2}}"), fickle{&calls, long_size}, number,
                pick(random, -3, 40));
        break;
      case 6:
        attempt(side, threw, EACH_WAY("<{}>"), fickle_view{&calls, long_size, &storage});
        break;
      default:
        attempt(side, threw, EACH_WAY("{}"), fickle{&calls, long_size});
        break;
    }
  }
}

TEST(PrintHostile, FormattersThatChangeOrThrowMatchOfstreamAndFmtFormat) {
  against_ofstream(3, [](auto& side, std::vector<bool>& threw, unsigned seed) {
    hostile_steps(side, threw, seed);
  });
}

// The issue's own sequence: dots, a seek to 0, a print whose formatter throws on its first or
// second call, then "END"; and a throwing print past the file's end, where a later seek forward
// would show any byte it left.
TEST(PrintHostile, ThrowingPrintAfterSeekBackChangesNoByte) {
  against_ofstream(1, [](auto& side, std::vector<bool>& threw, unsigned) {
    for (const int throw_at : {1, 2}) {
      int calls = 0;
      side.stream() << std::string(existing_size, '.');
      side.stream().seekp(0);
      attempt(side, threw, EACH_WAY("END {} {}{}"), 42, "fickle", thrower{&calls, throw_at});
      attempt(side, threw, EACH_WAY("END {} {}{}"), 42, "fickle", thrower{&calls, throw_at});
      side.stream() << "END";
      side.stream().seekp(0, std::ios::end);
      attempt(side, threw, EACH_WAY("END {} {}{}"), 42, "fickle", thrower{&calls, calls + 1});
      side.stream().seekp(7, std::ios::cur);
      side.stream() << "!";
    }
  });
}

// Each field's formatter runs once per print, as in fmt::format: a second run could give other
// text than the first measured, or throw after part of it was stored.
TEST(PrintHostile, UserFormattersRunOncePerField) {
  temp_dir dir;
  for (const auto& shape : window_shapes()) {
    for (const way how : every_way) {
      SCOPED_TRACE(std::string(shape.name) + ", " + name_of(how));
      mapout::ostream out(dir / "once", std::ios::out, shape.opts);
      int calls = 0;
      const auto line = EACH_WAY("{} and {:>5}\n");
      line.print(out, how, fickle{&calls, 3}, fickle{&calls, 3});
      EXPECT_EQ(calls, 2);
      {
        mapout::cursor put(out);
        line.print(put, how, fickle{&calls, 3}, fickle{&calls, 3});
      }
      EXPECT_EQ(calls, 4);
      out.close();
      EXPECT_EQ(read_file(dir / "once"), "f1 and   ccc\nf3 and   eee\n");
    }
  }
}

// Widths and precisions far past every window, given in the format and as arguments, nested, and
// too big for fmt: fmt's text and fmt's errors, never a partial line.
TEST(PrintHostile, HugeAndDynamicWidthsMatchFmtFormat) {
  against_ofstream(1, [](auto& side, std::vector<bool>& threw, unsigned) {
    const std::string long_text(5000, 's');
    int calls = 0;
    side.stream() << std::string(existing_size, '.');
    for (const int position : {0, 4000, existing_size - 3}) {
      side.stream().seekp(position);
      attempt(side, threw, EACH_WAY("{:>200000}|"), 42);
      side.stream().seekp(position);
      attempt(side, threw, EACH_WAY("{:*^{}}|"), "text", 100001);
      attempt(side, threw, EACH_WAY("{:{}.{}}|"), long_text, 7000, 4999);
      attempt(side, threw, EACH_WAY("{:.{}f}|"), 1.0 / 3, 700);
      attempt(side, threw, EACH_WAY("{:>{}}|"), fickle{&calls, 9000}, 70000);
      side.stream().seekp(position);
      attempt(side, threw, EACH_WAY("ab{}{:>{}}|"), 1, 2, 3000000000LL);
      attempt(side, threw, EACH_WAY("ab{}{:>{}}|"), 1, 2, -1);
      attempt(side, threw, EACH_WAY("ab{}{:.{}}|"), 1, long_text, -7);
      side.stream() << "#";
    }
  });
}

// A formatter that writes to the stream it is formatted for: fmt::format runs it before the text
// is written, so its bytes come first.
TEST(PrintHostile, FormatterWritingToItsOwnStreamComesFirst) {
  temp_dir dir;
  for (const auto& shape : window_shapes()) {
    for (const way how : every_way) {
      SCOPED_TRACE(std::string(shape.name) + ", " + name_of(how));
      const auto line = EACH_WAY("[{}|{}]");
      mapout::ostream out(dir / "reentrant", std::ios::out, shape.opts);
      std::ofstream reference(dir / "ofstream", std::ios::binary);
      for (int i = 0; i < 50; ++i) {
        const std::string inside(static_cast<std::size_t>(i * 37 % 300), 'i');
        line.print(out, how, i, reentrant{[&] { out << inside; }});
        {
          mapout::cursor put(out);
          line.print(put, how, i, reentrant{[&] { put << inside; }});
          line.print(put, how, i, reentrant{[&] { mapout::print(put, FMT_STRING("<{}>"), i); }});
        }
        for (int copy = 0; copy < 2; ++copy) {
          reference << line.format(how, i, reentrant{[&] { reference << inside; }});
        }
        reference << line.format(how, i, reentrant{[&] { reference << fmt::format("<{}>", i); }});
      }
      out.close();
      reference.close();
      ASSERT_TRUE(out.good());
      expect_same_bytes(read_file(dir / "reentrant"), read_file(dir / "ofstream"));
    }
  }
}

// A stream's state, what print leaves of it and whether it throws, as std::ofstream << text.
struct outcome {
  std::ios::iostate state;
  bool threw;
  bool operator==(const outcome& other) const {
    return state == other.state && threw == other.threw;
  }
};

template <typename Stream, typename Print>
outcome after(Stream& out, Print print) {
  bool threw = false;
  try {
    print(out);
  } catch (const std::ios_base::failure&) {
    threw = true;
  }
  return {out.rdstate(), threw};
}

// print on a closed stream, one that failed to open, one in fail state, with and without
// exceptions(): the state and the throw of std::ofstream << fmt::format(...).
TEST(PrintHostile, StreamsThatCannotTakeTheTextFailAsOfstream) {
  temp_dir dir;
  const auto missing = dir / "no-such-directory" / "file";
  for (const way how : every_way) {
    for (const std::ios::iostate thrown :
         {std::ios::goodbit, std::ios::badbit | std::ios::failbit}) {
      for (int situation = 0; situation < 3; ++situation) {
        SCOPED_TRACE(std::string(name_of(how)) + ", situation " + std::to_string(situation) +
                     ", exceptions " + std::to_string(thrown));
        const auto line = EACH_WAY("{} {:>4}");
        const auto path = situation == 1 ? missing : dir / "mapout";
        const auto reference_path = situation == 1 ? missing : dir / "ofstream";
        mapout::ostream out(path);
        std::ofstream reference(reference_path, std::ios::binary);
        if (situation == 0) {
          out << "kept";
          reference << "kept";
          out.close();
          reference.close();
        } else if (situation == 2) {
          out.setstate(std::ios::failbit);
          reference.setstate(std::ios::failbit);
        }
        // Formatted out here: Clang 14 rejects fmt's consteval check in a lambda nested this deep.
        const std::string text = line.format(how, 42, "text");
        const auto print_both = [&](auto& stream) {
          stream.exceptions(thrown & ~stream.rdstate());
          if constexpr (std::is_same_v<std::decay_t<decltype(stream)>, mapout::ostream>) {
            line.print(stream, how, 42, "text");
          } else {
            stream << text;
          }
        };
        EXPECT_TRUE(after(out, print_both) == after(reference, print_both));
        if (situation != 1) {
          out.exceptions(std::ios::goodbit);
          reference.exceptions(std::ios::goodbit);
          out.close();
          reference.close();
          EXPECT_EQ(read_file(path), read_file(reference_path));
        }
      }
    }
  }
}

// A cursor used up by release() refuses print as every call, and the file keeps its bytes.
TEST(PrintHostile, PrintThroughAReleasedCursorThrowsAndWritesNothing) {
  temp_dir dir;
  for (const way how : every_way) {
    SCOPED_TRACE(name_of(how));
    mapout::ostream out(dir / "released");
    out << "kept";
    mapout::cursor put(out);
    put.release();
    const auto line = EACH_WAY("{} {:>4}");
    EXPECT_THROW(line.print(put, how, 42, "text"), std::logic_error);
    out.close();
    EXPECT_EQ(read_file(dir / "released"), "kept");
  }
}

}  // namespace
