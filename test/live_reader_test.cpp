// A log followed by another process while it is written (docs/live-readers.md): the reader never
// reads a byte the writer did not write and sees every flushed line in order; with publish_every
// the lines flushed between publishes wait in the tail file, which a death does not lose and
// recovery writes in; a tail another user, a link or another file holds is never trusted.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <system_error>

#include "child_process.hpp"
#include "mapout/ostream.hpp"
#include "mapout/output_file.hpp"
#include "system_call_override.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using mapout::test::read_file;
using mapout::test::temp_dir;
using mapout::test::write_file;
using namespace std::chrono_literals;

std::string line(int number) {
  char text[64];
  std::snprintf(text, sizeof text, "line %06d of the log, flushed\n", number);
  return text;
}

std::string lines(int from, int to) {
  std::string all;
  for (int i = from; i < to; ++i) all += line(i);
  return all;
}

fs::path tail_of(const fs::path& output) {
  return output.parent_path() / ("." + output.filename().string() + ".mapout-tail");
}

mapout::options publishing(std::chrono::milliseconds every, bool crash_safe = false) {
  mapout::options opts;
  opts.flush_publishes = true;
  opts.publish_every = every;
  opts.crash_safe = crash_safe;
  return opts;
}

// ---- a reader following the file ----

// What a reader polling the size saw: every byte it read was a line's, the lines came in order,
// and it ended with all of them.
struct followed {
  std::string error;  // empty when every byte read was expected
  int lines = 0;
};

// Reads `path` up to its size at each poll while `writer` runs, then once more after it exited,
// checking each byte against the lines 0..count-1 in order.
followed follow(const fs::path& path, pid_t writer, int count) {
  followed seen;
  const std::string want = lines(0, count);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {"open: " + std::string(std::strerror(errno))};
  std::string bytes;
  bool exited = false;
  for (;;) {
    int status = 0;
    if (!exited) exited = ::waitpid(writer, &status, WNOHANG) == writer;
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      seen.error = "fstat";
      break;
    }
    const auto size = static_cast<std::size_t>(st.st_size);
    if (size > want.size() || size < bytes.size()) {
      seen.error = "size " + std::to_string(size) + " after " + std::to_string(bytes.size());
      break;
    }
    if (size > bytes.size()) {
      std::string more(size - bytes.size(), '\0');
      const ssize_t got = ::pread(fd, more.data(), more.size(), static_cast<off_t>(bytes.size()));
      if (got < 0) {
        seen.error = "pread";
        break;
      }
      more.resize(static_cast<std::size_t>(got));
      const std::size_t at = bytes.size();
      bytes += more;
      if (bytes.compare(at, more.size(), want, at, more.size()) != 0) {
        const std::size_t nul = more.find('\0');
        seen.error = (nul != std::string::npos ? "a NUL at " + std::to_string(at + nul)
                                               : "a byte out of place after " + std::to_string(at));
        break;
      }
    } else if (exited) {
      break;
    } else {
      ::sched_yield();
    }
  }
  ::close(fd);
  if (!exited) mapout::test::wait_for(writer);
  seen.lines = 0;
  for (char c : bytes) seen.lines += c == '\n';
  return seen;
}

// A child writing lines 0..count-1 with std::endl, closed at the end.
pid_t spawn_writer(const fs::path& path, std::ios_base::openmode mode, const mapout::options& opts,
                   int count) {
  return mapout::test::spawn([=] {
    mapout::ostream out(path, mode, opts);
    for (int i = 0; i < count; ++i) out << line(i).substr(0, line(i).size() - 1) << std::endl;
    out.close();
    return out ? 0 : 1;
  });
}

struct reader_case {
  const char* name;
  std::ios_base::openmode mode;
  mapout::options opts;
};

TEST(LiveReader, NeverSeesANulAGapOrALineOutOfOrderAndEndsWithEveryLine) {
  constexpr int count = 20000;
  mapout::options mapped = publishing(0ms);
  mapped.strategy = mapout::strategy::mapped;
  mapout::options mapped_spaced = publishing(5ms);
  mapped_spaced.strategy = mapout::strategy::mapped;
  const reader_case cases[] = {
      {"every flush", std::ios::out, publishing(0ms)},
      {"every 5 ms", std::ios::out, publishing(5ms)},
      {"app, every flush", std::ios::app, publishing(0ms)},
      {"app, every 5 ms", std::ios::app, publishing(5ms)},
      {"crash_safe, every flush", std::ios::out, publishing(0ms, true)},
      {"crash_safe, every 5 ms", std::ios::out, publishing(5ms, true)},
      {"crash_safe app, every 5 ms", std::ios::app, publishing(5ms, true)},
      {"strategy::mapped, every flush", std::ios::out, mapped},
      {"strategy::mapped, every 5 ms", std::ios::out, mapped_spaced},
  };
  for (const reader_case& c : cases) {
    SCOPED_TRACE(c.name);
    temp_dir dir;
    write_file(dir / "log", "");
    const pid_t writer = spawn_writer(dir / "log", c.mode, c.opts, count);
    const followed seen = follow(dir / "log", writer, count);
    EXPECT_EQ(seen.error, "");
    EXPECT_EQ(seen.lines, count);
    EXPECT_FALSE(fs::exists(tail_of(dir / "log")));
  }
}

// ---- the tail between publishes ----

TEST(LiveReader, LinesWaitInTheTailUntilTheirPublish) {
  temp_dir dir;
  const fs::path path = dir / "log";
  // The tail is 0600 whatever the umask takes, so that its user's recovery may open it.
  const mode_t saved_umask = ::umask(0277);
  mapout::ostream out(path, std::ios::out, publishing(std::chrono::hours(1)));
  ::umask(saved_umask);
  EXPECT_FALSE(out.rdbuf()->file().is_mapped());
  out << "first" << std::endl;  // the first flush publishes: no publish was ever made
  EXPECT_EQ(read_file(path), "first\n");
  out << "second" << std::endl << "third" << std::endl;
  EXPECT_EQ(read_file(path), "first\n");
  EXPECT_TRUE(fs::exists(tail_of(path)));
  EXPECT_EQ(mapout::test::stat_of(tail_of(path)).st_mode & 07777, 0600u);
  out.publish();
  EXPECT_EQ(read_file(path), "first\nsecond\nthird\n");
  out << "fourth" << std::endl;
  out.close();
  EXPECT_TRUE(out);
  EXPECT_EQ(read_file(path), "first\nsecond\nthird\nfourth\n");
  EXPECT_FALSE(fs::exists(tail_of(path)));
}

// Before, strategy::mapped and crash_safe mapped the file, whose size runs ahead of the bytes.
TEST(LiveReader, FlushPublishesWritesThroughTheBufferOnEveryStrategy) {
  temp_dir dir;
  mapout::options mapped = publishing(0ms);
  mapped.strategy = mapout::strategy::mapped;
  for (const mapout::options& opts : {mapped, publishing(10ms, true), publishing(0ms, true)}) {
    mapout::ostream out(dir / "log", std::ios::out, opts);
    out << "a line" << std::endl;
    EXPECT_FALSE(out.rdbuf()->file().is_mapped());
    EXPECT_EQ(fs::file_size(dir / "log"), 7u);
    out.close();
    EXPECT_TRUE(out);
  }
}

// A live writer's tail is its own: a recovery leaves it, and a second writer of the file
// publishes at every flush instead of making one.
TEST(LiveReader, ALiveWritersTailIsLeftAlone) {
  temp_dir dir;
  const fs::path path = dir / "log";
  mapout::ostream first(path, std::ios::app, publishing(std::chrono::hours(1)));
  first << "one" << std::endl << "two" << std::endl;
  EXPECT_EQ(mapout::recover(path), std::error_code());
  EXPECT_EQ(read_file(path), "one\n");
  ASSERT_TRUE(fs::exists(tail_of(path)));
  mapout::ostream second(path, std::ios::app, publishing(std::chrono::hours(1)));
  second << "three" << std::endl << "four" << std::endl;
  EXPECT_EQ(read_file(path), "one\nthree\nfour\n");
  second.close();
  EXPECT_TRUE(fs::exists(tail_of(path)));
  first.close();
  EXPECT_TRUE(second && first);
  EXPECT_EQ(read_file(path), "one\nthree\nfour\ntwo\n");
  EXPECT_FALSE(fs::exists(tail_of(path)));
}

// A child forked with the stream open has a buffer of its own, as std::ofstream's: its stores
// never land in the parent's.
TEST(LiveReader, AForkedChildsStoresStayOutOfTheParentsTail) {
  temp_dir dir;
  const fs::path path = dir / "log";
  mapout::ostream out(path, std::ios::app, publishing(std::chrono::hours(1)));
  out << "parent 1" << std::endl << "parent 2" << std::endl;
  int go[2];
  ASSERT_EQ(::pipe(go), 0);
  const pid_t child = mapout::test::spawn([&] {
    char byte;
    if (::read(go[0], &byte, 1) != 1) return 1;
    out << "child" << std::endl;
    return 0;
  });
  out << "parent 3" << std::endl;
  ASSERT_EQ(::write(go[1], "x", 1), 1);
  EXPECT_EQ(mapout::test::wait_for(child), 0);
  ::close(go[0]);
  ::close(go[1]);
  EXPECT_TRUE(fs::exists(tail_of(path)));
  out.close();
  EXPECT_TRUE(out);
  EXPECT_EQ(read_file(path), "parent 1\nparent 2\nparent 3\n");
}

// ---- a writer that dies ----

enum class death { kill, abort, segfault };

const char* name_of(death how) {
  return how == death::kill ? "SIGKILL" : how == death::abort ? "abort" : "segfault";
}

[[noreturn]] void die(death how) {
  const struct rlimit no_core = {0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  switch (how) {
    case death::kill:
      ::raise(SIGKILL);
      break;
    case death::abort:
      ::signal(SIGABRT, SIG_DFL);
      std::abort();
    case death::segfault: {
      ::signal(SIGSEGV, SIG_DFL);
      void* page = ::mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      *static_cast<volatile char*>(page) = 1;
      break;
    }
  }
  ::_exit(99);
}

// What a writer that dies does: lines 0..flushed-1 with std::endl, then `unflushed` stored and
// not flushed, then its death.
struct dying_writer {
  std::ios_base::openmode mode = std::ios::out;
  mapout::options opts;
  int flushed = 0;
  std::string unflushed;
  death how = death::kill;
};

// Runs the writer in a child; true when it died by a signal, as it should.
bool run_to_death(const fs::path& path, const dying_writer& w) {
  const pid_t child = ::fork();
  if (child == 0) {
    mapout::ostream out(path, w.mode, w.opts);
    for (int i = 0; i < w.flushed; ++i) out << line(i).substr(0, line(i).size() - 1) << std::endl;
    out << w.unflushed;
    if (!out) ::_exit(98);
    die(w.how);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFSIGNALED(status);
}

// Every byte is one the writer wrote, in its place.
testing::AssertionResult holds_a_prefix_of(const std::string& bytes, const std::string& want) {
  if (bytes.size() <= want.size() && want.compare(0, bytes.size(), bytes) == 0) {
    return testing::AssertionSuccess();
  }
  const std::size_t nul = bytes.find('\0');
  return testing::AssertionFailure()
         << bytes.size() << " bytes, not a prefix of the " << want.size() << " written"
         << (nul != std::string::npos ? ", a NUL at " + std::to_string(nul) : "");
}

// How the file is reopened after the death.
enum class after { recover, reopen_to_append, reopen_to_truncate };

TEST(LiveReaderDeath, EveryFlushedLineSurvivesAndRecoveryRemovesTheTail) {
  // GoogleTest's shuffle seed (0 without --gtest_shuffle): a repeated run dies at new points.
  std::mt19937 random(20260601 +
                      static_cast<unsigned>(::testing::UnitTest::GetInstance()->random_seed()));
  int round = 0;
  for (death how : {death::kill, death::abort, death::segfault}) {
    for (std::ios_base::openmode mode : {std::ios::out, std::ios::app}) {
      for (bool crash_safe : {false, true}) {
        for (after then : {after::recover, after::reopen_to_append, after::reopen_to_truncate}) {
          dying_writer w;
          w.mode = mode;
          w.opts = publishing(1000ms, crash_safe);
          w.opts.buffer_size = random() % 2 ? 4096 : 65536;
          w.flushed = static_cast<int>(random() % 3000);
          w.unflushed = "stored, not flushed";
          w.how = how;
          SCOPED_TRACE(std::string(name_of(how)) + (mode == std::ios::app ? ", app" : ", out") +
                       (crash_safe ? ", crash_safe" : "") + ", " + std::to_string(w.flushed) +
                       " lines, buffer " + std::to_string(w.opts.buffer_size) + ", round " +
                       std::to_string(round++));
          temp_dir dir;
          const fs::path path = dir / "log";
          const std::string old = mode == std::ios::app ? "an older line\n" : "";
          write_file(path, old);
          ASSERT_TRUE(run_to_death(path, w));
          const std::string kept = old + lines(0, w.flushed) + (crash_safe ? w.unflushed : "");
          EXPECT_TRUE(holds_a_prefix_of(read_file(path), kept));
          // The last lines wait in the tail: the first flush published, the rest wait a second.
          EXPECT_TRUE(fs::exists(tail_of(path)));
          switch (then) {
            case after::recover:
              EXPECT_EQ(mapout::recover(path), std::error_code());
              EXPECT_EQ(mapout::test::same_bytes(path, kept), "ok");
              break;
            case after::reopen_to_append: {
              mapout::ostream again(path, std::ios::app);
              again << "after the death\n";
              again.close();
              EXPECT_TRUE(again);
              EXPECT_EQ(mapout::test::same_bytes(path, kept + "after the death\n"), "ok");
              break;
            }
            case after::reopen_to_truncate: {
              mapout::ostream again(path, std::ios::out);
              again << "a new log\n";
              again.close();
              EXPECT_EQ(read_file(path), "a new log\n");
              break;
            }
          }
          EXPECT_FALSE(fs::exists(tail_of(path)));
        }
      }
    }
  }
}

// A writer in place (in|out) that seeks inside its buffer, or past the file's end: the tail's
// bytes go to their offsets.
TEST(LiveReaderDeath, ATailOfAWriterInPlaceGoesToItsOffset) {
  for (std::int64_t at : {5, 20}) {
    SCOPED_TRACE(at);
    temp_dir dir;
    const fs::path path = dir / "log";
    write_file(path, "0123456789");
    const pid_t child = ::fork();
    if (child == 0) {
      mapout::ostream out(path, std::ios::in | std::ios::out, publishing(1000ms));
      out << "ab" << std::flush;  // the first flush publishes
      out.seekp(at);
      out << "XYZ" << std::flush;
      out.seekp(at + 1);
      out << "q" << std::flush;
      die(death::kill);
    }
    mapout::test::wait_for(child);
    EXPECT_EQ(read_file(path), "ab23456789");
    EXPECT_EQ(mapout::recover(path), std::error_code());
    EXPECT_EQ(read_file(path),
              at == 5 ? std::string("ab234XqZ89") : "ab23456789" + std::string(10, '\0') + "XqZ");
    EXPECT_FALSE(fs::exists(tail_of(path)));
  }
}

// A recovery that runs out of room part way leaves the tail, marked as written in part: the next
// one finishes it, and writes no byte twice.
std::size_t bytes_until_full = 0;

ssize_t write_until_full(int fd, const void* data, std::size_t size) {
  if (bytes_until_full == 0) {
    errno = ENOSPC;
    return -1;
  }
  const std::size_t part = std::min(size, bytes_until_full);
  bytes_until_full -= part;
  return mapout::detail::real_system_calls().write(fd, data, part);
}

ssize_t pwrite_until_full(int fd, const void* data, std::size_t size, off_t offset) {
  if (bytes_until_full == 0) {
    errno = ENOSPC;
    return -1;
  }
  const std::size_t part = std::min(size, bytes_until_full);
  bytes_until_full -= part;
  return mapout::detail::real_system_calls().pwrite(fd, data, part, offset);
}

TEST(LiveReaderDeath, ARecoveryCutShortByAFullDiskIsFinishedByTheNext) {
  for (std::ios_base::openmode mode : {std::ios::out, std::ios::app}) {
    SCOPED_TRACE(mode == std::ios::app ? "app" : "out");
    temp_dir dir;
    const fs::path path = dir / "log";
    dying_writer w;
    w.mode = mode;
    w.opts = publishing(std::chrono::hours(1));
    w.flushed = 5;
    ASSERT_TRUE(run_to_death(path, w));
    ASSERT_EQ(read_file(path), line(0));
    {
      const mapout::test::system_call_override<&mapout::detail::system_calls::write> write(
          write_until_full);
      const mapout::test::system_call_override<&mapout::detail::system_calls::pwrite> pwrite(
          pwrite_until_full);
      bytes_until_full = 8 + 40;  // the tail's mark, then a part of the lines
      EXPECT_EQ(mapout::recover(path), std::error_code(ENOSPC, std::system_category()));
    }
    EXPECT_EQ(read_file(path), lines(0, 5).substr(0, line(0).size() + 40));
    EXPECT_TRUE(fs::exists(tail_of(path)));
    EXPECT_EQ(mapout::recover(path), std::error_code());
    EXPECT_EQ(read_file(path), lines(0, 5));
    EXPECT_FALSE(fs::exists(tail_of(path)));
  }
}

// ---- tails that are not to be trusted ----

// A dead writer of `path`'s tail, holding lines 1..4 unpublished, moved to `to`.
void leave_a_dead_tail(const fs::path& path, const fs::path& to) {
  dying_writer w;
  w.mode = std::ios::app;
  w.opts = publishing(std::chrono::hours(1));
  w.flushed = 5;
  ASSERT_TRUE(run_to_death(path, w));
  ASSERT_EQ(read_file(path), line(0));
  fs::rename(tail_of(path), to);
}

TEST(LiveReaderHostile, ATailThatIsALinkIsNeitherFollowedNorRemoved) {
  temp_dir dir;
  leave_a_dead_tail(dir / "log", dir / "elsewhere");
  const std::string elsewhere = read_file(dir / "elsewhere");
  fs::create_symlink(dir / "elsewhere", tail_of(dir / "log"));
  EXPECT_EQ(mapout::recover(dir / "log"), std::error_code());
  EXPECT_EQ(read_file(dir / "log"), line(0));
  EXPECT_TRUE(fs::is_symlink(tail_of(dir / "log")));
  EXPECT_EQ(read_file(dir / "elsewhere"), elsewhere);
  // The name is taken: the next writer publishes at every flush, and loses nothing at its death.
  dying_writer w;
  w.mode = std::ios::app;
  w.opts = publishing(std::chrono::hours(1));
  w.flushed = 3;
  ASSERT_TRUE(run_to_death(dir / "log", w));
  EXPECT_EQ(read_file(dir / "log"), line(0) + lines(0, 3));
}

TEST(LiveReaderHostile, ATailNamingAnotherFileIsStaleAndLeftInPlace) {
  temp_dir dir;
  leave_a_dead_tail(dir / "log", tail_of(dir / "other"));
  write_file(dir / "other", "the other file\n");
  EXPECT_EQ(mapout::recover(dir / "other"), std::errc::state_not_recoverable);
  EXPECT_EQ(read_file(dir / "other"), "the other file\n");
  EXPECT_TRUE(fs::exists(tail_of(dir / "other")));
  // Opening the file goes on: its writer publishes at every flush.
  mapout::ostream out(dir / "other", std::ios::app, publishing(std::chrono::hours(1)));
  out << "more" << std::endl << "and more" << std::endl;
  EXPECT_EQ(read_file(dir / "other"), "the other file\nmore\nand more\n");
  out.close();
  EXPECT_TRUE(out);
}

// A file changed by another writer since the death: the bytes' place is gone.
TEST(LiveReaderHostile, ATailOfAFileRewrittenSinceIsStale) {
  temp_dir dir;
  dying_writer w;
  w.mode = std::ios::out;
  w.opts = publishing(std::chrono::hours(1));
  w.flushed = 5;
  ASSERT_TRUE(run_to_death(dir / "log", w));
  ASSERT_EQ(read_file(dir / "log"), line(0));
  for (const std::string rewritten : {"", "rewritten by another program, longer than a line\n"}) {
    write_file(dir / "log", rewritten);
    EXPECT_EQ(mapout::recover(dir / "log"), std::errc::state_not_recoverable);
    EXPECT_EQ(read_file(dir / "log"), rewritten);
    EXPECT_TRUE(fs::exists(tail_of(dir / "log")));
  }
}

uid_t nobody_uid() {
  const struct passwd* entry = ::getpwnam("nobody");
  return entry != nullptr ? entry->pw_uid : 65534;
}

TEST(LiveReaderHostile, AnotherUsersTailIsNotTrusted) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to own a file as another user";
  temp_dir dir;
  leave_a_dead_tail(dir / "log", dir / "held");
  ASSERT_EQ(::chown((dir / "held").c_str(), nobody_uid(), nobody_uid()), 0);
  fs::rename(dir / "held", tail_of(dir / "log"));
  EXPECT_EQ(mapout::recover(dir / "log"), std::error_code());
  EXPECT_EQ(read_file(dir / "log"), line(0));
  EXPECT_TRUE(fs::exists(tail_of(dir / "log")));
  // The output's owner's tail is: root recovers nobody's log.
  ASSERT_EQ(::chown((dir / "log").c_str(), nobody_uid(), nobody_uid()), 0);
  EXPECT_EQ(mapout::recover(dir / "log"), std::error_code());
  EXPECT_EQ(read_file(dir / "log"), lines(0, 5));
  EXPECT_FALSE(fs::exists(tail_of(dir / "log")));
}

// nobody writes its log in a sticky directory where another user planted the tail's name, as a
// file of its own and as a link: nobody's writer trusts neither, and loses no flushed line.
TEST(LiveReaderHostile, APlantedTailInAStickyDirectoryIsRefusedByAnotherUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to run a child as nobody";
  constexpr uid_t attacker = 23456;
  for (bool as_link : {false, true}) {
    SCOPED_TRACE(as_link ? "a link" : "a file");
    temp_dir dir;
    ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);
    const fs::path sticky = dir / "sticky";
    fs::create_directory(sticky);
    ASSERT_EQ(::chmod(sticky.c_str(), 01777), 0);
    const fs::path path = sticky / "log";
    // A tail that names nobody's log: a dead writer's, made elsewhere, the log moved in after.
    fs::create_directory(dir / "work");
    write_file(dir / "work" / "log", "");
    ASSERT_EQ(::chown((dir / "work" / "log").c_str(), nobody_uid(), nobody_uid()), 0);
    leave_a_dead_tail(dir / "work" / "log", dir / "planted");
    fs::rename(dir / "work" / "log", path);
    if (as_link) {
      fs::create_symlink(dir / "planted", tail_of(path));
      ASSERT_EQ(::lchown(tail_of(path).c_str(), attacker, attacker), 0);
    } else {
      fs::copy_file(dir / "planted", tail_of(path));
      ASSERT_EQ(::chown(tail_of(path).c_str(), attacker, attacker), 0);
      ASSERT_EQ(::chmod(tail_of(path).c_str(), 0666), 0);
    }
    const std::string planted = read_file(dir / "planted");
    const pid_t child = ::fork();
    if (child == 0) {
      if (::setgid(nobody_uid()) != 0 || ::setuid(nobody_uid()) != 0) ::_exit(10);
      mapout::ostream out(path, std::ios::app, publishing(std::chrono::hours(1)));
      for (int i = 0; i < 3; ++i) out << line(i).substr(0, line(i).size() - 1) << std::endl;
      die(death::kill);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer as nobody failed: " << WEXITSTATUS(status);
    EXPECT_EQ(read_file(path), line(0) + lines(0, 3));
    EXPECT_EQ(read_file(dir / "planted"), planted);
    EXPECT_EQ(read_file(tail_of(path)), planted);
  }
}

// ---- where no tail can be made ----

// Every flush publishes: a death loses no flushed line all the same.
void expect_every_flushed_line_without_a_tail(const fs::path& path, bool as_nobody) {
  const pid_t child = ::fork();
  if (child == 0) {
    if (as_nobody && (::setgid(nobody_uid()) != 0 || ::setuid(nobody_uid()) != 0)) ::_exit(10);
    mapout::ostream out(path, std::ios::app, publishing(std::chrono::hours(1)));
    for (int i = 0; i < 100; ++i) out << line(i).substr(0, line(i).size() - 1) << std::endl;
    die(death::kill);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the writer failed: " << WEXITSTATUS(status);
  EXPECT_EQ(read_file(path), lines(0, 100));
  EXPECT_FALSE(fs::exists(tail_of(path)));
}

int refuse_tails(int directory, const char* name, int flags, mode_t mode) {
  if (std::strstr(name, ".mapout-tail") != nullptr) {
    errno = EROFS;
    return -1;
  }
  return mapout::detail::real_system_calls().openat(directory, name, flags, mode);
}

TEST(LiveReaderFallback, ATailRefusedByTheFileSystemPublishesEveryFlush) {
  temp_dir dir;
  const mapout::test::system_call_override<&mapout::detail::system_calls::openat> refused(
      refuse_tails);
  expect_every_flushed_line_without_a_tail(dir / "log", false);
}

TEST(LiveReaderFallback, ADirectoryTheWriterCannotWritePublishesEveryFlush) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to run a child as nobody";
  temp_dir dir;
  ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);
  write_file(dir / "log", "");
  ASSERT_EQ(::chown((dir / "log").c_str(), nobody_uid(), nobody_uid()), 0);
  expect_every_flushed_line_without_a_tail(dir / "log", true);
}

}  // namespace
