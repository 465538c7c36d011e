// mapout::output_file on its own: the error_code API, the window protocol, tell and seek, and
// publish and persist making the file right for a reader while writing goes on.
#include "mapout/output_file.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>

#include "mapout/ostream.hpp"
#include "strategies.hpp"
#include "system_call_log.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::buffered;
using mapout::test::mapped;
using mapout::test::read_file;
using mapout::test::system_call_log;
using mapout::test::temp_dir;

// Stores `text` through the window protocol: fill what fits, make room when it is used up.
std::error_code store(mapout::output_file& file, mapout::output_file::window& view,
                      const std::string& text) {
  for (char c : text) {
    if (view.begin == view.end) {
      if (auto ec = file.make_room(view, 1)) return ec;
    }
    *view.begin++ = c;
  }
  // flush() takes note of the cursor and, on the mapping, costs nothing.
  return file.flush(view);
}

// The same from the window the file last handed back.
std::error_code store(mapout::output_file& file, const std::string& text) {
  mapout::output_file::window view = file.current();
  return store(file, view, text);
}

// Another process's view of the file: its size as fstat sees it through a descriptor of its own.
off_t size_seen_by_reader(const std::filesystem::path& path) {
  const int fd = ::open(path.string().c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st;
  const off_t size = ::fstat(fd, &st) == 0 ? st.st_size : -1;
  ::close(fd);
  return size;
}

TEST(OutputFile, ErrorCodeApiFromOpenToClose) {
  temp_dir dir;
  mapout::output_file file;
  EXPECT_FALSE(file.is_open());
  mapout::output_file::window none = file.current();
  EXPECT_EQ(none.begin, none.end);
  EXPECT_EQ(file.make_room(none, 1), std::errc::bad_file_descriptor);
  EXPECT_EQ(file.close(none), std::errc::bad_file_descriptor);

  EXPECT_FALSE(file.open(dir / "out", std::ios::out, mapped()));
  mapout::output_file::window view = file.current();
  EXPECT_TRUE(file.is_open());
  EXPECT_TRUE(file.is_mapped());
  EXPECT_EQ(file.path(), dir / "out");
  EXPECT_EQ(file.open(dir / "other"), std::errc::device_or_resource_busy);
  EXPECT_FALSE(store(file, view, "hello\n"));
  EXPECT_FALSE(file.write(view, "world\n", 6));
  EXPECT_FALSE(file.error());
  EXPECT_EQ(file.error_message(), "");
  EXPECT_FALSE(file.close(view));
  EXPECT_FALSE(file.is_open());
  EXPECT_EQ(read_file(dir / "out"), "hello\nworld\n");

  EXPECT_EQ(file.close(view), std::errc::bad_file_descriptor);
  EXPECT_EQ(file.error(), std::errc::bad_file_descriptor);
  EXPECT_EQ(file.error_message(),
            "mapout: close '" + (dir / "out").string() + "': " + file.error().message());
}

TEST(OutputFile, FailedOpenReportsOperationPathAndErrno) {
  temp_dir dir;
  mapout::output_file file;
  const auto path = dir / "missing" / "out";
  const std::error_code ec = file.open(path);
  EXPECT_EQ(ec, std::errc::no_such_file_or_directory);
  EXPECT_EQ(file.error(), ec);
  EXPECT_FALSE(file.is_open());
  EXPECT_EQ(file.error_message(), "mapout: open '" + path.string() + "': " + ec.message());
  mapout::output_file::window none;
  EXPECT_EQ(file.write(none, "x", 1), std::errc::bad_file_descriptor);
}

TEST(OutputFile, OpenModeWithoutARowIsInvalidArgument) {
  temp_dir dir;
  mapout::output_file file;
  EXPECT_EQ(file.open(dir / "out", std::ios::in), std::errc::invalid_argument);
  EXPECT_NE(file.error_message().find("open mode"), std::string::npos) << file.error_message();
}

// Never opened, so there is no state behind the file: a seek must fail without touching it.
TEST(OutputFile, SeekOnAFileNeverOpenedIsBadDescriptor) {
  mapout::output_file file;
  mapout::output_file::window none = file.current();
  std::error_code ec;
  EXPECT_EQ(file.seek(none, 0, std::ios::beg, ec), -1);
  EXPECT_EQ(ec, std::errc::bad_file_descriptor);
}

TEST(OutputFile, MakeRoomGivesAtLeastTheByteAskedFor) {
  temp_dir dir;
  for (const mapout::options& opts : {mapped(), buffered()}) {
    mapout::output_file file;
    ASSERT_FALSE(file.open(dir / "out", std::ios::out, opts));
    mapout::output_file::window view = file.current();
    for (int i = 0; i < 3; ++i) {
      ASSERT_FALSE(file.make_room(view, 100));
      ASSERT_GE(view.end - view.begin, 1);
      *view.begin++ = static_cast<char>('a' + i);
    }
    ASSERT_FALSE(file.close(view));
    EXPECT_EQ(view.begin, view.end);
    EXPECT_EQ(read_file(dir / "out"), "abc");
  }
}

TEST(OutputFile, TellAndSeekMoveTheCursor) {
  temp_dir dir;
  for (const mapout::options& opts : {mapped(), buffered()}) {
    SCOPED_TRACE(opts.strategy == mapout::strategy::buffered ? "buffered" : "mapped");
    mapout::output_file file;
    ASSERT_FALSE(file.open(dir / "out", std::ios::out, opts));
    mapout::output_file::window view = file.current();
    ASSERT_FALSE(file.write(view, "0123456789", 10));
    EXPECT_EQ(file.tell(view), 10);

    std::error_code ec;
    EXPECT_EQ(file.seek(view, 2, std::ios::beg, ec), 2);
    EXPECT_FALSE(ec);
    ASSERT_FALSE(file.write(view, "ab", 2));
    EXPECT_EQ(file.tell(view), 4);
    EXPECT_EQ(file.seek(view, -1, std::ios::cur, ec), 3);
    ASSERT_FALSE(file.write(view, "c", 1));
    EXPECT_EQ(file.seek(view, -2, std::ios::end, ec), 8);
    ASSERT_FALSE(file.write(view, "d", 1));
    EXPECT_EQ(file.seek(view, 3, std::ios::end, ec), 13);
    ASSERT_FALSE(file.write(view, "e", 1));

    // Before the start: refused, and not sticky.
    EXPECT_EQ(file.seek(view, -100, std::ios::cur, ec), -1);
    EXPECT_EQ(ec, std::errc::invalid_argument);
    EXPECT_FALSE(file.error());
    EXPECT_EQ(file.tell(view), 14);
    ASSERT_FALSE(file.write(view, "f", 1));

    ASSERT_FALSE(file.close(view));
    EXPECT_EQ(read_file(dir / "out"), std::string("01ac4567d9\0\0\0ef", 15));
  }
}

// The buffer's stretch of a regular file is seekable: a length patched behind its record and
// the way back to the end are moves of the cursor, and the bytes come out in place.
TEST(OutputFile, BufferedSeekableIsTheStretchTheBufferHolds) {
  temp_dir dir;
  mapout::output_file file;
  ASSERT_FALSE(file.open(dir / "out", std::ios::out, buffered(64)));
  mapout::output_file::window view = file.current();
  EXPECT_EQ(file.seekable().begin, nullptr) << "nothing written yet";
  ASSERT_FALSE(file.write(view, "0123456789", 10));
  mapout::output_file::seek_range range = file.seekable();
  ASSERT_NE(range.begin, nullptr);
  EXPECT_EQ(range.end - range.begin, 10);
  EXPECT_EQ(range.offset, 0);
  EXPECT_EQ(range.end, view.begin);

  // Moved back by hand, patched, and moved to the end of the stretch again.
  view.begin = range.begin + 2;
  *view.begin++ = 'a';
  view.begin = range.end;
  ASSERT_FALSE(file.write(view, "xy", 2));
  EXPECT_EQ(file.tell(view), 12);

  // A stretch that starts further on keeps the file's offsets.
  ASSERT_FALSE(file.write(view, std::string(100, 'z').data(), 100));
  ASSERT_FALSE(file.write(view, "tail", 4));
  range = file.seekable();
  ASSERT_NE(range.begin, nullptr);
  EXPECT_EQ(range.offset + (range.end - range.begin), 116);
  EXPECT_EQ(file.tell(view), 116);
  ASSERT_FALSE(file.close(view));
  EXPECT_EQ(read_file(dir / "out"), "01a3456789xy" + std::string(100, 'z') + "tail");
}

#ifndef _WIN32
// A pipe keeps no positions: nothing is seekable there.
TEST(OutputFile, BufferedPipeHasNoSeekable) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  mapout::output_file file;
  ASSERT_FALSE(file.open("/dev/fd/" + std::to_string(fds[1]), std::ios::out, buffered(64)));
  mapout::output_file::window view = file.current();
  ASSERT_FALSE(file.write(view, "abc", 3));
  EXPECT_EQ(file.seekable().begin, nullptr);
  ASSERT_FALSE(file.close(view));
  char got[4] = {};
  EXPECT_EQ(::read(fds[0], got, sizeof got), 3);
  EXPECT_STREQ(got, "abc");
  ::close(fds[0]);
  ::close(fds[1]);
}
#endif  // _WIN32

TEST(OutputFile, PublishMakesTheSizeVisibleToAnotherDescriptor) {
  temp_dir dir;
  const auto path = dir / "out";
  mapout::output_file file;
  ASSERT_FALSE(file.open(path, std::ios::out, mapped()));
  mapout::output_file::window view = file.current();
  ASSERT_FALSE(store(file, view, "first part\n"));
  // The file is extended ahead of the bytes written until publish cuts it back.
  EXPECT_GT(size_seen_by_reader(path), 11);
  ASSERT_FALSE(file.publish(view));
  EXPECT_EQ(size_seen_by_reader(path), 11);
  EXPECT_EQ(read_file(path), "first part\n");

  ASSERT_FALSE(store(file, view, "second part\n"));
  ASSERT_FALSE(file.publish(view));
  EXPECT_EQ(size_seen_by_reader(path), 23);
  EXPECT_EQ(read_file(path), "first part\nsecond part\n");

  // A seek back does not shrink what was published.
  std::error_code ec;
  file.seek(view, 0, std::ios::beg, ec);
  ASSERT_FALSE(store(file, view, "F"));
  ASSERT_FALSE(file.publish(view));
  EXPECT_EQ(read_file(path), "First part\nsecond part\n");
  ASSERT_FALSE(file.close(view));
  EXPECT_EQ(read_file(path), "First part\nsecond part\n");
}

TEST(OutputFile, PublishOnTheBufferedStrategyWritesTheBuffer) {
  temp_dir dir;
  const auto path = dir / "out";
  mapout::output_file file;
  ASSERT_FALSE(file.open(path, std::ios::out, buffered()));
  mapout::output_file::window view = file.current();
  ASSERT_FALSE(file.write(view, "pending", 7));
  EXPECT_EQ(size_seen_by_reader(path), 0);
  ASSERT_FALSE(file.publish(view));
  EXPECT_EQ(read_file(path), "pending");
  ASSERT_FALSE(file.close(view));
}

TEST(OutputFile, PersistPublishesThenSyncsOnce) {
  temp_dir dir;
  const auto path = dir / "out";
  for (const mapout::options& opts : {mapped(), buffered()}) {
    mapout::output_file file;
    ASSERT_FALSE(file.open(path, std::ios::out, opts));
    mapout::output_file::window view = file.current();
    ASSERT_FALSE(store(file, view, "durable\n"));
    system_call_log calls;
    ASSERT_FALSE(file.persist(view));
    EXPECT_EQ(calls.fsyncs(), 1);
    EXPECT_EQ(size_seen_by_reader(path), 8);
    EXPECT_EQ(read_file(path), "durable\n");
    ASSERT_FALSE(file.close(view));
  }
}

TEST(OutputFile, OstreamPublishAndPersist) {
  temp_dir dir;
  const auto path = dir / "out";
  mapout::ostream out(path, std::ios::out, mapped());
  out << "count " << 1 << '\n';
  out.publish();
  EXPECT_TRUE(out);
  EXPECT_EQ(size_seen_by_reader(path), 8);
  out << "count " << 2 << '\n';
  out.persist();
  EXPECT_TRUE(out);
  EXPECT_EQ(read_file(path), "count 1\ncount 2\n");
  out.close();
  out.publish();
  EXPECT_TRUE(out.bad());
}

TEST(OutputFile, MoveAndSwapCarryTheFile) {
  temp_dir dir;
  mapout::output_file first;
  ASSERT_FALSE(first.open(dir / "first"));
  ASSERT_FALSE(store(first, "one"));
  mapout::output_file moved(std::move(first));
  EXPECT_FALSE(first.is_open());
  ASSERT_FALSE(store(moved, "two"));

  mapout::output_file second;
  ASSERT_FALSE(second.open(dir / "second"));
  ASSERT_FALSE(store(second, "2"));
  swap(moved, second);
  ASSERT_FALSE(store(moved, "3"));
  ASSERT_FALSE(store(second, "three"));
  second = std::move(moved);  // closes the first file, takes the second
  EXPECT_EQ(read_file(dir / "first"), "onetwothree");
  mapout::output_file::window view = second.current();
  ASSERT_FALSE(second.close(view));
  EXPECT_EQ(read_file(dir / "second"), "23");
}

}  // namespace

namespace {

// A stream that takes a file opened through output_file's API writes on at the file's cursor, and
// its positions are the file's, on each strategy.
void stream_writes_on_after(const mapout::options& opts) {
  temp_dir dir;
  mapout::output_file file;
  ASSERT_FALSE(file.open(dir / "taken", std::ios_base::out, opts));
  mapout::output_file::window view = file.current();
  ASSERT_FALSE(store(file, view, "head,"));
  mapout::ostream out;
  out.open(std::move(file));
  ASSERT_TRUE(out.is_open());
  EXPECT_TRUE(out.good());
  EXPECT_EQ(out.tellp(), 5);
  out << "body" << 42;
  out.seekp(0);
  out << "H";
  out.close();
  EXPECT_FALSE(out.fail()) << out.error_message();
  EXPECT_EQ(read_file(dir / "taken"), "Head,body42");
}

}  // namespace

TEST(OutputFile, StreamTakesAnOpenFileAndWritesOnAtItsCursor) {
  stream_writes_on_after(buffered());
  stream_writes_on_after(mapped());
}

TEST(OutputFile, StreamTakingAFileThatFailedToOpenKeepsItsError) {
  temp_dir dir;
  mapout::output_file file;
  ASSERT_TRUE(file.open(dir / "missing" / "file"));
  mapout::ostream out;
  out.open(std::move(file));
  EXPECT_FALSE(out.is_open());
  EXPECT_TRUE(out.fail());
  EXPECT_EQ(out.error(), std::errc::no_such_file_or_directory);
  EXPECT_NE(out.error_message().find("missing"), std::string::npos) << out.error_message();
}

TEST(OutputFile, OpenStreamRefusesAnotherFileAndLeavesItOpen) {
  temp_dir dir;
  mapout::ostream out(dir / "first");
  mapout::output_file file;
  ASSERT_FALSE(file.open(dir / "second"));
  out.open(std::move(file));
  EXPECT_TRUE(out.fail());
  EXPECT_TRUE(file.is_open());
  EXPECT_FALSE(store(file, "still mine"));
  mapout::output_file::window view = file.current();
  EXPECT_FALSE(file.close(view));
  EXPECT_EQ(read_file(dir / "second"), "still mine");
  out.clear();
  out << "first";
  out.close();
  EXPECT_EQ(read_file(dir / "first"), "first");
}

TEST(OutputFile, StreamTakingAnAppendingFileTellsWhereTheBytesLand) {
  temp_dir dir;
  std::ofstream(dir / "log", std::ios_base::binary) << "old\n";
  mapout::output_file file;
  ASSERT_FALSE(file.open(dir / "log", std::ios_base::app));
  mapout::ostream out;
  out.open(std::move(file));
  out << "new\n";
  EXPECT_EQ(out.tellp(), 8);
  out.close();
  EXPECT_FALSE(out.fail()) << out.error_message();
  EXPECT_EQ(read_file(dir / "log"), "old\nnew\n");
}
