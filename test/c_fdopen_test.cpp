// mapout_fdopen against glibc's fdopen: which modes a descriptor takes, where writing starts and
// ends, who closes it, and pipes and stdout through the buffer.
#include "mapout/mapout.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>

#include "child_process.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::read_file;
using mapout::test::temp_dir;
using mapout::test::write_file;

mapout_options with_strategy(int strategy) {
  mapout_options opts;
  mapout_options_init(&opts);
  opts.strategy = strategy;
  return opts;
}

// What the test's own open adds to write its bytes as given: Windows' C runtime opens text.
#ifdef _WIN32
constexpr int as_bytes = O_BINARY;
#else
constexpr int as_bytes = 0;
#endif

bool is_open(int fd) {
#ifdef _WIN32
  return ::_get_osfhandle(fd) != -1;
#else
  return ::fcntl(fd, F_GETFD) >= 0;
#endif
}

struct outcome {
  bool opened;
  int error;
};

outcome glibc_fdopen(const std::string& path, int flags, const char* mode) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  errno = 0;
  std::FILE* file = ::fdopen(fd, mode);
  const outcome result{file != nullptr, errno};
  if (file != nullptr) {
    std::fclose(file);
  } else {
    ::close(fd);
  }
  return result;
}

outcome mapout_fdopen_of(const std::string& path, int flags, const char* mode) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  errno = 0;
  mapout_file* file = mapout_fdopen(fd, mode, nullptr);
  const outcome result{file != nullptr, errno};
  if (file != nullptr) {
    EXPECT_EQ(mapout_close(file), 0);
  } else {
    EXPECT_TRUE(is_open(fd)) << "a failed fdopen leaves the descriptor open";
    ::close(fd);
  }
  return result;
}

// Every mode on every access mode: open or refused as the platform's fdopen, with its errno; "r"
// alone differs, and on Windows a read-only descriptor, since mapout only writes.
TEST(CFdopen, ModesFollowGlibcsAccessRules) {
  temp_dir dir;
  const std::string path = (dir / "file").string();
  write_file(path, "old");
  for (const int access : {O_RDONLY, O_WRONLY, O_RDWR}) {
    for (const char* mode :
         {"w", "a", "r+", "w+", "a+", "wx", "we", "wb", "wm", "abc+", "wbbbb+", "q", "", "+w"}) {
      SCOPED_TRACE(std::string(mode) + " on access " + std::to_string(access));
      const outcome theirs = glibc_fdopen(path, access, mode);
      const outcome ours = mapout_fdopen_of(path, access, mode);
#ifdef _WIN32
      // msvcrt's _fdopen takes a read-only descriptor in every mode, for a stream whose every
      // write fails; mapout only writes, and refuses it as glibc's does.
      if (access == O_RDONLY) {
        EXPECT_FALSE(ours.opened);
        EXPECT_EQ(ours.error, EINVAL);
        continue;
      }
#endif
      EXPECT_EQ(ours.opened, theirs.opened);
      if (!theirs.opened) {
        EXPECT_EQ(ours.error, theirs.error);
      }
    }
    const outcome reading = mapout_fdopen_of(path, access, "r");
    EXPECT_FALSE(reading.opened);
    EXPECT_EQ(reading.error, EINVAL);
  }
}

#ifndef _WIN32
TEST(CFdopen, ClosedDescriptorIsEbadfAsInGlibc) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  ::close(ends[0]);
  ::close(ends[1]);
  errno = 0;
  EXPECT_EQ(::fdopen(ends[1], "w"), nullptr);
  EXPECT_EQ(errno, EBADF);
  errno = 0;
  EXPECT_EQ(mapout_fdopen(ends[1], "w", nullptr), nullptr);
  EXPECT_EQ(errno, EBADF);
  errno = 0;
  EXPECT_EQ(mapout_fdopen(-1, "w", nullptr), nullptr);
  EXPECT_EQ(errno, EBADF);
}
#endif  // _WIN32

// "w" truncates nothing: the bytes go at the descriptor's offset and those after them stay, and
// the offset ends after them, on every strategy, as with glibc's fdopen.
TEST(CFdopen, WritesAtTheDescriptorsOffsetAndLeavesItAfterTheBytes) {
  for (const int strategy : {MAPOUT_AUTOMATIC, MAPOUT_MAPPED, MAPOUT_BUFFERED}) {
    SCOPED_TRACE(strategy);
    temp_dir dir;
    const std::string before = std::string(5000, 'o') + "0123456789";
    write_file(dir / "stdio", before);
    write_file(dir / "mapout", before);
    const int theirs_fd = ::open((dir / "stdio").string().c_str(), O_RDWR | O_CLOEXEC);
    const int ours_fd = ::open((dir / "mapout").string().c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(::lseek(theirs_fd, 5004, SEEK_SET), 0);
    ASSERT_GE(::lseek(ours_fd, 5004, SEEK_SET), 0);
    // A second descriptor of the same open file, as a shell's redirection shares one.
    const int theirs_shared = ::dup(theirs_fd);
    const int ours_shared = ::dup(ours_fd);
    std::FILE* theirs = ::fdopen(theirs_fd, "w");
    const mapout_options opts = with_strategy(strategy);
    mapout_file* ours = mapout_fdopen(ours_fd, "w", &opts);
    ASSERT_NE(theirs, nullptr);
    ASSERT_NE(ours, nullptr);
    EXPECT_EQ(mapout_tell(ours), 5004);
    std::fprintf(theirs, "ab%d", 7);
    mapout_printf(ours, "ab%d", 7);
    ASSERT_EQ(std::fclose(theirs), 0);
    ASSERT_EQ(mapout_close(ours), 0);
    EXPECT_FALSE(is_open(ours_fd)) << "mapout_close closes the descriptor, as fclose";
    EXPECT_EQ(::lseek(ours_shared, 0, SEEK_CUR), ::lseek(theirs_shared, 0, SEEK_CUR));
    ASSERT_EQ(::write(theirs_shared, "|", 1), 1);
    ASSERT_EQ(::write(ours_shared, "|", 1), 1);
    ::close(theirs_shared);
    ::close(ours_shared);
    EXPECT_EQ(read_file(dir / "mapout"), read_file(dir / "stdio"));
  }
}

// "a" sets O_APPEND on the descriptor and starts at the end; "a+" sets it without moving.
// F_GETFL: Windows's C library keeps no O_APPEND that fcntl could show.
#ifndef _WIN32
TEST(CFdopen, AppendSetsOAppendAsGlibcDoes) {
  for (const char* mode : {"a", "a+"}) {
    SCOPED_TRACE(mode);
    temp_dir dir;
    write_file(dir / "stdio", "old bytes");
    write_file(dir / "mapout", "old bytes");
    const int theirs_fd = ::open((dir / "stdio").string().c_str(), O_RDWR | O_CLOEXEC);
    const int ours_fd = ::open((dir / "mapout").string().c_str(), O_RDWR | O_CLOEXEC);
    std::FILE* theirs = ::fdopen(theirs_fd, mode);
    mapout_file* ours = mapout_fdopen(ours_fd, mode, nullptr);
    ASSERT_NE(theirs, nullptr);
    ASSERT_NE(ours, nullptr);
    EXPECT_EQ(::fcntl(ours_fd, F_GETFL) & O_APPEND, ::fcntl(theirs_fd, F_GETFL) & O_APPEND);
    EXPECT_EQ(::lseek(ours_fd, 0, SEEK_CUR), ::lseek(theirs_fd, 0, SEEK_CUR));
    std::fputs(" new", theirs);
    mapout_puts(" new", ours);
    ASSERT_EQ(std::fclose(theirs), 0);
    ASSERT_EQ(mapout_close(ours), 0);
    EXPECT_EQ(read_file(dir / "mapout"), read_file(dir / "stdio"));
  }
}
#endif  // _WIN32

// A descriptor opened O_APPEND keeps appending in "w" (glibc does not clear the flag), even
// where another writer extended the file meanwhile.
TEST(CFdopen, AppendingDescriptorAppendsInModeW) {
  temp_dir dir;
  write_file(dir / "log", "first\n");
  const int fd = ::open((dir / "log").string().c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | as_bytes);
  mapout_file* out = mapout_fdopen(fd, "w", nullptr);
  ASSERT_NE(out, nullptr);
  mapout_puts("second\n", out);
  ASSERT_EQ(mapout_flush(out), 0);
  const int other =
      ::open((dir / "log").string().c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | as_bytes);
  ASSERT_EQ(::write(other, "other\n", 6), 6);
  ::close(other);
  mapout_puts("third\n", out);
  ASSERT_EQ(mapout_close(out), 0);
  EXPECT_EQ(read_file(dir / "log"), "first\nsecond\nother\nthird\n");
}

// A tool run as `tool > log` that flushes before system() or fork(): the flush writes the buffer
// out, so the child's bytes, written through the same open file, come after it, as with glibc's
// fflush. An O_WRONLY descriptor (a shell's '>'), in a file holding bytes and in an empty one,
// and an O_RDWR one on the buffer: the file's size and bytes after the flush, the bytes at close
// and the offset left are glibc's.
TEST(CFdopen, FlushWritesTheBufferBeforeAnotherWriterOfTheDescriptor) {
  struct scenario {
    int access;
    int strategy;
    const char* before;
    off_t offset;
    const char* after;
  };
  for (const scenario& s : {scenario{O_WRONLY, MAPOUT_AUTOMATIC, "0123456789", 3, "012AB#CD89"},
                            scenario{O_WRONLY, MAPOUT_AUTOMATIC, "", 0, "AB#CD"},
                            scenario{O_WRONLY, MAPOUT_BUFFERED, "0123456789", 3, "012AB#CD89"},
                            scenario{O_RDWR, MAPOUT_BUFFERED, "0123456789", 3, "012AB#CD89"}}) {
    SCOPED_TRACE(std::string(s.access == O_WRONLY ? "O_WRONLY " : "O_RDWR ") + s.before);
    temp_dir dir;
    write_file(dir / "stdio", s.before);
    write_file(dir / "mapout", s.before);
    const int theirs_fd = ::open((dir / "stdio").string().c_str(), s.access | O_CLOEXEC | as_bytes);
    const int ours_fd = ::open((dir / "mapout").string().c_str(), s.access | O_CLOEXEC | as_bytes);
    ASSERT_EQ(::lseek(theirs_fd, s.offset, SEEK_SET), s.offset);
    ASSERT_EQ(::lseek(ours_fd, s.offset, SEEK_SET), s.offset);
    // The child's descriptor: the same open file, so the same offset.
    const int theirs_child = ::dup(theirs_fd);
    const int ours_child = ::dup(ours_fd);
    std::FILE* theirs = ::fdopen(theirs_fd, "w");
    const mapout_options opts = with_strategy(s.strategy);
    mapout_file* ours = mapout_fdopen(ours_fd, "w", &opts);
    ASSERT_NE(theirs, nullptr);
    ASSERT_NE(ours, nullptr);
    std::fputs("AB", theirs);
    mapout_puts("AB", ours);
    ASSERT_EQ(std::fflush(theirs), 0);
    ASSERT_EQ(mapout_flush(ours), 0);
    struct stat theirs_flushed;
    struct stat ours_flushed;
    ASSERT_EQ(::fstat(theirs_child, &theirs_flushed), 0);
    ASSERT_EQ(::fstat(ours_child, &ours_flushed), 0);
    EXPECT_EQ(ours_flushed.st_size, theirs_flushed.st_size);
    EXPECT_EQ(read_file(dir / "mapout"), read_file(dir / "stdio"));
    ASSERT_EQ(::write(theirs_child, "#", 1), 1);
    ASSERT_EQ(::write(ours_child, "#", 1), 1);
    std::fputs("CD", theirs);
    mapout_puts("CD", ours);
    ASSERT_EQ(std::fclose(theirs), 0);
    ASSERT_EQ(mapout_close(ours), 0);
    EXPECT_EQ(::lseek(ours_child, 0, SEEK_CUR), ::lseek(theirs_child, 0, SEEK_CUR));
    ::close(theirs_child);
    ::close(ours_child);
    EXPECT_EQ(read_file(dir / "stdio"), s.after);
    EXPECT_EQ(read_file(dir / "mapout"), read_file(dir / "stdio"));
  }
}

#ifndef _WIN32
// A pipe takes the buffer: nothing reaches the reader before mapout_flush, all of it after.
TEST(CFdopen, PipeTakesTheBufferAndFlushWritesIt) {
  int ends[2];
  ASSERT_EQ(::pipe2(ends, O_CLOEXEC), 0);
  ASSERT_EQ(::fcntl(ends[0], F_SETFL, O_NONBLOCK), 0);
  const mapout_options opts = with_strategy(MAPOUT_MAPPED);
  errno = 0;
  EXPECT_EQ(mapout_fdopen(ends[1], "w", &opts), nullptr) << "a pipe cannot be mapped";
  EXPECT_EQ(errno, ENODEV);
  mapout_file* out = mapout_fdopen(ends[1], "w", nullptr);
  ASSERT_NE(out, nullptr);
  ASSERT_EQ(mapout_printf(out, "%s %d\n", "line", 1), 7);
  char got[64];
  EXPECT_EQ(::read(ends[0], got, sizeof got), -1);
  EXPECT_EQ(errno, EAGAIN);
  ASSERT_EQ(mapout_flush(out), 0);
  ASSERT_EQ(::read(ends[0], got, sizeof got), 7);
  EXPECT_EQ(std::string(got, 7), "line 1\n");
  ASSERT_EQ(mapout_close(out), 0);
  EXPECT_EQ(::read(ends[0], got, sizeof got), 0) << "the write end is closed";
  ::close(ends[0]);
}

// A process's stdout, a pipe here, written through mapout_fdopen(1) as fdopen(1) would.
TEST(CFdopen, StdoutOfAChildProcess) {
  int ends[2];
  ASSERT_EQ(::pipe2(ends, O_CLOEXEC), 0);
  const pid_t child = mapout::test::spawn([&] {
    ::close(ends[0]);
    if (::dup2(ends[1], STDOUT_FILENO) < 0) return 2;
    mapout_file* out = mapout_fdopen(STDOUT_FILENO, "w", nullptr);
    if (out == nullptr) return 3;
    for (int i = 0; i < 10000; ++i) mapout_printf(out, "%05d,%.2f\n", i, i / 4.0);
    return mapout_close(out) == 0 ? 0 : 4;
  });
  ::close(ends[1]);
  std::string got;
  char chunk[4096];
  for (ssize_t n; (n = ::read(ends[0], chunk, sizeof chunk)) > 0;) got.append(chunk, n);
  ::close(ends[0]);
  EXPECT_EQ(mapout::test::wait_for(child), 0);
  std::string expected;
  char line[32];
  for (int i = 0; i < 10000; ++i) {
    std::snprintf(line, sizeof line, "%05d,%.2f\n", i, i / 4.0);
    expected += line;
  }
  EXPECT_TRUE(got == expected);
}
#endif  // _WIN32

// A descriptor has no path to replace; the descriptor stays the caller's.
TEST(CFdopen, ReplacingOptionsAreRefusedAndLeaveTheDescriptor) {
  temp_dir dir;
  const int fd = ::open((dir / "out").string().c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  for (const int which : {0, 1}) {
    mapout_options opts;
    mapout_options_init(&opts);
    (which == 0 ? opts.atomic : opts.write_if_changed) = 1;
    errno = 0;
    EXPECT_EQ(mapout_fdopen(fd, "w", &opts), nullptr);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_TRUE(is_open(fd));
  }
  mapout_options bad;
  mapout_options_init(&bad);
  bad.strategy = 7;
  errno = 0;
  EXPECT_EQ(mapout_fdopen(fd, "w", &bad), nullptr);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_TRUE(is_open(fd));
  ::close(fd);
}

#ifndef _WIN32
// The message names the descriptor, for a failure with no path to name.
TEST(CFdopen, ErrorMessageNamesTheDescriptor) {
  int ends[2];
  ASSERT_EQ(::pipe2(ends, O_CLOEXEC), 0);
  ::close(ends[0]);
  const sighandler_t old = std::signal(SIGPIPE, SIG_IGN);
  mapout_file* out = mapout_fdopen(ends[1], "w", nullptr);
  ASSERT_NE(out, nullptr);
  mapout_puts("lost", out);
  EXPECT_EQ(mapout_flush(out), -1);
  EXPECT_EQ(errno, EPIPE);
  EXPECT_EQ(std::string(mapout_error(out)),
            "mapout: write '/dev/fd/" + std::to_string(ends[1]) + "': " + std::strerror(EPIPE));
  EXPECT_EQ(mapout_close(out), -1);
  std::signal(SIGPIPE, old);
}
#endif  // _WIN32

}  // namespace
