// mapout.h misused: null arguments, modes that are not writing, character sets, mapout_flush(NULL)
// over many files, and writes after a failure; each compared with what glibc's stdio does.
#include "mapout/mapout.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <string>

#include "platform/sys.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::read_file;
using mapout::test::temp_dir;

// Off the inline path every call refuses a NULL file or string with EINVAL, where stdio crashes.
TEST(CApiMisuse, NullArgumentsAreRefusedWithEinval) {
  temp_dir dir;
  const auto refused = [](auto result) {
    const int error = errno;
    errno = 0;
    return result == -1 && error == EINVAL;
  };
  errno = 0;
  EXPECT_EQ(mapout_open(nullptr, "w", nullptr), nullptr);
  EXPECT_EQ(errno, EINVAL);
  errno = 0;
  EXPECT_EQ(mapout_open((dir / "out").string().c_str(), nullptr, nullptr), nullptr);
  EXPECT_EQ(errno, EINVAL);
  errno = 0;
  EXPECT_EQ(mapout_fdopen(STDOUT_FILENO, nullptr, nullptr), nullptr);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_TRUE(refused(mapout_seek(nullptr, 0, SEEK_SET)));
  EXPECT_TRUE(refused(mapout_tell(nullptr)));
  EXPECT_TRUE(refused(mapout_publish(nullptr)));
  EXPECT_TRUE(refused(mapout_persist(nullptr)));
  EXPECT_TRUE(refused(mapout_close(nullptr)));
  EXPECT_TRUE(refused(mapout_discard(nullptr)));
  EXPECT_TRUE(refused(mapout_printf(nullptr, "%d", 1)));
  EXPECT_STREQ(mapout_error(nullptr), "");
  mapout_options_init(nullptr);
  errno = 0;
  EXPECT_EQ(mapout_fileno(nullptr), -1);
  EXPECT_EQ(errno, EBADF);
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
}

// The modes glibc's fopen refuses, mapout refuses with the same errno and creates nothing.
TEST(CApiMisuse, ModesFopenRefusesAreRefusedAlike) {
  temp_dir dir;
  for (const char* mode : {"", "x", "e", "b", "+", "+w", "W", "bogus", " w", "\tw"}) {
    SCOPED_TRACE(std::string("\"") + mode + '"');
    errno = 0;
    std::FILE* theirs = std::fopen((dir / "stdio").string().c_str(), mode);
    const int their_errno = errno;
    const bool they_opened = theirs != nullptr;
    if (they_opened) std::fclose(theirs);
    std::filesystem::remove(dir / "stdio");
    errno = 0;
    mapout_file* ours = mapout_open((dir / "mapout").string().c_str(), mode, nullptr);
    if (they_opened) {
      // msvcrt's fopen skips leading spaces and reads "W" as "w": mapout opens what it opens.
#ifndef _WIN32
      ADD_FAILURE() << "glibc's fopen refuses each of these";
#endif
      ASSERT_NE(ours, nullptr);
      EXPECT_EQ(mapout_close(ours), 0);
      std::filesystem::remove(dir / "mapout");
      continue;
    }
    EXPECT_EQ(ours, nullptr);
    EXPECT_EQ(errno, their_errno);
    EXPECT_FALSE(std::filesystem::exists(dir / "mapout"));
  }
  // glibc opens these for reading; mapout only writes, and says so without touching the file.
  mapout::test::write_file(dir / "existing", "kept");
  for (const char* mode : {"r", "rb", "ra", "rw", "re"}) {
    SCOPED_TRACE(mode);
    errno = 0;
    EXPECT_EQ(mapout_open((dir / "existing").string().c_str(), mode, nullptr), nullptr);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(read_file(dir / "existing"), "kept");
  }
}

// ",ccs=": glibc fails an empty or unknown set with EINVAL after it created the file (msvcrt's
// before); mapout fails first, and also for a set it would have to convert to. UTF-8 is its
// bytes, in the spellings the platform's fopen takes.
TEST(CApiMisuse, CharacterSetsOtherThanUtf8AreRefusedBeforeCreatingTheFile) {
  temp_dir dir;
  for (const char* mode : {"w,ccs=", "w,ccs=BOGUS", "a+,ccs=", "wb,ccs=UTF-16"}) {
    SCOPED_TRACE(mode);
    errno = 0;
    std::FILE* theirs = std::fopen((dir / "stdio").string().c_str(), mode);
    const int their_errno = errno;
    if (theirs == nullptr) {
      EXPECT_EQ(their_errno, EINVAL);
#ifndef _WIN32
      EXPECT_TRUE(std::filesystem::exists(dir / "stdio")) << "glibc's fopen created it";
#endif
    } else {
      std::fclose(theirs);
    }
    std::filesystem::remove(dir / "stdio");
    errno = 0;
    EXPECT_EQ(mapout_open((dir / "mapout").string().c_str(), mode, nullptr), nullptr);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_FALSE(std::filesystem::exists(dir / "mapout"));
  }
#ifdef _WIN32
  // msvcrt's fopen takes "utf-8" in either case, and nothing after the set.
  for (const char* mode : {"w,ccs=utf8", "w,ccs=utf-8,x"}) {
    SCOPED_TRACE(mode);
    errno = 0;
    EXPECT_EQ(mapout_open((dir / "mapout").string().c_str(), mode, nullptr), nullptr);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_FALSE(std::filesystem::exists(dir / "mapout"));
  }
  const char* const utf8_modes[] = {"w,ccs=UTF-8", "w, ccs = utf-8"};
#else
  const char* const utf8_modes[] = {"w,ccs=UTF-8", "w,ccs=utf8", "w,ccs=utf-8,x"};
#endif
  for (const char* mode : utf8_modes) {
    SCOPED_TRACE(mode);
    mapout_file* out = mapout_open((dir / "utf8").string().c_str(), mode, nullptr);
    ASSERT_NE(out, nullptr);
    ASSERT_EQ(mapout_puts("caf\xc3\xa9", out), 0);
    ASSERT_EQ(mapout_close(out), 0);
    EXPECT_EQ(read_file(dir / "utf8"), "caf\xc3\xa9");
  }
}

#ifndef _WIN32
// A pipe's write end through mapout_fdopen, and its read end made non-blocking for the checks.
struct piped {
  piped() {
    int ends[2];
    if (::pipe2(ends, O_CLOEXEC) != 0) ADD_FAILURE() << "pipe2";
    reader = ends[0];
    ::fcntl(reader, F_SETFL, O_NONBLOCK);
    out = mapout_fdopen(ends[1], "w", nullptr);
    EXPECT_NE(out, nullptr);
  }
  ~piped() { ::close(reader); }
  std::string available() const {
    char bytes[256];
    const ssize_t n = ::read(reader, bytes, sizeof bytes);
    return n > 0 ? std::string(bytes, static_cast<std::size_t>(n)) : std::string();
  }

  int reader = -1;
  mapout_file* out = nullptr;
};

// mapout_flush(NULL) is fflush(NULL): every open file's buffer is written, those closed are not
// visited, and one that fails makes it -1 with its errno while the others are still flushed.
TEST(CApiMisuse, FlushOfNullFlushesEveryOpenFile) {
  EXPECT_EQ(mapout_flush(nullptr), 0) << "no file open";
  piped first;
  piped closed;
  piped last;
  mapout_puts("first", first.out);
  mapout_puts("closed", closed.out);
  mapout_puts("last", last.out);
  ASSERT_EQ(mapout_close(closed.out), 0);
  EXPECT_EQ(closed.available(), "closed");
  EXPECT_EQ(first.available(), "");
  EXPECT_EQ(mapout_flush(nullptr), 0);
  EXPECT_EQ(first.available(), "first");
  EXPECT_EQ(last.available(), "last");

  piped broken;
  ::close(broken.reader);
  broken.reader = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const sighandler_t old = std::signal(SIGPIPE, SIG_IGN);
  mapout_puts("again", first.out);
  mapout_puts("lost", broken.out);
  mapout_puts("again", last.out);
  errno = 0;
  EXPECT_EQ(mapout_flush(nullptr), -1);
  EXPECT_EQ(errno, EPIPE);
  EXPECT_EQ(first.available(), "again");
  EXPECT_EQ(last.available(), "again");
  EXPECT_EQ(mapout_close(broken.out), -1);
  std::signal(SIGPIPE, old);
  EXPECT_EQ(mapout_close(first.out), 0);
  EXPECT_EQ(mapout_close(last.out), 0);
  EXPECT_EQ(mapout_flush(nullptr), 0) << "the failed file is closed and no longer listed";
}
#endif  // _WIN32

// After a failed write every later call that writes fails too, inline or not, and close says
// so: nothing written after the failure is claimed written.
TEST(CApiMisuse, WritesAfterAFailedWriteKeepFailing) {
  const int fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  mapout_options opts;
  mapout_options_init(&opts);
  opts.buffer_size = 8;
  mapout_file* out = mapout_fdopen(fd, "w", &opts);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(mapout_printf(out, "%s", "more than eight bytes"), -1);
  EXPECT_EQ(errno, ENOSPC);
  EXPECT_EQ(mapout_putc('x', out), -1);
  EXPECT_EQ(mapout_write("y", 1, 1, out), 0u);
  EXPECT_EQ(mapout_puts("z", out), -1);
  EXPECT_EQ(mapout_printf(out, "%d", 1), -1);
  EXPECT_EQ(mapout_flush(out), -1);
  // The system's text for ENOSPC: strerror's on Linux, Windows' own there.
  const std::string reason = mapout::detail::errno_category().message(ENOSPC);
  EXPECT_NE(std::string(mapout_error(out)).find(reason), std::string::npos) << mapout_error(out);
  errno = 0;
  EXPECT_EQ(mapout_close(out), -1);
  EXPECT_EQ(errno, ENOSPC);
}

}  // namespace
