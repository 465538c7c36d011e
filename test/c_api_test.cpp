// mapout.h: the same bytes as stdio for every mode string, and errno after every failing call.
#include "mapout/mapout.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "c_api_calls.h"
#include "platform/sys.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::read_file;
using mapout::test::temp_dir;
using mapout::test::write_file;

struct strategy_case {
  const char* name;
  int strategy;
  int extension = MAPOUT_EXTEND_AHEAD;
};

// Small windows, so that a few hundred calls cross many of them and move the mapping.
mapout_options options_for(int strategy, int extension = MAPOUT_EXTEND_AHEAD) {
  mapout_options opts;
  mapout_options_init(&opts);
  opts.strategy = strategy;
  opts.extension = extension;
  opts.mapping_size = 16 << 10;
  opts.buffer_size = 4 << 10;
  return opts;
}

std::string bytes_from(unsigned seed, std::size_t size) {
  std::string bytes(size, '\0');
  std::uint32_t x = seed | 1;
  for (char& c : bytes) {
    x = x * 1103515245u + 12345u;
    c = static_cast<char>(x >> 24);
  }
  return bytes;
}

TEST(CApi, RandomCallsMatchStdioInEveryMode) {
  const std::vector<std::string> modes = {"w",  "wb", "w+",  "w+b", "a",  "ab",
                                          "a+", "r+", "r+b", "wx",  "w+x"};
  const std::vector<strategy_case> strategies = {
      {"automatic", MAPOUT_AUTOMATIC},
      {"mapped", MAPOUT_MAPPED},
      {"mapped, on_sigbus", MAPOUT_MAPPED, MAPOUT_EXTEND_ON_SIGBUS},
      {"buffered", MAPOUT_BUFFERED}};
  for (const std::string& mode : modes) {
    for (const strategy_case& strategy : strategies) {
      // Appending always takes the buffer: every write must land at the end.
      if (mode[0] == 'a' && strategy.strategy == MAPOUT_MAPPED) continue;
      for (unsigned seed = 1; seed <= 3; ++seed) {
        SCOPED_TRACE(mode + " " + strategy.name + " seed " + std::to_string(seed));
        temp_dir dir;
        const std::string ours = (dir / "mapout").string();
        const std::string theirs = (dir / "stdio").string();
        if (mode.find('x') == std::string::npos) {
          const std::string before = bytes_from(seed, seed == 1 ? 0 : 3000 * seed);
          write_file(ours, before);
          write_file(theirs, before);
        }
        const mapout_options opts = options_for(strategy.strategy, strategy.extension);
        char why[256] = "";
        EXPECT_EQ(write_alike(ours.c_str(), theirs.c_str(), mode.c_str(), &opts, seed, 400, why,
                              sizeof why),
                  0)
            << why;
        const std::string expected = read_file(theirs);
        const std::string got = read_file(ours);
        ASSERT_EQ(got.size(), expected.size());
        EXPECT_TRUE(got == expected);
      }
    }
  }
}

TEST(CApi, InlinePutcAndShortWritesCrossEveryWindow) {
  temp_dir dir;
  const mapout_options opts = options_for(MAPOUT_MAPPED);
  mapout_file* out = mapout_open((dir / "out").string().c_str(), "w", &opts);
  ASSERT_NE(out, nullptr);
  std::string expected;
  for (int i = 0; i < 100000; ++i) {
    const char c = static_cast<char>('a' + i % 26);
    ASSERT_EQ(mapout_putc(c, out), c);
    ASSERT_EQ(mapout_write("xyz", 1, 3, out), 3u);
    expected += c;
    expected += "xyz";
  }
  ASSERT_EQ(mapout_close(out), 0);
  EXPECT_TRUE(read_file(dir / "out") == expected);
}

// What a reader in another process sees: nothing beyond the bytes written, after publish as
// after close, while writing goes on in between.
TEST(CApi, PublishAndPersistLeaveExactlyTheBytesWritten) {
  temp_dir dir;
  const mapout_options opts = options_for(MAPOUT_MAPPED);
  mapout_file* out = mapout_open((dir / "out").string().c_str(), "w", &opts);
  ASSERT_NE(out, nullptr);
  const std::string first = bytes_from(7, 50000);
  ASSERT_EQ(mapout_write(first.data(), 1, first.size(), out), first.size());
  ASSERT_EQ(mapout_publish(out), 0);
  EXPECT_TRUE(read_file(dir / "out") == first);
  ASSERT_EQ(mapout_puts("tail", out), 0);
  ASSERT_EQ(mapout_persist(out), 0);
  EXPECT_TRUE(read_file(dir / "out") == first + "tail");
  ASSERT_EQ(mapout_close(out), 0);
  EXPECT_TRUE(read_file(dir / "out") == first + "tail");
}

// With flush_publishes, another reader sees each line and the size after mapout_flush, as after
// fflush, in every strategy.
TEST(CApi, FlushPublishesShowsEachFlushedLineToAReader) {
  for (const int strategy : {MAPOUT_AUTOMATIC, MAPOUT_MAPPED, MAPOUT_BUFFERED}) {
    SCOPED_TRACE(strategy);
    temp_dir dir;
    mapout_options opts = options_for(strategy);
    opts.flush_publishes = 1;
    mapout_file* out = mapout_open((dir / "log").string().c_str(), "w", &opts);
    ASSERT_NE(out, nullptr);
    std::string expected;
    for (int i = 0; i < 300; ++i) {
      const std::string line = "line " + std::to_string(i) + ' ' + bytes_from(i, i % 97) + '\n';
      ASSERT_EQ(mapout_write(line.data(), 1, line.size(), out), line.size());
      ASSERT_EQ(mapout_flush(out), 0) << mapout_error(out);
      expected += line;
      ASSERT_EQ(std::filesystem::file_size(dir / "log"), expected.size()) << "after line " << i;
      ASSERT_TRUE(read_file(dir / "log") == expected) << "after line " << i;
    }
    ASSERT_EQ(mapout_close(out), 0);
    EXPECT_TRUE(read_file(dir / "log") == expected);
  }
}

// publish_every_ms spaces the publishes of mapout_flush: the lines in between wait in the tail
// file, until mapout_publish or mapout_close. A negative one is EINVAL.
TEST(CApi, PublishEveryMsSpacesThePublishesOfFlush) {
  temp_dir dir;
  const std::string path = (dir / "log").string();
  mapout_options opts;
  mapout_options_init(&opts);
  EXPECT_EQ(opts.publish_every_ms, 0);
  opts.flush_publishes = 1;
  opts.publish_every_ms = -1;
  errno = 0;
  EXPECT_EQ(mapout_open(path.c_str(), "a", &opts), nullptr);
  EXPECT_EQ(errno, EINVAL);
  opts.publish_every_ms = 3600000;
  mapout_file* out = mapout_open(path.c_str(), "a", &opts);
  ASSERT_NE(out, nullptr);
  ASSERT_EQ(mapout_puts("first\n", out), 0);
  ASSERT_EQ(mapout_flush(out), 0);
  EXPECT_TRUE(read_file(dir / "log") == "first\n");
  ASSERT_EQ(mapout_puts("second\n", out), 0);
  ASSERT_EQ(mapout_flush(out), 0);
  EXPECT_TRUE(read_file(dir / "log") == "first\n");
  ASSERT_EQ(mapout_publish(out), 0);
  EXPECT_TRUE(read_file(dir / "log") == "first\nsecond\n");
  ASSERT_EQ(mapout_close(out), 0);
}

TEST(CApi, OpenRefusesModesThatAreNotWritingWithEinval) {
  temp_dir dir;
  const std::string path = (dir / "out").string();
  // What glibc opens for reading only ("rw": it ignores the 'w'), or refuses.
  for (const char* mode : {"", "r", "rb", "rw", "rbx", "+w", "xw", "br+"}) {
    SCOPED_TRACE(mode);
    errno = 0;
    EXPECT_EQ(mapout_open(path.c_str(), mode, nullptr), nullptr);
    EXPECT_EQ(errno, EINVAL);
  }
  mapout_options opts;
  mapout_options_init(&opts);
  opts.strategy = 7;
  errno = 0;
  EXPECT_EQ(mapout_open(path.c_str(), "w", &opts), nullptr);
  EXPECT_EQ(errno, EINVAL);
}

// glibc reads '+' and 'x' among the six letters after the first, ignores the others, and stops at
// ',': each such mode writes what fopen writes.
TEST(CApi, ModeStringsGlibcAcceptsWriteWhatFopenWrites) {
  temp_dir dir;
  int case_number = 0;
  for (const char* mode :
       {"wm", "wz", "wbe", "wmce", "wq+", "ax", "a+xb", "r+x", "wbbbbbb+", "w+,x"}) {
    SCOPED_TRACE(mode);
    const std::string theirs = (dir / ("stdio" + std::to_string(case_number))).string();
    const std::string ours = (dir / ("mapout" + std::to_string(case_number++))).string();
    if (mode[0] == 'r') {
      write_file(theirs, "old bytes");
      write_file(ours, "old bytes");
    }
    errno = 0;
    std::FILE* expected = std::fopen(theirs.c_str(), mode);
    const int their_errno = errno;
    errno = 0;
    mapout_file* out = mapout_open(ours.c_str(), mode, nullptr);
    if (expected == nullptr) {
      // msvcrt's fopen reads what follows a ',' as ",ccs=": mapout refuses what it refuses.
#ifndef _WIN32
      ADD_FAILURE() << "glibc's fopen opens each of these";
#endif
      EXPECT_EQ(out, nullptr);
      EXPECT_EQ(errno, their_errno);
      if (out != nullptr) mapout_close(out);
      continue;
    }
    ASSERT_GE(std::fputs("new", expected), 0);
    std::fclose(expected);
    ASSERT_NE(out, nullptr) << std::strerror(errno);
    ASSERT_EQ(mapout_puts("new", out), 0);
    ASSERT_EQ(mapout_close(out), 0);
    EXPECT_EQ(read_file(ours), read_file(theirs));
  }
  // ",ccs=" makes glibc's stream one of wide characters (and its iconv state outlives fclose, which
  // LeakSanitizer reports): mapout's bytes are what fputws of the same text writes in UTF-8.
  const std::string path = (dir / "ccs").string();
  mapout_file* out = mapout_open(path.c_str(), "w,ccs=UTF-8", nullptr);
  ASSERT_NE(out, nullptr) << std::strerror(errno);
  ASSERT_EQ(mapout_puts("new", out), 0);
  ASSERT_EQ(mapout_close(out), 0);
  EXPECT_EQ(read_file(path), "new");
}

TEST(CApi, SuccessfulOpenLeavesErrnoAsItWas) {
  temp_dir dir;
  mapout_options replacing;
  mapout_options_init(&replacing);
  replacing.atomic = 1;
  replacing.write_if_changed = 1;
  int case_number = 0;
  for (const mapout_options* opts : {static_cast<const mapout_options*>(nullptr),
                                     static_cast<const mapout_options*>(&replacing)}) {
    for (const char* mode : {"w", "wx", "a"}) {
      SCOPED_TRACE(mode);
      if (opts != nullptr && mode[0] == 'a') continue;
      const std::string path = (dir / ("new" + std::to_string(case_number++))).string();
      errno = EDOM;
      mapout_file* out = mapout_open(path.c_str(), mode, opts);
      EXPECT_EQ(errno, EDOM);
      ASSERT_NE(out, nullptr);
      EXPECT_EQ(mapout_close(out), 0);
    }
  }
}

// "x" with atomic creates the file and publishes at close; an open that fails after creating the
// file removes it, so that a retry does not meet EEXIST.
TEST(CApi, ExclusiveOpenThatFailsLeavesNoFileItCreated) {
  temp_dir dir;
  const std::string path = (dir / "made").string();
  mapout_options opts;
  mapout_options_init(&opts);
  opts.atomic = 1;
  errno = 0;
  EXPECT_EQ(mapout_open(path.c_str(), "ax", &opts), nullptr);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_NE(::access(path.c_str(), F_OK), 0);

  mapout::detail::sys().openat = [](int, const char*, int, mode_t) {
    errno = EACCES;
    return -1;
  };
  errno = 0;
  mapout_file* refused = mapout_open(path.c_str(), "wx", &opts);
  const int refused_errno = errno;
  mapout::detail::sys() = mapout::detail::real_system_calls();
  EXPECT_EQ(refused, nullptr);
  EXPECT_EQ(refused_errno, EACCES);
  EXPECT_NE(::access(path.c_str(), F_OK), 0);

  for (int write_if_changed : {0, 1}) {
    opts.write_if_changed = write_if_changed;
    mapout_file* out = mapout_open(path.c_str(), "wx", &opts);
    ASSERT_NE(out, nullptr) << std::strerror(errno);
    ASSERT_EQ(mapout_puts("new", out), 0);
    ASSERT_EQ(mapout_close(out), 0);
    EXPECT_EQ(read_file(path), "new");
    ASSERT_EQ(::unlink(path.c_str()), 0);
  }
}

TEST(CApi, OpenFailuresSetErrnoAsFopenDoes) {
  temp_dir dir;
  const std::string missing = (dir / "missing").string();
  errno = 0;
  EXPECT_EQ(mapout_open((dir / "no" / "such").string().c_str(), "w", nullptr), nullptr);
  EXPECT_EQ(errno, ENOENT);
  errno = 0;
  EXPECT_EQ(mapout_open(missing.c_str(), "r+", nullptr), nullptr);
  EXPECT_EQ(errno, ENOENT);
  // A directory: EISDIR from glibc's fopen, EACCES from msvcrt's.
  errno = 0;
  std::FILE* directory = std::fopen(dir.path().string().c_str(), "w");
  const int fopen_errno = errno;
  ASSERT_EQ(directory, nullptr);
#ifndef _WIN32
  EXPECT_EQ(fopen_errno, EISDIR);
#endif
  errno = 0;
  EXPECT_EQ(mapout_open(dir.path().string().c_str(), "w", nullptr), nullptr);
  EXPECT_EQ(errno, fopen_errno);

  mapout_options opts;
  mapout_options_init(&opts);
  opts.strategy = MAPOUT_MAPPED;
  errno = 0;
  EXPECT_EQ(mapout_open("/dev/null", "w", &opts), nullptr);
  EXPECT_EQ(errno, ENODEV);
}

TEST(CApi, ExclusiveModeRefusesAnExistingFileAndLeavesIt) {
  temp_dir dir;
  const std::string path = (dir / "kept").string();
  write_file(path, "kept");
  for (const char* mode : {"wx", "w+x", "wbx"}) {
    errno = 0;
    EXPECT_EQ(mapout_open(path.c_str(), mode, nullptr), nullptr);
    EXPECT_EQ(errno, EEXIST);
  }
  EXPECT_EQ(read_file(path), "kept");
  mapout_file* fresh = mapout_open((dir / "fresh").string().c_str(), "wx", nullptr);
  ASSERT_NE(fresh, nullptr);
  EXPECT_EQ(mapout_puts("new", fresh), 0);
  EXPECT_EQ(mapout_close(fresh), 0);
  EXPECT_EQ(read_file(dir / "fresh"), "new");
}

// The open and close entries of the system-call table for the test below: another process puts
// its own file in place just after mapout created the path and closed what it created (Windows
// renames over no open file).
std::string created_path;
int created_descriptor = -1;

int note_created(const char* path, int flags, mode_t mode) {
  const int fd = mapout::detail::real_system_calls().open(path, flags, mode);
  if (fd >= 0 && (flags & O_EXCL) != 0) {
    created_path = path;
    created_descriptor = fd;
  }
  return fd;
}

int close_then_replace(int fd) {
  const int closed = mapout::detail::real_system_calls().close(fd);
  if (fd == created_descriptor) {
    created_descriptor = -1;
    const std::string theirs = created_path + ".theirs";
    write_file(theirs, "theirs");
    // Over the existing name, as rename(2) does: Windows' std::rename refuses to.
    std::filesystem::rename(theirs, created_path);
  }
  return closed;
}

TEST(CApi, ExclusiveModeFailsAndLeavesTheFileWhenItIsReplacedBeforeTheReopen) {
  temp_dir dir;
  const std::string path = (dir / "raced").string();
  mapout::detail::sys().open = note_created;
  mapout::detail::sys().close = close_then_replace;
  errno = 0;
  mapout_file* out = mapout_open(path.c_str(), "wx", nullptr);
  const int open_errno = errno;
  mapout::detail::sys() = mapout::detail::real_system_calls();
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(open_errno, EEXIST);
  EXPECT_EQ(read_file(path), "theirs");
}

// /dev/full takes the buffer and fails every write(2) with ENOSPC.
TEST(CApi, FullDeviceFailsPutcWriteFlushAndCloseWithEnospc) {
  mapout_options opts = options_for(MAPOUT_AUTOMATIC);
  mapout_file* out = mapout_open("/dev/full", "w", &opts);
  ASSERT_NE(out, nullptr);
  EXPECT_STREQ(mapout_error(out), "");
  EXPECT_EQ(mapout_puts("line\n", out), 0);
  errno = 0;
  EXPECT_EQ(mapout_flush(out), -1);
  EXPECT_EQ(errno, ENOSPC);
  EXPECT_EQ(std::string(mapout_error(out)).rfind("mapout: write '/dev/full': ", 0), 0u)
      << mapout_error(out);
  const char* first_message = mapout_error(out);
  // Sticky: the inline paths now call the library, which reports the same failure.
  errno = 0;
  EXPECT_EQ(mapout_putc('x', out), -1);
  EXPECT_EQ(errno, ENOSPC);
  errno = 0;
  EXPECT_EQ(mapout_write("abc", 1, 3, out), 0u);
  EXPECT_EQ(errno, ENOSPC);
  errno = 0;
  EXPECT_EQ(mapout_puts("abc", out), -1);
  EXPECT_EQ(errno, ENOSPC);
  errno = 0;
  EXPECT_EQ(mapout_publish(out), -1);
  EXPECT_EQ(errno, ENOSPC);
  EXPECT_EQ(mapout_error(out), first_message);
  errno = 0;
  EXPECT_EQ(mapout_close(out), -1);
  EXPECT_EQ(errno, ENOSPC);
}

#ifndef _WIN32
TEST(CApi, SeekAndTellOnAPipeFailWithEspipeAndWritingGoesOn) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  const std::string path = "/proc/self/fd/" + std::to_string(ends[1]);
  mapout_file* out = mapout_open(path.c_str(), "w", nullptr);
  ASSERT_NE(out, nullptr);
  ::close(ends[1]);
  EXPECT_EQ(mapout_puts("before ", out), 0);
  errno = 0;
  EXPECT_EQ(mapout_tell(out), -1);
  EXPECT_EQ(errno, ESPIPE);
  errno = 0;
  EXPECT_EQ(mapout_seek(out, 0, SEEK_SET), -1);
  EXPECT_EQ(errno, ESPIPE);
  EXPECT_EQ(std::string(mapout_error(out)).rfind("mapout: tell '", 0), 0u) << mapout_error(out);
  EXPECT_EQ(mapout_puts("after\n", out), 0);
  EXPECT_EQ(mapout_close(out), 0);
  char got[64] = {};
  EXPECT_EQ(::read(ends[0], got, sizeof got - 1), 13);
  EXPECT_STREQ(got, "before after\n");
  ::close(ends[0]);
}
#endif  // _WIN32

TEST(CApi, BadSeeksFailWithEinvalAndAreNotSticky) {
  temp_dir dir;
  mapout_file* out = mapout_open((dir / "out").string().c_str(), "w", nullptr);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(mapout_puts("abc", out), 0);
  errno = 0;
  EXPECT_EQ(mapout_seek(out, 0, 42), -1);
  EXPECT_EQ(errno, EINVAL);
  errno = 0;
  EXPECT_EQ(mapout_seek(out, -10, SEEK_CUR), -1);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_EQ(mapout_tell(out), 3);
  EXPECT_EQ(mapout_puts("def", out), 0);
  EXPECT_EQ(mapout_close(out), 0);
  EXPECT_EQ(read_file(dir / "out"), "abcdef");
}

TEST(CApi, WriteWhoseSizeOverflowsFailsWithEoverflow) {
  temp_dir dir;
  mapout_file* out = mapout_open((dir / "out").string().c_str(), "w", nullptr);
  ASSERT_NE(out, nullptr);
  errno = 0;
  EXPECT_EQ(mapout_write("ab", SIZE_MAX / 2, 3, out), 0u);
  EXPECT_EQ(errno, EOVERFLOW);
  EXPECT_EQ(mapout_write("ab", 0, 3, out), 0u);
  EXPECT_EQ(mapout_write("ab", 1, 2, out), 2u);
  EXPECT_EQ(mapout_close(out), 0);
  EXPECT_EQ(read_file(dir / "out"), "ab");
}

#ifndef _WIN32
TEST(CApi, FileSizeLimitFailsTheWriteAndCloseWithEfbig) {
  temp_dir dir;
  const std::string path = (dir / "limited").string();
  rlimit saved;
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  const auto saved_handler = std::signal(SIGXFSZ, SIG_IGN);
  const rlimit limited = {1 << 20, saved.rlim_max};
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limited), 0);
  mapout_file* out = mapout_open(path.c_str(), "w", nullptr);
  const std::string block(1 << 16, 'x');
  std::size_t blocks = 0;
  int write_errno = 0;
  if (out != nullptr) {
    for (; blocks < 64; ++blocks) {
      errno = 0;
      if (mapout_write(block.data(), 1, block.size(), out) != block.size()) {
        write_errno = errno;
        break;
      }
    }
  }
  errno = 0;
  const int closed = out != nullptr ? mapout_close(out) : 0;
  const int close_errno = errno;
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, saved_handler);
  ASSERT_NE(out, nullptr);
  EXPECT_LT(blocks, 64u);
  EXPECT_EQ(write_errno, EFBIG);
  EXPECT_EQ(closed, -1);
  EXPECT_EQ(close_errno, EFBIG);
}

TEST(CApi, FilenoIsTheOpenFilesDescriptor) {
  temp_dir dir;
  const std::string path = (dir / "out").string();
  mapout_file* out = mapout_open(path.c_str(), "w", nullptr);
  ASSERT_NE(out, nullptr);
  struct stat by_descriptor;
  struct stat by_path;
  ASSERT_EQ(::fstat(mapout_fileno(out), &by_descriptor), 0);
  ASSERT_EQ(::stat(path.c_str(), &by_path), 0);
  EXPECT_EQ(by_descriptor.st_ino, by_path.st_ino);
  EXPECT_EQ(::fchmod(mapout_fileno(out), 0600), 0);
  EXPECT_EQ(mapout_close(out), 0);
  ASSERT_EQ(::stat(path.c_str(), &by_path), 0);
  EXPECT_EQ(by_path.st_mode & 0777, 0600u);
}
#endif  // _WIN32

}  // namespace

namespace {

TEST(CApi, AtomicPublishesOnCloseAndDiscardLeavesTheOldFile) {
  temp_dir dir;
  const std::string path = (dir / "out").string();
  write_file(dir / "out", "old");
  mapout_options opts;
  mapout_options_init(&opts);
  EXPECT_EQ(opts.atomic, 0);
  EXPECT_EQ(opts.write_if_changed, 0);
  EXPECT_EQ(opts.durable, 0);
  opts.atomic = 1;
  opts.durable = 1;
  mapout_file* dropped = mapout_open(path.c_str(), "w", &opts);
  ASSERT_NE(dropped, nullptr);
  mapout_puts("dropped", dropped);
  EXPECT_EQ(mapout_discard(dropped), 0);
  EXPECT_EQ(read_file(dir / "out"), "old");
  mapout_file* file = mapout_open(path.c_str(), "w", &opts);
  ASSERT_NE(file, nullptr);
  mapout_puts("new", file);
  EXPECT_EQ(read_file(dir / "out"), "old");
  EXPECT_EQ(mapout_close(file), 0);
  EXPECT_EQ(read_file(dir / "out"), "new");
  errno = 0;
  EXPECT_EQ(mapout_open(path.c_str(), "a", &opts), nullptr);
  EXPECT_EQ(errno, EINVAL);
}

TEST(CApi, WriteIfChangedKeepsAnUnchangedFile) {
  temp_dir dir;
  const std::string path = (dir / "out").string();
  write_file(dir / "out", "same bytes");
  struct stat before;
  ASSERT_EQ(::stat(path.c_str(), &before), 0);
  const auto written_before = std::filesystem::last_write_time(dir / "out");
  mapout_options opts;
  mapout_options_init(&opts);
  opts.write_if_changed = 1;
  mapout_file* file = mapout_open(path.c_str(), "w", &opts);
  ASSERT_NE(file, nullptr);
  mapout_puts("same bytes", file);
  EXPECT_EQ(mapout_close(file), 0);
  struct stat after;
  ASSERT_EQ(::stat(path.c_str(), &after), 0);
  // Windows has no inode numbers in struct stat (st_ino is 0): the time alone says it there.
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_TRUE(std::filesystem::last_write_time(dir / "out") == written_before);
}

}  // namespace
