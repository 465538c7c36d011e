// mapout::sink under Boost.Iostreams: byte equality with std::ofstream, seeking, filtering
// chains, shared copies, and errors as Boost users see them.
#include "mapout/boost.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filtering_stream.hpp>
#include <boost/iostreams/operations.hpp>
#include <boost/iostreams/stream.hpp>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "failure_of.hpp"
#include "platform/sys.hpp"
#include "system_call_override.hpp"
#include "temp_dir.hpp"

namespace io = boost::iostreams;
using mapout::test::failure_of;
using mapout::test::read_file;
using mapout::test::temp_dir;

namespace {

std::string text_of(std::size_t size, unsigned seed) {
  std::mt19937 random(seed);
  std::string text(size, '\0');
  for (char& c : text) c = static_cast<char>('a' + random() % 26);
  return text;
}

// Writes the same random operations (writes of 0 to 64 KiB, puts, seeks from every origin, back
// and past the end) to a std::ofstream and to stream<mapout::sink>, and returns both files.
void write_random_operations(unsigned seed, std::ostream& expected, std::ostream& actual) {
  std::mt19937 random(seed);
  const std::string source = text_of(std::size_t{64} << 10, seed);
  std::streamoff size = 0;  // the file's size: the furthest byte written, not sought
  for (int step = 0; step < 60; ++step) {
    const unsigned pick = random() % 100;
    if (pick < 50) {
      const std::size_t count =
          random() % 3 == 0 ? random() % ((std::size_t{64} << 10) + 1) : random() % 17;
      const auto from = static_cast<std::streamsize>(random() % (source.size() - count + 1));
      expected.write(source.data() + from, static_cast<std::streamsize>(count));
      actual.write(source.data() + from, static_cast<std::streamsize>(count));
      size = std::max<std::streamoff>(size, expected.tellp());
    } else if (pick < 70) {
      const char c = static_cast<char>('A' + random() % 26);
      expected.put(c);
      actual.put(c);
      size = std::max<std::streamoff>(size, expected.tellp());
    } else if (pick < 80) {
      const auto to = static_cast<std::streamoff>(random() % static_cast<unsigned>(size + 4096));
      expected.seekp(to);
      actual.seekp(to);
    } else if (pick < 90) {
      const auto by = static_cast<std::streamoff>(random() % 8192) - 4096;
      if (expected.tellp() + by < 0) continue;
      expected.seekp(by, std::ios_base::cur);
      actual.seekp(by, std::ios_base::cur);
    } else {
      const auto by = static_cast<std::streamoff>(random() % 4096) - 2048;
      if (size + by < 0) continue;
      expected.seekp(by, std::ios_base::end);
      actual.seekp(by, std::ios_base::end);
    }
    ASSERT_TRUE(expected && actual) << "seed " << seed << " step " << step;
    ASSERT_EQ(actual.tellp(), expected.tellp()) << "seed " << seed << " step " << step;
  }
}

// A filter of our own: "<n>: " before every line.
class line_numberer : public io::output_filter {
 public:
  template <class Sink>
  bool put(Sink& next, char c) {
    if (at_line_start_) {
      const std::string number = std::to_string(++line_) + ": ";
      for (char digit : number) {
        if (!io::put(next, digit)) return false;
      }
    }
    at_line_start_ = c == '\n';
    return io::put(next, c);
  }

 private:
  int line_ = 0;
  bool at_line_start_ = true;
};

// Makes every fallocate, ftruncate and write fail with ENOSPC while alive: the file cannot grow
// on either path.
class full_disk {
  using calls = mapout::detail::system_calls;
  mapout::test::system_call_override<&calls::fallocate> fallocate_{[](int, int, off_t, off_t) {
    errno = ENOSPC;
    return -1;
  }};
  mapout::test::system_call_override<&calls::ftruncate> ftruncate_{[](int, off_t) {
    errno = ENOSPC;
    return -1;
  }};
  mapout::test::system_call_override<&calls::write> write_{
      [](int, const void*, std::size_t) -> ssize_t {
        errno = ENOSPC;
        return -1;
      }};
};

TEST(BoostSink, RandomWritesMatchOfstreamForEveryBufferAndStrategy) {
  temp_dir dir;
  const std::streamsize boost_buffers[] = {0, 1, -1, 65536};  // -1: the sink's optimal size
  mapout::options small_reserve;
  small_reserve.strategy = mapout::strategy::mapped;
  small_reserve.mapping_size = 64 << 10;  // the mapping moves along the file many times
  mapout::options buffered;
  buffered.strategy = mapout::strategy::buffered;
  buffered.buffer_size = 1000;
  const mapout::options strategies[] = {{}, small_reserve, buffered};
  for (unsigned seed = 1; seed <= 120; ++seed) {
    const auto expected_path = dir / ("expected" + std::to_string(seed));
    const auto actual_path = dir / ("actual" + std::to_string(seed));
    {
      std::ofstream expected(expected_path, std::ios::binary);
      io::stream<mapout::sink> actual(
          mapout::sink(actual_path, std::ios_base::binary, strategies[seed % 3]),
          boost_buffers[seed % 4]);
      write_random_operations(seed, expected, actual);
      actual.close();
      ASSERT_TRUE(actual) << "seed " << seed;
    }
    ASSERT_EQ(read_file(actual_path), read_file(expected_path)) << "seed " << seed;
  }
}

TEST(BoostSink, StreamForwardsPathModeAndOptions) {
  temp_dir dir;
  mapout::options opts;
  opts.mapping_size = 4096;
  {
    io::stream<mapout::sink> out((dir / "a.txt").string());
    out << "first\n";
  }
  {
    io::stream<mapout::sink> out((dir / "a.txt").c_str(), std::ios_base::app, opts);
    out << "second\n";
  }
  io::stream<mapout::sink> out;
  out.open(dir / "b.txt", opts);
  out << std::string(10000, 'b');  // more than the 4 KiB reserve
  out.close();
  EXPECT_EQ(read_file(dir / "a.txt"), "first\nsecond\n");
  EXPECT_EQ(read_file(dir / "b.txt"), std::string(10000, 'b'));
}

// With flush_publishes, std::endl through Boost's stream shows each line and the size to another
// reader, in every strategy.
TEST(BoostSink, FlushPublishesShowsEachLineToAReader) {
  mapout::options mapped;
  mapped.strategy = mapout::strategy::mapped;
  mapout::options buffered;
  buffered.strategy = mapout::strategy::buffered;
  for (mapout::options opts : {mapout::options{}, mapped, buffered}) {
    SCOPED_TRACE(static_cast<int>(opts.strategy));
    temp_dir dir;
    opts.flush_publishes = true;
    io::stream<mapout::sink> out(dir / "log", std::ios::out, opts);
    std::string expected;
    for (int i = 0; i < 300; ++i) {
      out << "line " << i << std::endl;
      expected += "line " + std::to_string(i) + '\n';
      ASSERT_EQ(std::filesystem::file_size(dir / "log"), expected.size()) << "after line " << i;
      ASSERT_EQ(read_file(dir / "log"), expected) << "after line " << i;
    }
    out.close();
    EXPECT_EQ(read_file(dir / "log"), expected);
  }
}

TEST(BoostSink, SeekOnDevicePatchesHeader) {
  temp_dir dir;
  mapout::sink file(dir / "out.bin");
  io::write(file, "size=????\n", 10);
  io::write(file, "body\n", 5);
  EXPECT_EQ(io::seek(file, 0, std::ios_base::cur), std::streampos(15));
  EXPECT_EQ(io::seek(file, 5, std::ios_base::beg), std::streampos(5));
  io::write(file, "0015", 4);
  EXPECT_EQ(io::seek(file, 0, std::ios_base::end), std::streampos(15));
  io::write(file, "end\n", 4);
  file.close();
  EXPECT_EQ(read_file(dir / "out.bin"), "size=0015\nbody\nend\n");
}

TEST(BoostSink, SeekThroughStreamPastEndLeavesZeros) {
  temp_dir dir;
  {
    io::stream<mapout::sink> out(dir / "out.bin");
    out << "abc";
    out.seekp(6);
    out << "xyz";
    out.seekp(-5, std::ios_base::cur);
    out << "-";
    EXPECT_EQ(out.tellp(), std::streampos(5));
    out.seekp(-1, std::ios_base::end);
    out << "Z";
  }
  EXPECT_EQ(read_file(dir / "out.bin"), std::string("abc\0-\0xyZ", 9));
}

TEST(BoostSink, GzipChainRoundTrips) {
  temp_dir dir;
  std::string text;
  for (int line = 0; line < 50000; ++line)
    text += "line " + std::to_string(line) + " of the input\n";
  {
    io::filtering_ostream out;
    out.push(io::gzip_compressor());
    out.push(mapout::sink(dir / "out.gz"));
    out << text;
    out.reset();
  }
  const std::string compressed = read_file(dir / "out.gz");
  EXPECT_LT(compressed.size(), text.size() / 4);
  std::ifstream file(dir / "out.gz", std::ios::binary);
  io::filtering_istream in;
  in.push(io::gzip_decompressor());
  in.push(file);
  const std::string round_trip{std::istreambuf_iterator<char>(in),
                               std::istreambuf_iterator<char>()};
  EXPECT_EQ(round_trip, text);
}

TEST(BoostSink, OwnFilterNumbersLines) {
  temp_dir dir;
  {
    io::filtering_ostream out;
    out.push(line_numberer());
    out.push(mapout::sink(dir / "out.txt"), 0);  // unbuffered: every byte reaches the device
    out << "alpha\nbeta\n\ngamma\n";
  }
  EXPECT_EQ(read_file(dir / "out.txt"), "1: alpha\n2: beta\n3: \n4: gamma\n");
}

TEST(BoostSink, CloseThroughOneCopyClosesAll) {
  temp_dir dir;
  mapout::sink kept(dir / "out.txt");
  io::stream<mapout::sink> out(kept);
  out << "through the stream's copy\n" << std::flush;
  io::write(kept, "through ours\n", 13);
  kept.close();
  EXPECT_FALSE(out->is_open());
  EXPECT_EQ(read_file(dir / "out.txt"), "through the stream's copy\nthrough ours\n");

  std::error_code code;
  const std::string message = failure_of([&] { out->write("late", 4); }, code);
  EXPECT_EQ(code, std::errc::bad_file_descriptor);
  EXPECT_EQ(message, "mapout: write '" + (dir / "out.txt").string() + "': " + code.message());
  out.close();  // Boost closes its copy too: nothing left to do, nothing thrown
}

TEST(BoostSink, NativeHandleIsTheFilesDescriptorUntilClosed) {
  temp_dir dir;
  mapout::sink out(dir / "out.txt");
  struct stat by_descriptor;
  struct stat by_path;
  ASSERT_EQ(::fstat(out.native_handle(), &by_descriptor), 0);
  ASSERT_EQ(::stat((dir / "out.txt").c_str(), &by_path), 0);
  EXPECT_EQ(by_descriptor.st_ino, by_path.st_ino);
  out.close();
  EXPECT_EQ(out.native_handle(), -1);
}

TEST(BoostSink, LastCopyGoneClosesCompleteFile) {
  temp_dir dir;
  {
    mapout::sink first(dir / "out.txt");
    mapout::sink second = first;
    io::write(first, "one ", 4);
    io::write(second, "two", 3);
  }
  EXPECT_EQ(read_file(dir / "out.txt"), "one two");
}

TEST(BoostSink, FlushReachesPipeReaderAndSeekSetsFailbit) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  const std::string path = "/dev/fd/" + std::to_string(ends[1]);
  {
    io::stream<mapout::sink> out(path);
    out << "hello" << std::flush;
    char got[6] = {};
    ASSERT_EQ(::read(ends[0], got, 5), 5);
    EXPECT_STREQ(got, "hello");

    EXPECT_EQ(io::seek(*out, 0, std::ios_base::beg), std::streampos(-1));
    out.seekp(0);
    EXPECT_TRUE(out.fail());
  }
  ::close(ends[0]);
  ::close(ends[1]);
}

TEST(BoostSink, MissingDirectoryFailsToOpenWithPath) {
  temp_dir dir;
  const auto path = dir / "missing" / "out.txt";
  std::error_code code;
  const std::string message = failure_of([&] { io::stream<mapout::sink> out(path); }, code);
  EXPECT_EQ(code, std::errc::no_such_file_or_directory);
  EXPECT_EQ(message, "mapout: open '" + path.string() + "': " + code.message());

  io::stream<mapout::sink> out;
  EXPECT_THROW(out.open(path, mapout::options{}), std::ios_base::failure);
  EXPECT_FALSE(out.is_open());
}

TEST(BoostSink, FullDiskSetsBadbitAndEveryLaterWriteFails) {
  temp_dir dir;
  const auto path = dir / "out.txt";
  const std::string block(10000, 'x');  // larger than Boost's buffer: reaches the device now
  full_disk disk;
  mapout::options mapped;  // the first buffer of the automatic strategy would take the block
  mapped.strategy = mapout::strategy::mapped;
  io::stream<mapout::sink> out(path, std::ios::out, mapped);
  out.write(block.data(), static_cast<std::streamsize>(block.size()));
  EXPECT_TRUE(out.bad());

  out.clear();
  out.exceptions(std::ios_base::badbit);
  std::error_code code;
  const std::string message = failure_of(
      [&] { out.write(block.data(), static_cast<std::streamsize>(block.size())); }, code);
  EXPECT_EQ(code, std::errc::no_space_on_device);
  // The operation is the system call that failed to grow the file.
  const std::string tail = " '" + path.string() + "': " + code.message();
  EXPECT_EQ(message.rfind("mapout: ", 0), 0u) << message;
  ASSERT_GE(message.size(), tail.size()) << message;
  EXPECT_EQ(message.substr(message.size() - tail.size()), tail) << message;

  out.exceptions(std::ios_base::goodbit);
  out.clear();
  EXPECT_THROW(out.close(), std::ios_base::failure);
  EXPECT_EQ(std::filesystem::file_size(path), 0u);
}

TEST(BoostSink, ChainReportsDeviceFailure) {
  temp_dir dir;
  full_disk disk;
  io::filtering_ostream out;
  out.push(io::gzip_compressor());
  out.push(mapout::sink(dir / "out.gz"));
  out << text_of(1 << 20, 7);
  std::error_code code;
  const std::string message = failure_of([&] { out.reset(); }, code);
  EXPECT_EQ(code, std::errc::no_space_on_device);
  EXPECT_NE(message.find("out.gz"), std::string::npos) << message;
}

}  // namespace

namespace {

TEST(BoostSink, AtomicPublishesOnCloseAndDiscardsWhenAnExceptionUnwinds) {
  temp_dir dir;
  mapout::test::write_file(dir / "out", "old");
  mapout::options opts;
  opts.atomic = true;
  try {
    io::stream<mapout::sink> out(dir / "out", opts);
    out << "half";
    out.flush();
    throw std::runtime_error("generator failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(read_file(dir / "out"), "old");
  {
    io::filtering_ostream chain;
    chain.push(mapout::sink(dir / "out", opts));
    chain << "new";
    EXPECT_EQ(read_file(dir / "out"), "old");
    chain.reset();
  }
  EXPECT_EQ(read_file(dir / "out"), "new");
  mapout::sink dropped(dir / "out", opts);
  dropped.write("dropped", 7);
  dropped.discard();
  EXPECT_FALSE(dropped.is_open());
  EXPECT_EQ(read_file(dir / "out"), "new");
}

TEST(BoostSink, WriteIfChangedKeepsAnUnchangedFile) {
  temp_dir dir;
  const std::string text = text_of(100000, 3);
  mapout::test::write_file(dir / "out", text);
  struct stat before;
  ASSERT_EQ(::stat((dir / "out").c_str(), &before), 0);
  mapout::options opts;
  opts.write_if_changed = true;
  {
    io::stream<mapout::sink> out(dir / "out", opts);
    out << text;
  }
  struct stat after;
  ASSERT_EQ(::stat((dir / "out").c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
}

}  // namespace
