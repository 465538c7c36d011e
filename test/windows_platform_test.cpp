// What only Windows does, run under Wine: the buffer and the mapping against std::ofstream of the
// same toolchain, names outside ASCII through UTF-16, no newline translation, the generators'
// replacement with MoveFileExW, a target another handle holds, Windows' error texts, and what is
// refused. A full disk: MAPOUT_SMALL_DISK names a directory on a small file system.
#include <gtest/gtest.h>
#include <windows.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <system_error>

#include "mapout/input.hpp"
#include "mapout/options.hpp"
#include "mapout/ostream.hpp"
#include "mapout/parallel.hpp"
#include "platform/sys.hpp"

namespace {

namespace fs = std::filesystem;

class scratch_directory {
 public:
  scratch_directory() {
    std::random_device seed;
    path_ = fs::temp_directory_path() / ("mapout-windows-" + std::to_string(seed()));
    fs::create_directories(path_);
  }
  scratch_directory(const scratch_directory&) = delete;
  scratch_directory& operator=(const scratch_directory&) = delete;
  ~scratch_directory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  fs::path operator/(const fs::path& name) const { return path_ / name; }
  const fs::path& path() const { return path_; }
  std::size_t entries() const {
    return static_cast<std::size_t>(
        std::distance(fs::directory_iterator(path_), fs::directory_iterator()));
  }

 private:
  fs::path path_;
};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

mapout::options with(mapout::strategy strategy, std::size_t mapping_size = std::size_t{32} << 20) {
  mapout::options opts;
  opts.strategy = strategy;
  opts.mapping_size = mapping_size;
  return opts;
}

// The same random writes, seeks back, patches and seeks past the end into both streams.
template <class Stream>
void random_writes(Stream& out, unsigned seed, std::size_t steps) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> kind(0, 9);
  std::uint64_t end = 0;
  for (std::size_t step = 0; step < steps; ++step) {
    switch (kind(random)) {
      case 0: {  // a seek back and a patch
        if (end == 0) break;
        const auto at = std::uniform_int_distribution<std::uint64_t>(0, end - 1)(random);
        out.seekp(static_cast<std::streamoff>(at));
        out << "patch" << step;
        out.seekp(0, std::ios_base::end);
        break;
      }
      case 1: {  // a hole past the end
        const auto gap = std::uniform_int_distribution<int>(1, 200000)(random);
        out.seekp(gap, std::ios_base::end);
        out.put('h');
        break;
      }
      case 2: {  // a large block
        const std::string block(std::uniform_int_distribution<std::size_t>(1, 300000)(random),
                                static_cast<char>('a' + step % 26));
        out.write(block.data(), static_cast<std::streamsize>(block.size()));
        break;
      }
      case 3:
        out.flush();
        break;
      default:
        out << step << (step % 7 == 0 ? "\n" : " ") << 0.1 * static_cast<double>(step) << '\n';
        break;
    }
    const auto written = static_cast<std::streamoff>(out.tellp());
    out.seekp(0, std::ios_base::end);
    end = static_cast<std::uint64_t>(static_cast<std::streamoff>(out.tellp()));
    out.seekp(written);
  }
}

void expect_same_as_ofstream(mapout::strategy strategy, std::size_t mapping_size) {
  scratch_directory dir;
  for (unsigned seed = 1; seed <= 3; ++seed) {
    {
      std::ofstream want(dir / "want", std::ios::binary);
      random_writes(want, seed, 300);
      mapout::ostream got(dir / "got", std::ios::binary, with(strategy, mapping_size));
      random_writes(got, seed, 300);
      EXPECT_EQ(static_cast<std::streamoff>(got.tellp()),
                static_cast<std::streamoff>(want.tellp()));
      got.close();
      ASSERT_TRUE(got) << got.error_message();
    }
    ASSERT_EQ(read_file(dir / "got"), read_file(dir / "want")) << "seed " << seed;
  }
}

TEST(WindowsPlatform, BufferWritesTheBytesOfstreamWrites) {
  expect_same_as_ofstream(mapout::strategy::buffered, std::size_t{32} << 20);
}

TEST(WindowsPlatform, MappingWritesTheBytesOfstreamWrites) {
  expect_same_as_ofstream(mapout::strategy::mapped, std::size_t{32} << 20);
}

// Views of one allocation granule, moved along the file and back at each patch.
TEST(WindowsPlatform, SmallestViewsMovedAlongWriteTheBytesOfstreamWrites) {
  expect_same_as_ofstream(mapout::strategy::mapped, 64 << 10);
}

// No fault comes on Windows: each view's mapping object extends the file, its clusters reserved.
TEST(WindowsPlatform, OnFaultExtensionWritesTheBytesOfstreamWrites) {
  scratch_directory dir;
  mapout::options opts = with(mapout::strategy::mapped, 1 << 20);
  opts.extension = mapout::extension::on_fault;
  {
    std::ofstream want(dir / "want", std::ios::binary);
    random_writes(want, 11, 200);
    mapout::ostream got(dir / "got", std::ios::binary, opts);
    random_writes(got, 11, 200);
    got.close();
    ASSERT_TRUE(got) << got.error_message();
  }
  EXPECT_EQ(read_file(dir / "got"), read_file(dir / "want"));
}

TEST(WindowsPlatform, AutomaticWritesTheBytesOfstreamWrites) {
  expect_same_as_ofstream(mapout::strategy::automatic, std::size_t{32} << 20);
}

// A local volume is one automatic has not measured: a stream stays in the buffer, where the
// views lost, however long it runs.
TEST(WindowsPlatform, AutomaticStreamsThroughTheBufferOnALocalVolume) {
  scratch_directory dir;
  mapout::options opts;
  opts.strategy = mapout::strategy::automatic;
  mapout::ostream out(dir / "stream", std::ios::binary, opts);
  ASSERT_TRUE(out.is_open()) << out.error_message();
  const std::string line(100, 'x');
  for (int i = 0; i < 20000; ++i) out << line << '\n';
  EXPECT_FALSE(out.rdbuf()->file().is_mapped());
  out.close();
  EXPECT_TRUE(out) << out.error_message();
}

// The C runtime's text mode would write "\r\n".
TEST(WindowsPlatform, NewlinesAreNotTranslated) {
  scratch_directory dir;
  for (auto strategy : {mapout::strategy::buffered, mapout::strategy::mapped}) {
    {
      mapout::ostream out(dir / "lines", std::ios_base::out, with(strategy));
      out << "a\nb\n\n";
    }
    EXPECT_EQ(read_file(dir / "lines"), "a\nb\n\n");
  }
}

// The mapping's extension is cut at close: nothing of it stays past the last byte.
TEST(WindowsPlatform, MappedFileEndsAtItsLastByte) {
  scratch_directory dir;
  {
    mapout::ostream out(dir / "short", std::ios_base::out, with(mapout::strategy::mapped));
    out << "six b";
    out.close();
    ASSERT_TRUE(out) << out.error_message();
  }
  EXPECT_EQ(fs::file_size(dir / "short"), 5u);
}

TEST(WindowsPlatform, NamesOutsideAsciiOpenThroughUtf16) {
  scratch_directory dir;
  const fs::path name = fs::u8path(u8"donn\u00e9es-\u65e5\u672c-\u0436.txt");
  for (auto strategy : {mapout::strategy::buffered, mapout::strategy::mapped}) {
    {
      mapout::ostream out(dir / name, std::ios_base::out, with(strategy));
      ASSERT_TRUE(out.is_open()) << out.error_message();
      out << "caf\xc3\xa9";
    }
    // Found by the UTF-16 name Windows keeps, and read back by that name.
    EXPECT_TRUE(fs::exists(dir / name));
    EXPECT_EQ(read_file(dir / name), "caf\xc3\xa9");
    mapout::mapped_input in(dir / name);
    ASSERT_TRUE(in.is_open());
    EXPECT_EQ(std::string(in.data(), in.size()), "caf\xc3\xa9");
  }
}

TEST(WindowsPlatform, MappedInputReadsWhatOfstreamWrote) {
  scratch_directory dir;
  std::string bytes;
  std::mt19937 random(7);
  for (int i = 0; i < 200000; ++i) bytes += static_cast<char>(random());
  write_file(dir / "in", bytes);
  mapout::mapped_input in(dir / "in");
  ASSERT_TRUE(in.is_open());
  ASSERT_EQ(in.size(), bytes.size());
  EXPECT_EQ(std::string(in.data(), in.size()), bytes);
}

// Parts not yet in place wait in temporary files deleted with their last handle.
TEST(WindowsPlatform, ParallelPartsJoinInOrderAndLeaveNoTemporary) {
  scratch_directory dir;
  const auto temporaries = [] {
    std::size_t count = 0;
    for (const auto& entry : fs::directory_iterator(fs::temp_directory_path())) {
      count += entry.path().filename().string().rfind("mpo", 0) == 0;
    }
    return count;
  };
  const std::size_t before = temporaries();
  std::string want;
  {
    mapout::parallel_output out(dir / "joined", 4);
    for (std::size_t k = 4; k-- > 0;) {
      for (int line = 0; line < 10000; ++line) out.part(k) << k << ':' << line << '\n';
    }
    for (std::size_t k = 0; k < 4; ++k) {
      for (int line = 0; line < 10000; ++line) {
        want += std::to_string(k) + ':' + std::to_string(line) + '\n';
      }
    }
    ASSERT_FALSE(out.close()) << out.error_message();
  }
  EXPECT_EQ(read_file(dir / "joined"), want);
  EXPECT_EQ(temporaries(), before);
}

TEST(WindowsPlatform, AtomicReplacesTheTargetOnlyAtAGoodClose) {
  scratch_directory dir;
  write_file(dir / "target", "old");
  mapout::options opts;
  opts.atomic = true;
  {
    mapout::ostream out(dir / "target", std::ios_base::out, opts);
    ASSERT_TRUE(out.is_open()) << out.error_message();
    out << "new bytes";
    out.flush();
    EXPECT_EQ(read_file(dir / "target"), "old");
    out.close();
    ASSERT_TRUE(out) << out.error_message();
  }
  EXPECT_EQ(read_file(dir / "target"), "new bytes");
  EXPECT_EQ(dir.entries(), 1u);
}

TEST(WindowsPlatform, AtomicDestructionLeavesTheTargetAndNoTemporary) {
  scratch_directory dir;
  write_file(dir / "target", "old");
  mapout::options opts;
  opts.atomic = true;
  {
    mapout::ostream out(dir / "target", std::ios_base::out, opts);
    out << "never";
    EXPECT_EQ(dir.entries(), 2u);
  }
  EXPECT_EQ(read_file(dir / "target"), "old");
  EXPECT_EQ(dir.entries(), 1u);
}

TEST(WindowsPlatform, WriteIfChangedLeavesEqualBytesAndTheirTimeAlone) {
  scratch_directory dir;
  write_file(dir / "same", "equal bytes");
  fs::last_write_time(dir / "same", fs::file_time_type::clock::now() - std::chrono::hours(48));
  // As the file system keeps it: setting it may round it.
  const auto old_time = fs::last_write_time(dir / "same");
  mapout::options opts;
  opts.write_if_changed = true;
  {
    mapout::ostream out(dir / "same", std::ios_base::out, opts);
    out << "equal bytes";
    out.close();
    ASSERT_TRUE(out) << out.error_message();
  }
  EXPECT_EQ(fs::last_write_time(dir / "same"), old_time);
  {
    mapout::ostream out(dir / "same", std::ios_base::out, opts);
    out << "other bytes";
    out.close();
    ASSERT_TRUE(out) << out.error_message();
  }
  EXPECT_EQ(read_file(dir / "same"), "other bytes");
  EXPECT_NE(fs::last_write_time(dir / "same"), old_time);
  EXPECT_EQ(dir.entries(), 1u);
}

// durable reaches FlushFileBuffers: its failure is close()'s.
TEST(WindowsPlatform, DurableCloseFlushesTheFile) {
  scratch_directory dir;
  auto& calls = mapout::detail::sys();
  const auto real_fdatasync = calls.fdatasync;
  static int flushes;
  flushes = 0;
  calls.fdatasync = [](int) {
    ++flushes;
    errno = EIO;
    return -1;
  };
  mapout::options opts;
  opts.durable = true;
  mapout::ostream out(dir / "durable", std::ios_base::out, opts);
  out << "bytes";
  out.close();
  calls.fdatasync = real_fdatasync;
  EXPECT_FALSE(out);
  EXPECT_GE(flushes, 1);
  EXPECT_NE(out.error_message().find("'"), std::string::npos) << out.error_message();
}

// A handle opened without FILE_SHARE_WRITE and FILE_SHARE_DELETE, as most Windows programs open:
// the output is refused, with Windows' reason, and the target keeps its bytes.
TEST(WindowsPlatform, AtomicOverATargetHeldOpenNamesWindowsError) {
  scratch_directory dir;
  write_file(dir / "held", "old");
  const HANDLE held = CreateFileW((dir / "held").wstring().c_str(), GENERIC_READ, FILE_SHARE_READ,
                                  nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
  ASSERT_NE(held, INVALID_HANDLE_VALUE);
  mapout::options opts;
  opts.atomic = true;
  mapout::ostream out(dir / "held", std::ios_base::out, opts);
  out << "new";
  out.close();
  CloseHandle(held);
  EXPECT_FALSE(out);
  // A sharing violation, as std::ofstream's open meets it: EACCES through the C runtime's mapping.
  EXPECT_EQ(out.rdbuf()->error(), std::errc::permission_denied);
  const std::string message = out.error_message();
  EXPECT_EQ(message.rfind("mapout: ", 0), 0u) << message;
  EXPECT_NE(message.find("held': "), std::string::npos) << message;
  std::cout << message << '\n';
  EXPECT_EQ(read_file(dir / "held"), "old");
  EXPECT_EQ(dir.entries(), 1u);
}

TEST(WindowsPlatform, MissingDirectoryIsEnoentWithWindowsText) {
  scratch_directory dir;
  mapout::ostream out(dir / "no such directory" / "file", std::ios_base::out);
  EXPECT_FALSE(out.is_open());
  EXPECT_EQ(out.rdbuf()->error(), std::errc::no_such_file_or_directory)
      << out.rdbuf()->error().message();
  const std::string message = out.error_message();
  EXPECT_EQ(message.rfind("mapout: open '", 0), 0u) << message;
  // The path as the caller spelled it: fs::path's operator/ puts a backslash between the names.
  EXPECT_NE(message.find("no such directory\\file': "), std::string::npos) << message;
  std::cout << message << '\n';
  std::ofstream reference(dir / "no such directory" / "file");
  EXPECT_FALSE(reference.is_open());
}

TEST(WindowsPlatform, FullDiskIsAnErrorOnEveryStrategy) {
  const char* small = std::getenv("MAPOUT_SMALL_DISK");
  if (small == nullptr) GTEST_SKIP() << "MAPOUT_SMALL_DISK names no directory on a small disk";
  for (auto extension : {mapout::extension::ahead, mapout::extension::on_fault}) {
    for (auto strategy : {mapout::strategy::buffered, mapout::strategy::mapped}) {
      const fs::path path = fs::path(small) / "full";
      // Views larger than the disk: a store into a hole the disk cannot fill would be fatal.
      mapout::options opts = with(strategy);
      opts.extension = extension;
      mapout::ostream out(path, std::ios_base::out, opts);
      // A first view larger than the disk is refused at open; else the writes meet the end.
      const std::string block(1 << 20, 'x');
      for (int i = 0; i < 4096 && out; ++i) out.write(block.data(), block.size());
      out.close();
      EXPECT_FALSE(out);
      EXPECT_EQ(out.rdbuf()->error(), std::errc::no_space_on_device) << out.error_message();
      EXPECT_EQ(out.error_message().rfind("mapout: ", 0), 0u);
      std::cout << out.error_message() << '\n';
      std::error_code ignored;
      fs::remove(path, ignored);
    }
  }
}

}  // namespace
