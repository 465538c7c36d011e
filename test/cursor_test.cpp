// mapout::cursor: random interleavings of cursor and stream calls against std::ostringstream on
// every strategy, across window ends and seeks; and the rules its header promises.
#include <gtest/gtest.h>

#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bytes.hpp"
#include "mapout/cursor.hpp"
#include "mapout/ostream.hpp"
#include "mapout/streambuf.hpp"
#include "platform/sys.hpp"
#include "random_sequences.hpp"
#include "strategies.hpp"
#include "system_call_log.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::pick;
using mapout::test::read_file;
using mapout::test::temp_dir;

// One random piece of text or number, written the same way through a cursor and a stream.
struct piece {
  int kind;
  long long number;
  std::string text;
};

piece draw_piece(std::mt19937& random) {
  piece p{
      pick(random, 0, 12), static_cast<long long>(random()) - static_cast<long long>(random()), {}};
  if (pick(random, 0, 3) == 0) {
    const long long edges[] = {0, -1, LLONG_MIN, LLONG_MAX, INT_MIN, INT_MAX, 9, 10, 99, -100};
    p.number = edges[pick(random, 0, 9)];
  }
  const int length = pick(random, 0, 4) == 0 ? pick(random, 0, 300) : pick(random, 0, 20);
  for (int i = 0; i < length; ++i) p.text += static_cast<char>(pick(random, 0, 255));
  return p;
}

// Writes `p` through `out`: a cursor, or std::ostringstream (which prints integers as to_chars
// does in its default state, as the cursor always does).
template <typename Out>
void write_piece(Out& out, const piece& p) {
  const char c = p.text.empty() ? 'c' : p.text[0];
  switch (p.kind) {
    case 0:
      out.put(c);
      break;
    case 1:
      out.write(p.text.data(), p.text.size());
      break;
    case 2:
      out << p.text;
      break;
    case 3:
      out << std::string_view(p.text);
      break;
    case 4:
      out << static_cast<signed char>(c) << static_cast<unsigned char>(c);
      break;
    case 5:
      out << static_cast<short>(p.number) << ' ' << static_cast<unsigned short>(p.number);
      break;
    case 6:
      out << static_cast<int>(p.number) << ' ' << static_cast<unsigned int>(p.number);
      break;
    case 7:
      out << static_cast<long>(p.number) << ' ' << static_cast<unsigned long>(p.number);
      break;
    case 8:
      out << p.number << ' ' << static_cast<unsigned long long>(p.number);
      break;
    case 9:
      out << "literal " << 'x';
      break;
    default:
      // Runs of single bytes, the cursor's reason to exist.
      for (char b : p.text) out.put(b);
      break;
  }
}

void stream_write(std::ostream& out, const piece& p) {
  out.write(p.text.data(), static_cast<std::streamsize>(p.text.size()));
}

TEST(Cursor, RandomInterleavingsMatchOstringstream) {
  temp_dir dir;
  mapout::test::for_random_sequences(
      dir, 300, [](mapout::ostream& out, std::ostringstream& reference, std::mt19937& random) {
        std::size_t size = 0;
        for (int step = pick(random, 5, 40); step > 0; --step) {
          switch (pick(random, 0, 4)) {
            case 0: {
              // A seek back into what was written, or to its end.
              const auto position = static_cast<std::streamoff>(
                  pick(random, 0, 1) == 0
                      ? size
                      : static_cast<std::size_t>(pick(random, 0, static_cast<int>(size))));
              out.seekp(position);
              reference.seekp(position);
              break;
            }
            case 1: {
              const piece p = draw_piece(random);
              out << p.number << p.text;
              reference << p.number << p.text;
              break;
            }
            case 2: {
              const piece p = draw_piece(random);
              stream_write(out, p);
              stream_write(reference, p);
              break;
            }
            default: {
              mapout::cursor put(out);
              for (int calls = pick(random, 1, 60); calls > 0; --calls) {
                const piece p = draw_piece(random);
                write_piece(put, p);
                write_piece(reference, p);
              }
              if (pick(random, 0, 1) == 0) put.release();
              break;
            }
          }
          ASSERT_TRUE(out.good());
          size = std::max(size, static_cast<std::size_t>(reference.str().size()));
        }
      });
}

TEST(Cursor, OnStreambufAndOutputFileMatchOstringstream) {
  temp_dir dir;
  const auto cases = mapout::test::window_cases();
  for (unsigned seed = 0; seed < 80; ++seed) {
    const auto& which = cases[seed % cases.size()];
    SCOPED_TRACE("seed " + std::to_string(seed) + ", " + which.name);
    std::mt19937 random(seed);
    std::ostringstream reference;
    mapout::streambuf buf;
    ASSERT_NE(buf.open(dir / "buf", std::ios::out, which.opts), nullptr);
    mapout::output_file file;
    ASSERT_FALSE(file.open(dir / "file", std::ios::out, which.opts));
    mapout::output_file::window view = file.current();
    for (int round = 0; round < 6; ++round) {
      const piece p = draw_piece(random);
      {
        mapout::cursor on_buf(buf);
        mapout::cursor on_file(file, view);
        for (int calls = 0; calls < 40; ++calls) {
          const piece q = draw_piece(random);
          write_piece(on_buf, q);
          write_piece(on_file, q);
          write_piece(reference, q);
        }
      }
      buf.sputn(p.text.data(), static_cast<std::streamsize>(p.text.size()));
      ASSERT_FALSE(file.write(view, p.text.data(), p.text.size()));
      reference << p.text;
    }
    ASSERT_NE(buf.close(), nullptr);
    ASSERT_FALSE(file.close(view));
    EXPECT_EQ(read_file(dir / "buf"), reference.str());
    EXPECT_EQ(read_file(dir / "file"), reference.str());
  }
}

TEST(Cursor, IntegersAtTheirLimitsAndAtTheWindowsEnd) {
  temp_dir dir;
  // A buffer of 7 bytes puts the window's end inside every number.
  mapout::ostream out(dir / "numbers", std::ios::out, mapout::test::buffered(7));
  std::string expected;
  auto expect = [&](auto value) {
    char text[24];
    expected.append(text, std::to_chars(text, text + sizeof text, value).ptr);
    expected += ' ';
  };
  {
    mapout::cursor put(out);
    auto both = [&](auto value) {
      put << value << ' ';
      expect(value);
    };
    using limits_of = std::numeric_limits<long long>;
    both(std::numeric_limits<short>::min());
    both(std::numeric_limits<unsigned short>::max());
    both(std::numeric_limits<int>::min());
    both(std::numeric_limits<unsigned int>::max());
    both(std::numeric_limits<long>::min());
    both(std::numeric_limits<unsigned long>::max());
    both(limits_of::min());
    both(limits_of::max());
    both(std::numeric_limits<unsigned long long>::max());
    both(0);
  }
  out.close();
  EXPECT_EQ(read_file(dir / "numbers"), expected);
}

TEST(Cursor, StreamCallsFailWhileACursorHoldsTheWindow) {
  temp_dir dir;
  for (const auto& which : mapout::test::window_cases()) {
    SCOPED_TRACE(which.name);
    mapout::ostream out(dir / "held", std::ios::out, which.opts);
    out << "before ";
    {
      mapout::cursor put(out);
      put << "cursor ";
      out << "stream";
      EXPECT_TRUE(out.bad());
      out.clear();
      out.put('p').write("w", 1);
      EXPECT_TRUE(out.bad());
      out.clear();
      EXPECT_EQ(out.tellp(), std::streampos(-1));
      out.clear();
      out.seekp(0);
      EXPECT_TRUE(out.fail());
      out.clear();
      out.flush();
      EXPECT_TRUE(out.bad());
      out.clear();
      out.exceptions(std::ios::badbit);
      try {
        out << "thrown";
        ADD_FAILURE() << "no exception";
      } catch (const std::ios_base::failure& e) {
        EXPECT_NE(std::string(e.what()).find("held by a mapout::cursor"), std::string::npos)
            << e.what();
        EXPECT_EQ(e.code(), std::errc::device_or_resource_busy);
      }
      out.exceptions(std::ios::goodbit);
      out.clear();
      put << "after";
    }
    EXPECT_TRUE(out.good());
    out << " stream";
    out.close();
    EXPECT_TRUE(out.good());
    EXPECT_EQ(read_file(dir / "held"), "before cursor after stream");
  }
}

TEST(Cursor, CloseWhileACursorHoldsTheWindowFailsAndKeepsTheFile) {
  temp_dir dir;
  mapout::ostream out(dir / "close");
  {
    mapout::cursor put(out);
    put << "kept";
    out.close();
    EXPECT_TRUE(out.fail());
    EXPECT_TRUE(out.is_open());
    put << " too";
  }
  out.clear();
  out.close();
  EXPECT_TRUE(out.good());
  EXPECT_EQ(read_file(dir / "close"), "kept too");
}

// Moving a stream whose window a cursor holds is refused: the file stays with the stream the
// cursor writes into, every byte lands, and the stream moved to says why it has no file.
TEST(Cursor, StreamMovedWhileACursorHoldsTheWindowKeepsEveryByte) {
  temp_dir dir;
  const std::string bytes = mapout::test::pattern(300000);
  for (const auto& which : mapout::test::window_cases()) {
    SCOPED_TRACE(which.name);
    mapout::ostream other(dir / "other", std::ios::out, which.opts);
    other << "other's own";
    mapout::ostream out(dir / "moved", std::ios::out, which.opts);
    out << "before ";
    {
      mapout::cursor put(out);
      put << "cursor ";
      mapout::ostream moved(std::move(out));
      EXPECT_FALSE(moved.is_open());
      EXPECT_TRUE(moved.fail());
      EXPECT_EQ(moved.error(), std::errc::device_or_resource_busy);
      EXPECT_NE(moved.error_message().find("mapout::cursor"), std::string::npos)
          << moved.error_message();
      EXPECT_NE(moved.error_message().find("moved"), std::string::npos);
      other = std::move(out);
      EXPECT_FALSE(other.is_open());
      EXPECT_TRUE(other.fail());
      EXPECT_EQ(other.error(), std::errc::device_or_resource_busy);
      moved.swap(out);
      EXPECT_TRUE(moved.bad());
      put.write(bytes.data(), bytes.size());
      EXPECT_TRUE(out.good());
    }
    out << " after";
    out.close();
    EXPECT_TRUE(out.good()) << out.error_message();
    EXPECT_TRUE(read_file(dir / "moved") == "before cursor " + bytes + " after");
    EXPECT_EQ(read_file(dir / "other"), "other's own");
  }
}

// The same for a streambuf and an output_file moved from under their cursor.
TEST(Cursor, BufferAndFileMovedWhileACursorHoldsTheWindowKeepEveryByte) {
  temp_dir dir;
  const std::string bytes = mapout::test::pattern(300000);
  for (const auto& which : mapout::test::window_cases()) {
    SCOPED_TRACE(which.name);
    mapout::streambuf buf;
    ASSERT_TRUE(buf.open(dir / "buf", std::ios::out, which.opts));
    mapout::output_file file;
    ASSERT_FALSE(file.open(dir / "file", std::ios::out, which.opts));
    mapout::output_file::window view = file.current();
    {
      mapout::cursor into_buf(buf);
      mapout::cursor into_file(file, view);
      mapout::streambuf moved_buf(std::move(buf));
      mapout::output_file moved_file(std::move(file));
      EXPECT_FALSE(moved_buf.is_open());
      EXPECT_EQ(moved_buf.error(), std::errc::device_or_resource_busy);
      EXPECT_FALSE(moved_file.is_open());
      EXPECT_EQ(moved_file.error(), std::errc::device_or_resource_busy);
      into_buf.write(bytes.data(), bytes.size());
      into_file.write(bytes.data(), bytes.size());
    }
    EXPECT_TRUE(buf.close());
    EXPECT_FALSE(file.close(view));
    EXPECT_TRUE(read_file(dir / "buf") == bytes);
    EXPECT_TRUE(read_file(dir / "file") == bytes);
  }
}

TEST(Cursor, SecondCursorOnTheSameFileThrows) {
  temp_dir dir;
  mapout::ostream out(dir / "two");
  mapout::cursor first(out);
  EXPECT_THROW(mapout::cursor second(out), std::logic_error);
  EXPECT_THROW(mapout::cursor second(*out.rdbuf()), std::logic_error);
  first << "one";
  first.release();
  mapout::cursor second(out);
  second << " two";
  second.release();
  out.close();
  EXPECT_EQ(read_file(dir / "two"), "one two");
}

TEST(Cursor, OutputFileCallsReturnEbusyWhileLent) {
  temp_dir dir;
  mapout::output_file file;
  ASSERT_FALSE(file.open(dir / "lent"));
  mapout::output_file::window view = file.current();
  {
    mapout::cursor put(file, view);
    EXPECT_EQ(view.begin, nullptr);
    EXPECT_TRUE(file.held_by_cursor());
    put << "cursor";
    mapout::output_file::window stale{};
    EXPECT_EQ(file.write(stale, "x", 1), std::errc::device_or_resource_busy);
    EXPECT_EQ(file.make_room(stale, 1), std::errc::device_or_resource_busy);
    EXPECT_EQ(file.flush(stale), std::errc::device_or_resource_busy);
    EXPECT_EQ(file.tell(stale), -1);
    EXPECT_EQ(file.close(stale), std::errc::device_or_resource_busy);
    EXPECT_FALSE(file.error());
    put << '!';
  }
  EXPECT_FALSE(file.held_by_cursor());
  EXPECT_EQ(file.tell(view), 7);
  ASSERT_FALSE(file.close(view));
  EXPECT_EQ(read_file(dir / "lent"), "cursor!");
}

// The refusal is no failure of the file (error() stays clear), but the message says what was
// refused and why, and it goes with the cursor.
TEST(Cursor, RefusedCallWhileHeldIsNamedInTheErrorMessage) {
  temp_dir dir;
  mapout::output_file file;
  ASSERT_FALSE(file.open(dir / "lent"));
  mapout::output_file::window view = file.current();
  {
    mapout::cursor put(file, view);
    put << "cursor";
    mapout::output_file::window stale{};
    EXPECT_EQ(file.flush(stale), std::errc::device_or_resource_busy);
    EXPECT_FALSE(file.error());
    EXPECT_EQ(file.error_message(),
              "mapout: flush '" + (dir / "lent").string() + "': held by a mapout::cursor");
    const std::string past_the_window(1 << 20, '!');
    put << past_the_window;
    EXPECT_EQ(file.error_message(),
              "mapout: flush '" + (dir / "lent").string() + "': held by a mapout::cursor");
  }
  EXPECT_EQ(file.error_message(), "");
  ASSERT_FALSE(file.close(view));
  EXPECT_EQ(read_file(dir / "lent"), "cursor" + std::string(1 << 20, '!'));
}

// With atomic, discard() would drop the temporary under the cursor: it is refused like the rest.
TEST(Cursor, DiscardOfAnAtomicFileIsRefusedWhileLent) {
  temp_dir dir;
  mapout::options opts;
  opts.atomic = true;
  mapout::output_file file;
  ASSERT_FALSE(file.open(dir / "lent", std::ios::out, opts));
  mapout::output_file::window view = file.current();
  {
    mapout::cursor put(file, view);
    put << "cursor";
    mapout::output_file::window stale{};
    EXPECT_EQ(file.discard(stale), std::errc::device_or_resource_busy);
    EXPECT_TRUE(file.is_open());
    put << '!';
  }
  ASSERT_FALSE(file.close(view));
  EXPECT_EQ(read_file(dir / "lent"), "cursor!");
}

TEST(Cursor, UnwindingHandsThePositionBack) {
  temp_dir dir;
  for (const auto& which : mapout::test::window_cases()) {
    SCOPED_TRACE(which.name);
    mapout::ostream out(dir / "unwound", std::ios::out, which.opts);
    std::string expected;
    try {
      mapout::cursor put(out);
      for (int i = 0; i < 5000; ++i) put << i << ',';
      throw std::runtime_error("generator failed");
    } catch (const std::runtime_error&) {
    }
    for (int i = 0; i < 5000; ++i) expected += std::to_string(i) + ',';
    out << "end";
    out.close();
    EXPECT_TRUE(out.good());
    EXPECT_EQ(read_file(dir / "unwound"), expected + "end");
  }
}

TEST(Cursor, UseAfterReleaseThrows) {
  temp_dir dir;
  mapout::ostream out(dir / "released");
  mapout::cursor put(out);
  put << "a";
  put.release();
  EXPECT_THROW(put.put('b'), std::logic_error);
  EXPECT_THROW(put << "longer text", std::logic_error);
  out << "c";
  out.close();
  EXPECT_EQ(read_file(dir / "released"), "ac");
}

// A buffer or file never opened fails as a closed one: EBADF, thrown from a buffer's cursor.
TEST(Cursor, OnAFileNeverOpenedFailsAsOnAClosedOne) {
  mapout::streambuf buf;
  {
    mapout::cursor put(buf);
    EXPECT_THROW(put.put('x'), std::ios_base::failure);
    EXPECT_THROW(put.next(), std::ios_base::failure);
  }
  mapout::output_file file;
  mapout::window view = file.current();
  {
    mapout::cursor put(file, view);
    put << "dropped";
    const mapout::window memory = put.next();
    EXPECT_EQ(memory.begin, memory.end);
  }
  EXPECT_FALSE(file.is_open());
}

TEST(Cursor, StreamThatIsNotGoodReceivesNothing) {
  temp_dir dir;
  mapout::ostream out(dir / "bad");
  out << "kept";
  out.setstate(std::ios::failbit);
  {
    mapout::cursor put(out);
    for (int i = 0; i < 100000; ++i) put << "dropped";
  }
  EXPECT_EQ(out.rdstate(), std::ios::failbit);
  out.clear();
  out.close();
  EXPECT_EQ(read_file(dir / "bad"), "kept");
}

// A sentry for the cursor's whole life: tie() flushed when it is made, unitbuf when it ends.
TEST(Cursor, FlushesTieWhenMadeAndUnitbufWhenReleased) {
  struct counting_buf : std::stringbuf {
    int syncs = 0;
    int sync() override {
      ++syncs;
      return 0;
    }
  } tied_buf;
  std::ostream tied(&tied_buf);
  mapout::ostream out("/dev/null");
  out.tie(&tied);
  out << std::unitbuf;
  const int syncs_before = tied_buf.syncs;
  const mapout::test::system_call_log calls;
  {
    mapout::cursor put(out);
    EXPECT_EQ(tied_buf.syncs, syncs_before + 1);
    for (int i = 0; i < 1000; ++i) put << 'x';
    EXPECT_EQ(calls.writes(), 0);
  }
  EXPECT_EQ(calls.writes(), 1);
  EXPECT_TRUE(out.good());
}

ssize_t full_disk_write(int, const void*, std::size_t) {
  errno = ENOSPC;
  return -1;
}

TEST(Cursor, FullDiskReportsWhereTheOwnerKeepsErrors) {
  temp_dir dir;
  const auto opts = mapout::test::buffered(16);
  mapout::ostream out(dir / "stream", std::ios::out, opts);
  mapout::streambuf buf;
  ASSERT_NE(buf.open(dir / "buf", std::ios::out, opts), nullptr);
  mapout::output_file file;
  ASSERT_FALSE(file.open(dir / "file", std::ios::out, opts));
  mapout::output_file::window view = file.current();
  mapout::detail::sys().write = full_disk_write;
  {
    mapout::cursor put(out);
    for (int i = 0; i < 100; ++i) put << "0123456789";
  }
  EXPECT_TRUE(out.bad());
  out.clear();
  out.exceptions(std::ios::badbit);
  try {
    mapout::cursor put(out);
    for (int i = 0; i < 100; ++i) put << "0123456789";
    ADD_FAILURE() << "no exception";
  } catch (const std::ios_base::failure& e) {
    EXPECT_EQ(e.code(), std::errc::no_space_on_device) << e.what();
  }
  try {
    mapout::cursor put(buf);
    for (int i = 0; i < 100; ++i) put << "0123456789";
    ADD_FAILURE() << "no exception";
  } catch (const std::ios_base::failure& e) {
    EXPECT_EQ(e.code(), std::errc::no_space_on_device) << e.what();
  }
  {
    mapout::cursor put(file, view);
    for (int i = 0; i < 100; ++i) put << "0123456789";
  }
  EXPECT_EQ(file.error(), std::errc::no_space_on_device);
  mapout::detail::sys() = mapout::detail::real_system_calls();
  out.exceptions(std::ios::goodbit);
  out.close();
  buf.close();
  file.close(view);
}

}  // namespace
