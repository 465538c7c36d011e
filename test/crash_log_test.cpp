// What a log keeps when its writer dies: forked writers killed (SIGKILL, abort(), a segfault) at a
// random line, on each file system this machine can mount; the bytes each mode promises, the NUL
// reserve cut at the next open and by mapout::recover, and a log crashed and reopened 100 times.
#ifndef _WIN32
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <string>

#include "child_process.hpp"
#include "mapout/mapout.h"
#include "mapout/ostream.hpp"
#include "mapout/output_file.hpp"
#include "mounted_file_system.hpp"
#include "sanitized.hpp"
#include "temp_dir.hpp"

namespace mapout::test {
namespace {

enum class death { kill, abort, segfault };
constexpr death deaths[] = {death::kill, death::abort, death::segfault};

[[noreturn]] void die(death how) {
  switch (how) {
    case death::kill:
      ::raise(SIGKILL);
      break;
    case death::abort:
      std::abort();
    case death::segfault: {
      // A store through a null pointer the compiler cannot see is one.
      volatile int* volatile nowhere = nullptr;
      *nowhere = 1;
      break;
    }
  }
  ::_exit(99);
}

// 0 by default, so that a run repeats; under --gtest_shuffle, the seed GoogleTest prints, new at
// each --gtest_repeat, so that a loop of runs kills at other points each time.
unsigned run_seed() {
  return static_cast<unsigned>(::testing::UnitTest::GetInstance()->random_seed());
}

// Line i of run r: whole lines are told apart, and a torn one shows where it was torn.
std::string log_line(int run, int i) {
  return "run " + std::to_string(run) + " line " + std::to_string(i) + " status " +
         std::to_string(200 + i % 7) + " took " + std::to_string(i * 37 % 1000) + " us\n";
}

// How a writer writes and what a death must leave of it.
struct log_mode {
  const char* name;
  std::ios::openmode mode;
  mapout::options opts;
  // Each line ends with std::endl; otherwise '\n' and no flush (crash_safe keeps every byte).
  bool endl;
};

mapout::options crash_safe() {
  mapout::options opts;
  opts.crash_safe = true;
  return opts;
}
mapout::options with_strategy(mapout::strategy s) {
  mapout::options opts;
  opts.strategy = s;
  return opts;
}

const log_mode log_modes[] = {
    {"default", std::ios::out, {}, true},
    {"default app", std::ios::app, {}, true},
    {"default in|out|ate", std::ios::in | std::ios::out | std::ios::ate, {}, true},
    {"mapped", std::ios::out, with_strategy(mapout::strategy::mapped), true},
    {"buffered", std::ios::out, with_strategy(mapout::strategy::buffered), true},
    {"crash_safe", std::ios::out, crash_safe(), false},
    {"crash_safe app", std::ios::app, crash_safe(), false},
    {"crash_safe in|out|ate", std::ios::in | std::ios::out | std::ios::ate, crash_safe(), false},
};

// Writes `lines` lines of run `run` to `path` as `m` says, then `torn` bytes of the next line
// (stored, not flushed), then dies. Never returns.
[[noreturn]] void write_and_die(const std::filesystem::path& path, const log_mode& m, int run,
                                int lines, std::size_t torn, death how) {
  mapout::ostream out(path, m.mode, m.opts);
  if (!out.is_open()) ::_exit(3);
  for (int i = 0; i < lines; ++i) {
    if (m.endl) {
      const std::string line = log_line(run, i);
      out << line.substr(0, line.size() - 1) << std::endl;
    } else {
      out << log_line(run, i);
    }
  }
  out << log_line(run, lines).substr(0, torn);
  if (!out) ::_exit(4);
  die(how);
}

// Runs write_and_die in a child; true when the child died of it.
bool crashed_writer(const std::filesystem::path& path, const log_mode& m, int run, int lines,
                    std::size_t torn, death how) {
  const pid_t pid = ::fork();
  if (pid == 0) write_and_die(path, m, run, lines, torn, how);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
  }
  // Under AddressSanitizer a segfault is reported and ends in exit(1).
  return WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) == 1);
}

// What a death must leave of run `run`: every line before it, and with crash_safe the torn part.
std::string kept_of(const log_mode& m, int run, int lines, std::size_t torn) {
  std::string kept;
  for (int i = 0; i < lines; ++i) kept += log_line(run, i);
  if (!m.endl) kept += log_line(run, lines).substr(0, torn);
  return kept;
}

// What it may leave past that: the stored part of the torn line, which a mapping holds already.
std::string may_keep_of(const log_mode& m, int run, int lines, std::size_t torn) {
  return m.endl ? log_line(run, lines).substr(0, torn) : std::string();
}

// Compares without printing megabytes: the sizes, and where the two part.
void expect_same(const std::string& actual, const std::string& expected) {
  if (actual == expected) return;
  std::size_t at = 0;
  while (at < actual.size() && at < expected.size() && actual[at] == expected[at]) ++at;
  ADD_FAILURE() << "got " << actual.size() << " bytes, expected " << expected.size()
                << "; they part at " << at << ": got '" << actual.substr(at > 40 ? at - 40 : 0, 80)
                << "', expected '" << expected.substr(at > 40 ? at - 40 : 0, 80) << "'";
}

// `actual` holds all of `must`, then no more than a prefix of `may`.
void expect_kept(const std::string& actual, const std::string& must, const std::string& may) {
  const std::size_t extra = actual.size() >= must.size() ? actual.size() - must.size() : 0;
  if (extra <= may.size() && actual == must + may.substr(0, extra)) return;
  expect_same(actual, must + may);
}

// The bytes before the first NUL, and whether only NULs follow it.
struct split_file {
  std::string bytes;
  bool only_nul_after = true;
  std::size_t nul_count = 0;
};
split_file split(const std::string& all) {
  split_file s;
  const std::size_t first = all.find('\0');
  s.bytes = all.substr(0, first);
  if (first == std::string::npos) return s;
  s.nul_count = all.size() - first;
  s.only_nul_after = all.find_first_not_of('\0', first) == std::string::npos;
  return s;
}

// A directory on each file system the machine offers: the temporary directory's (ext4 here), and
// as root a tmpfs, an XFS and a btrfs image; a file system that cannot be had is named, not run.
struct file_system_case {
  const char* name;
  std::function<std::unique_ptr<mounted_file_system>()> mount;  // null: the temporary directory
};

const file_system_case file_systems[] = {
    {"temporary directory", nullptr},
    {"tmpfs", [] { return std::make_unique<mounted_file_system>("256m"); }},
    {"xfs", [] { return std::make_unique<mounted_file_system>("mkfs.xfs -q", 300); }},
    {"btrfs", [] { return std::make_unique<mounted_file_system>("mkfs.btrfs -q", 300); }},
};

class CrashLog : public ::testing::TestWithParam<file_system_case> {
 protected:
  void SetUp() override {
    if (GetParam().mount) {
      mounted_ = GetParam().mount();
      if (!mounted_->mounted()) {
        GTEST_SKIP() << GetParam().name << " not tested: " << mounted_->error();
      }
    }
  }
  std::filesystem::path file(const std::string& name) const {
    return mounted_ ? *mounted_ / name : dir_ / name;
  }

  temp_dir dir_;
  std::unique_ptr<mounted_file_system> mounted_;
};

// Item by item: every line whose std::endl returned, and with crash_safe every byte stored, is in
// the file itself after the death, before anything reopens it; only the reserve's NULs follow, and
// mapout::recover cuts them.
TEST_P(CrashLog, EachModeKeepsWhatItPromisedThroughEachDeath) {
  std::mt19937 random(7 + run_seed());
  for (const log_mode& m : log_modes) {
    for (const death how : deaths) {
      SCOPED_TRACE(std::string(m.name) + ", death " + std::to_string(static_cast<int>(how)));
      const std::filesystem::path path = file("log");
      std::filesystem::remove(path);
      const bool existing = (m.mode & std::ios::in) != 0;
      if (existing) std::ofstream(path) << "an old line\n";
      const int lines = std::uniform_int_distribution<int>(0, 30000)(random);
      const std::size_t torn = std::uniform_int_distribution<std::size_t>(0, 20)(random);
      ASSERT_TRUE(crashed_writer(path, m, 1, lines, torn, how));
      const std::string must = (existing ? "an old line\n" : "") + kept_of(m, 1, lines, torn);
      const split_file after_death = split(read_file(path));
      expect_kept(after_death.bytes, must, may_keep_of(m, 1, lines, torn));
      EXPECT_TRUE(after_death.only_nul_after);
      const std::string expected = after_death.bytes;
      ASSERT_FALSE(mapout::recover(path));
      expect_same(read_file(path), expected);
      // Recovered once, the file is left as it is.
      ASSERT_FALSE(mapout::recover(path));
      expect_same(read_file(path), expected);
    }
  }
}

// A log crashed and reopened 100 times, in the modes that resume, holds exactly the lines written,
// each whole except where a crash tore it, and no NUL byte.
TEST_P(CrashLog, AHundredCrashesAndResumesLeaveExactlyTheLinesAndNoNul) {
  const log_mode resuming[] = {log_modes[1], log_modes[2], log_modes[6], log_modes[7]};
  std::mt19937 random(11 + run_seed());
  const std::filesystem::path path = file("resumed.log");
  std::ofstream(path).close();
  std::string expected;
  // A sanitizer makes each run ten times slower: the loop runs there a fifth as often.
  const int runs = sanitized || thread_sanitized ? 20 : 100;
  for (int run = 0; run < runs; ++run) {
    const log_mode& m = resuming[random() % std::size(resuming)];
    SCOPED_TRACE(std::string(m.name) + ", run " + std::to_string(run));
    const int lines = std::uniform_int_distribution<int>(0, 3000)(random);
    const std::size_t torn = std::uniform_int_distribution<std::size_t>(0, 20)(random);
    ASSERT_TRUE(crashed_writer(path, m, run, lines, torn, deaths[random() % 3]));
    // Checked before the next open cuts the reserve: the bytes, then only NULs.
    const split_file after_death = split(read_file(path));
    expect_kept(after_death.bytes, expected + kept_of(m, run, lines, torn),
                may_keep_of(m, run, lines, torn));
    EXPECT_TRUE(after_death.only_nul_after);
    expected = after_death.bytes;
    // A file that went wrong would only grow its reserve from here on.
    if (HasFailure()) return;
  }
  {
    mapout::ostream last(path, std::ios::app);
    last << "the end\n";
  }
  expected += "the end\n";
  const std::string all = read_file(path);
  EXPECT_EQ(all.find('\0'), std::string::npos);
  expect_same(all, expected);
}

INSTANTIATE_TEST_SUITE_P(FileSystems, CrashLog, ::testing::ValuesIn(file_systems),
                         [](const ::testing::TestParamInfo<file_system_case>& info) {
                           std::string name = info.param.name;
                           for (char& c : name) {
                             if (c == ' ') c = '_';
                           }
                           return name;
                         });

// The C API's log: mapout_open "a" with mapout_puts and mapout_flush keeps every flushed line, and
// with crash_safe every stored byte, resumed with no NUL.
TEST(CrashLogC, AppendedLinesSurviveEachDeathAndResume) {
  temp_dir dir;
  const std::filesystem::path path = dir / "c.log";
  std::mt19937 random(5 + run_seed());
  std::string expected;
  for (int run = 0; run < 12; ++run) {
    const bool safe = run % 2 == 1;
    const int lines = std::uniform_int_distribution<int>(0, 5000)(random);
    const pid_t pid = ::fork();
    if (pid == 0) {
      mapout_options opts;
      mapout_options_init(&opts);
      opts.crash_safe = safe;
      mapout_file* out = mapout_open(path.c_str(), "a", &opts);
      if (!out) ::_exit(3);
      for (int i = 0; i < lines; ++i) {
        mapout_puts(log_line(run, i).c_str(), out);
        if (!safe) mapout_flush(out);
      }
      mapout_puts("torn", out);
      die(deaths[run % 3]);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
    }
    ASSERT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) > 1) << WEXITSTATUS(status);
    for (int i = 0; i < lines; ++i) expected += log_line(run, i);
    if (safe) expected += "torn";
  }
  ASSERT_EQ(mapout_recover(path.c_str()), 0);
  const std::string all = read_file(path);
  EXPECT_EQ(all.find('\0'), std::string::npos);
  expect_same(all, expected);
}

// Zero bytes a binary output wrote before its last flush are its own and stay; those after it are
// taken for the reserve and cut (docs/logs.md).
TEST(CrashRecovery, ZerosBeforeTheLastFlushStayAndZerosAfterItGo) {
  temp_dir dir;
  const std::filesystem::path path = dir / "table.bin";
  const std::string flushed = std::string("head") + std::string(5000, '\0');
  const pid_t pid = ::fork();
  if (pid == 0) {
    mapout::ostream out(path, std::ios::out | std::ios::binary,
                        with_strategy(mapout::strategy::mapped));
    out << flushed << std::flush << std::string(3000, '\0');
    die(death::kill);
  }
  ASSERT_EQ(wait_for(pid), -1);
  ASSERT_FALSE(mapout::recover(path));
  EXPECT_EQ(read_file(path), flushed);
}

// A file whose writer is alive keeps its reserve: recover() and other openers leave it alone.
TEST(CrashRecovery, ALiveWritersReserveIsNotCut) {
  temp_dir dir;
  const std::filesystem::path path = dir / "live.log";
  int go[2];
  int ready[2];
  ASSERT_EQ(::pipe(go), 0);
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    mapout::ostream out(path, std::ios::out, crash_safe());
    out << "alive\n";
    char c = 0;
    if (::write(ready[1], "r", 1) != 1 || ::read(go[0], &c, 1) != 1) ::_exit(2);
    out << "closed\n";
    out.close();
    ::_exit(out ? 0 : 1);
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  const auto reserved = std::filesystem::file_size(path);
  EXPECT_GT(reserved, 6u);
  ASSERT_FALSE(mapout::recover(path));
  EXPECT_EQ(std::filesystem::file_size(path), reserved);
  ASSERT_EQ(::write(go[1], "g", 1), 1);
  EXPECT_EQ(wait_for(pid), 0);
  EXPECT_EQ(read_file(path), "alive\nclosed\n");
  for (int fd : {go[0], go[1], ready[0], ready[1]}) ::close(fd);
}

// Zeros no dead writer left are bytes: a table of zeros, and a binary file closed cleanly with
// zeros at its end, keep them through recover() and an open that keeps the bytes.
TEST(CrashRecovery, ZerosOfAFileNoWriterDiedOnStay) {
  temp_dir dir;
  const std::filesystem::path table = dir / "table.bin";
  std::ofstream(table, std::ios::binary) << std::string(1 << 16, '\0');
  {
    mapout::ostream out(table, std::ios::in | std::ios::out | std::ios::binary,
                        with_strategy(mapout::strategy::mapped));
    out.seekp(100);
    out << 'x';
  }
  ASSERT_FALSE(mapout::recover(table));
  EXPECT_EQ(std::filesystem::file_size(table), 1u << 16);
  const std::filesystem::path closed = dir / "closed.bin";
  {
    mapout::ostream out(closed, std::ios::out | std::ios::binary, crash_safe());
    out << "data" << std::string(9000, '\0');
  }
  EXPECT_EQ(std::filesystem::file_size(closed), 9004u);
  { mapout::ostream again(closed, std::ios::app | std::ios::binary, crash_safe()); }
  ASSERT_FALSE(mapout::recover(closed));
  EXPECT_EQ(std::filesystem::file_size(closed), 9004u);
}

// A descriptor taken over may be shared (a parallel output's parts share theirs): opening over one
// cuts nothing, and recover() then does.
TEST(CrashRecovery, ADescriptorTakenOverIsNotRecovered) {
  temp_dir dir;
  const std::filesystem::path path = dir / "shared.log";
  const pid_t pid = ::fork();
  if (pid == 0) {
    mapout::ostream out(path, std::ios::out, crash_safe());
    out << "kept\n";
    die(death::kill);
  }
  ASSERT_EQ(wait_for(pid), -1);
  const auto reserved = std::filesystem::file_size(path);
  ASSERT_GT(reserved, 5u);
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  mapout::output_file file;
  ASSERT_FALSE(file.open(fd));
  EXPECT_EQ(std::filesystem::file_size(path), reserved);
  mapout::window view = file.current();
  ASSERT_FALSE(file.close(view));
  ASSERT_FALSE(mapout::recover(path));
  EXPECT_EQ(read_file(path), "kept\n");
}

TEST(CrashRecovery, RecoverOfAMissingFileNamesTheError) {
  EXPECT_EQ(mapout::recover("/nonexistent/mapout.log"), std::errc::no_such_file_or_directory);
  EXPECT_EQ(mapout_recover("/nonexistent/mapout.log"), -1);
  EXPECT_EQ(errno, ENOENT);
  errno = 0;
  EXPECT_EQ(mapout_recover(nullptr), -1);
  EXPECT_EQ(errno, EINVAL);
}

}  // namespace
}  // namespace mapout::test
#endif  // _WIN32
