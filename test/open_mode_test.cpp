// Every row of the std::basic_filebuf::open table that contains out or app, with and without ate
// and binary, on a fresh and on an existing file: mapout must open or refuse as std::filebuf and
// std::ofstream do, and leave the same bytes.
#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "mapout/ostream.hpp"
#include "mapout/streambuf.hpp"
#include "strategies.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::read_file;
using mapout::test::temp_dir;
using mapout::test::write_file;
using std::ios_base;

const std::string existing_bytes = "0123456789abcdefghijklmnopqrstuvwxyz\n";

std::string describe(ios_base::openmode mode) {
  std::string name;
  const std::pair<ios_base::openmode, const char*> bits[] = {
      {ios_base::in, "in"},   {ios_base::out, "out"}, {ios_base::trunc, "trunc"},
      {ios_base::app, "app"}, {ios_base::ate, "ate"}, {ios_base::binary, "binary"}};
  for (const auto& [bit, text] : bits) {
    if (mode & bit) name += (name.empty() ? "" : "|") + std::string(text);
  }
  return name.empty() ? "none" : name;
}

// The rows that contain out or app, each alone and with ate, binary and both.
std::vector<ios_base::openmode> writable_modes() {
  const ios_base::openmode rows[] = {
      ios_base::out,
      ios_base::out | ios_base::trunc,
      ios_base::out | ios_base::app,
      ios_base::app,
      ios_base::out | ios_base::in,
      ios_base::out | ios_base::in | ios_base::trunc,
      ios_base::out | ios_base::in | ios_base::app,
      ios_base::in | ios_base::app,
  };
  std::vector<ios_base::openmode> modes;
  for (ios_base::openmode row : rows) {
    for (ios_base::openmode extra : {ios_base::openmode{}, ios_base::ate, ios_base::binary,
                                     ios_base::ate | ios_base::binary}) {
      modes.push_back(row | extra);
    }
  }
  return modes;
}

// Modes with no row in the table (or, for `in`, no output): opening fails.
std::vector<ios_base::openmode> refused_modes() {
  return {ios_base::openmode{},
          ios_base::in,
          ios_base::trunc,
          ios_base::in | ios_base::trunc,
          ios_base::trunc | ios_base::app,
          ios_base::out | ios_base::trunc | ios_base::app,
          ios_base::in | ios_base::out | ios_base::trunc | ios_base::app,
          ios_base::ate,
          ios_base::binary,
          ios_base::in | ios_base::ate};
}

struct outcome {
  bool opened = false;
  std::streamoff position_at_open = -1;
  std::streamoff position_after_write = -1;
  bool exists = false;
  std::string bytes;

  bool operator==(const outcome& other) const {
    return opened == other.opened && position_at_open == other.position_at_open &&
           position_after_write == other.position_after_write && exists == other.exists &&
           bytes == other.bytes;
  }
};

std::ostream& operator<<(std::ostream& out, const outcome& o) {
  return out << "{opened " << o.opened << ", at open " << o.position_at_open << ", after write "
             << o.position_after_write << ", exists " << o.exists << ", bytes \"" << o.bytes
             << "\"}";
}

// The same writes through any streambuf: some bytes, a seek back to patch one, and more bytes.
template <class Buffer>
void write_through(Buffer& buf, outcome& result) {
  result.position_at_open = buf.pubseekoff(0, ios_base::cur, ios_base::out);
  buf.sputn("HELLO", 5);
  buf.sputc('!');
  const std::streamoff end = buf.pubseekoff(0, ios_base::cur, ios_base::out);
  if (end >= 2) {
    buf.pubseekoff(end - 2, ios_base::beg, ios_base::out);
    buf.sputc('0');
    buf.pubseekoff(0, ios_base::end, ios_base::out);
  }
  buf.sputn("world\n", 6);
  result.position_after_write = buf.pubseekoff(0, ios_base::cur, ios_base::out);
}

void prepare(const std::filesystem::path& path, bool existing) {
  std::filesystem::remove(path);
  if (existing) write_file(path, existing_bytes);
}

void observe(const std::filesystem::path& path, outcome& result) {
  result.exists = std::filesystem::exists(path);
  result.bytes = read_file(path);
}

outcome with_filebuf(const std::filesystem::path& path, ios_base::openmode mode, bool existing) {
  prepare(path, existing);
  outcome result;
  std::filebuf buf;
  result.opened = buf.open(path, mode | mapout::test::unchanged_bytes) != nullptr;
  if (result.opened) {
    write_through(buf, result);
    buf.close();
  }
  observe(path, result);
  return result;
}

outcome with_streambuf(const std::filesystem::path& path, ios_base::openmode mode, bool existing,
                       const mapout::options& opts) {
  prepare(path, existing);
  outcome result;
  mapout::streambuf buf;
  result.opened = buf.open(path, mode, opts) != nullptr;
  if (result.opened) {
    write_through(buf, result);
    EXPECT_NE(buf.close(), nullptr) << buf.error_message();
  }
  observe(path, result);
  return result;
}

// Through the stream classes, which add out to the mode as std::ofstream does; `extra` is what
// the reference adds.
template <class Stream>
outcome with_stream(Stream& stream, const std::filesystem::path& path, ios_base::openmode mode,
                    bool existing, ios_base::openmode extra = {}) {
  prepare(path, existing);
  outcome result;
  stream.open(path, mode | extra);
  result.opened = stream.is_open() && !stream.fail();
  if (result.opened) {
    result.position_at_open = stream.tellp();
    stream << "HELLO" << 42 << std::endl;
    result.position_after_write = stream.tellp();
    stream.close();
    EXPECT_TRUE(stream);
  }
  observe(path, result);
  return result;
}

// Append modes are never mapped (the kernel places each write), so strategy::mapped refuses them.
std::vector<mapout::options> strategies(ios_base::openmode mode) {
  std::vector<mapout::options> result = {mapout::options{}, mapout::test::buffered()};
  if (!(mode & ios_base::app)) result.push_back(mapout::test::mapped());
  return result;
}

std::string describe(const mapout::options& opts) {
  switch (opts.strategy) {
    case mapout::strategy::mapped:
      return ", mapped";
    case mapout::strategy::buffered:
      return ", buffered";
    default:
      return ", automatic";
  }
}

TEST(OpenMode, EveryWritableModeMatchesFilebuf) {
  temp_dir dir;
  const auto expected_path = dir / "expected";
  const auto actual_path = dir / "actual";
  for (ios_base::openmode mode : writable_modes()) {
    for (bool existing : {false, true}) {
      const outcome expected = with_filebuf(expected_path, mode, existing);
      for (const mapout::options& opts : strategies(mode)) {
        SCOPED_TRACE(describe(mode) + (existing ? " on an existing file" : " on a fresh file") +
                     describe(opts));
        EXPECT_EQ(with_streambuf(actual_path, mode, existing, opts), expected);
      }
    }
  }
}

TEST(OpenMode, EveryWritableModeOfOstreamMatchesOfstream) {
  temp_dir dir;
  const auto expected_path = dir / "expected";
  const auto actual_path = dir / "actual";
  std::vector<ios_base::openmode> modes = writable_modes();
  // std::ofstream adds out, so these open as out|in, out and out|ate.
  modes.insert(modes.end(), {ios_base::in, ios_base::trunc, ios_base::ate});
  for (ios_base::openmode mode : modes) {
    for (bool existing : {false, true}) {
      SCOPED_TRACE(describe(mode) + (existing ? " on an existing file" : " on a fresh file"));
      std::ofstream expected_stream;
      const outcome expected = with_stream(expected_stream, expected_path, mode, existing,
                                           mapout::test::unchanged_bytes);
      mapout::ostream actual_stream;
      EXPECT_EQ(with_stream(actual_stream, actual_path, mode, existing), expected);
      EXPECT_EQ(actual_stream.fail(), expected_stream.fail());
    }
  }
}

TEST(OpenMode, ModesWithoutARowFailTheOpenAndTouchNothing) {
  temp_dir dir;
  const auto path = dir / "file";
  for (ios_base::openmode mode : refused_modes()) {
    for (bool existing : {false, true}) {
      SCOPED_TRACE(describe(mode) + (existing ? " on an existing file" : " on a fresh file"));
      prepare(path, existing);
      mapout::streambuf buf;
      EXPECT_EQ(buf.open(path, mode), nullptr);
      EXPECT_FALSE(buf.is_open());
      EXPECT_EQ(std::filesystem::exists(path), existing);
      if (existing) {
        EXPECT_EQ(read_file(path), existing_bytes);
      }
      if (mode != ios_base::in && mode != (ios_base::in | ios_base::ate)) {
        // std::filebuf refuses the same modes; `in` alone it opens for reading, which mapout
        // cannot do.
        std::filebuf reference;
        EXPECT_EQ(reference.open(path, mode), nullptr);
      }
    }
  }
}

TEST(OpenMode, OstreamRefusesTruncWithAppLikeOfstream) {
  temp_dir dir;
  const auto path = dir / "file";
  for (ios_base::openmode mode :
       {ios_base::trunc | ios_base::app, ios_base::in | ios_base::trunc | ios_base::app}) {
    SCOPED_TRACE(describe(mode));
    std::ofstream reference(path, mode);
    EXPECT_TRUE(reference.fail());
    mapout::ostream out(path, mode);
    EXPECT_TRUE(out.fail());
    EXPECT_FALSE(out.is_open());
    EXPECT_FALSE(std::filesystem::exists(path));
    EXPECT_NE(out.rdbuf()->error_message().find("open mode"), std::string::npos)
        << out.rdbuf()->error_message();
  }
}

TEST(OpenMode, AppendWritesAtTheEndAfterSeekingBack) {
  temp_dir dir;
  const auto expected_path = dir / "expected";
  const auto actual_path = dir / "actual";
  for (ios_base::openmode mode : {ios_base::app, ios_base::in | ios_base::out | ios_base::app}) {
    SCOPED_TRACE(describe(mode));
    write_file(expected_path, existing_bytes);
    write_file(actual_path, existing_bytes);
    std::ofstream expected(expected_path, mode);
    mapout::ostream actual(actual_path, mode);
    for (std::ostream* out :
         {static_cast<std::ostream*>(&expected), static_cast<std::ostream*>(&actual)}) {
      *out << "first";
      out->seekp(0);
      *out << "second";
    }
    expected.close();
    actual.close();
    EXPECT_TRUE(actual);
    EXPECT_EQ(read_file(actual_path), read_file(expected_path));
  }
}

// errno is not part of the result: a caller that reads it after its own failure must find its own.
TEST(OpenMode, SuccessfulOpenLeavesErrnoAsItWas) {
  temp_dir dir;
  int case_number = 0;
  for (bool replace : {false, true}) {
    for (const auto& strategy : mapout::test::strategies()) {
      SCOPED_TRACE(strategy.name);
      mapout::options opts = strategy.opts;
      opts.atomic = replace;
      opts.write_if_changed = replace;
      const auto path = dir / ("new" + std::to_string(case_number++));
      errno = EDOM;
      mapout::output_file file;
      ASSERT_FALSE(file.open(path, ios_base::out, opts));
      EXPECT_EQ(errno, EDOM);
      // Closed first: Windows cannot truncate a file while another handle maps a view of it.
      mapout::output_file::window view = file.current();
      ASSERT_FALSE(file.close(view));
      errno = EDOM;
      mapout::ostream out(path, ios_base::out, opts);
      ASSERT_TRUE(out.is_open()) << out.error_message();
      EXPECT_EQ(errno, EDOM);
    }
  }
}

TEST(OpenMode, ReplacingWithAModeThatKeepsTheFileNamesTheOptionAndTheMode) {
  temp_dir dir;
  const auto path = dir / "file";
  write_file(path, existing_bytes);
  const struct {
    bool atomic;
    ios_base::openmode mode;
    const char* expected;
  } cases[] = {
      {true, ios_base::app, "atomic needs a mode that truncates (app given)"},
      {false, ios_base::out | ios_base::app, "write_if_changed needs a mode that truncates (app"},
      {true, ios_base::in | ios_base::out, "atomic needs a mode that truncates (in|out without"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(describe(c.mode));
    mapout::options opts;
    opts.atomic = c.atomic;
    opts.write_if_changed = !c.atomic;
    mapout::ostream out(path, c.mode, opts);
    EXPECT_TRUE(out.fail());
    const std::string message = out.error_message();
    EXPECT_EQ(message.rfind("mapout: open '" + path.string() + "': " + c.expected, 0), 0u)
        << message;
    EXPECT_EQ(read_file(path), existing_bytes);
  }
}

}  // namespace
