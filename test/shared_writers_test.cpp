// Writers of one file that publish while another writes: what a reader sees after each flush, and
// what is left when a writer in another process joins, writes and closes at any moment. The file
// must hold what two std::ofstream make of the same calls.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <ios>
#include <random>
#include <string>
#include <vector>

#include "bytes.hpp"
#include "child_process.hpp"
#include "mapout/ostream.hpp"
#include "sanitized.hpp"
#include "seccomp_filter.hpp"
#include "strategies.hpp"
#include "temp_dir.hpp"

namespace {

// Random schedules per writer mode; one under AddressSanitizer, whose forked writers run ten times
// slower.
constexpr unsigned seeds_per_mode = mapout::test::sanitized ? 1 : 4;

using mapout::test::expect_ok;
using mapout::test::pattern;
using mapout::test::read_file;
using mapout::test::run_in_child;
using mapout::test::same_bytes;
using mapout::test::strategy_case;
using mapout::test::temp_dir;
using mapout::test::write_file;

constexpr std::ios_base::openmode in_out = std::ios::out | std::ios::in | std::ios::binary;

// Writers whose extension another writer's publish can give back.
std::vector<strategy_case> ahead_modes() {
  mapout::options unguarded = mapout::test::mapped();
  unguarded.guard_faults = false;
  return {{"mapped", mapout::test::mapped()},
          {"mapped, 64 KiB", mapout::test::mapped(64 << 10)},
          {"unguarded", unguarded}};
}

std::vector<strategy_case> every_mapped_mode() {
  std::vector<strategy_case> modes = ahead_modes();
  mapout::options on_fault = mapout::test::mapped();
  on_fault.extension = mapout::extension::on_fault;
  modes.push_back({"on_fault", on_fault});
  return modes;
}

void spin(std::mt19937& random, unsigned most) {
  for (volatile unsigned i = random() % most; i > 0; i = i - 1) {
  }
}

// Makes a flush show the bytes: publish() itself, or flush() with flush_publishes.
void show(mapout::ostream& out, bool flush_publishes) {
  if (flush_publishes) {
    out.flush();
  } else {
    out.publish();
  }
}

mapout::options with_flush_publishes(mapout::options opts, bool flush_publishes) {
  opts.flush_publishes = flush_publishes;
  return opts;
}

// A writes lines from offset 0, showing each; at a random line a child process B opens the file,
// writes at `far` in pieces and closes, while A goes on; A closes before or after B. Returns ""
// or what failed; `expected` gets what two std::ofstream make of it. With `b_ends_in_zeros`, B's
// last piece ends in zeros.
std::string write_while_another_joins(const std::filesystem::path& path,
                                      const std::filesystem::path& expected,
                                      const mapout::options& opts, const mapout::options& b_opts,
                                      bool flush_publishes, unsigned seed,
                                      bool b_ends_in_zeros = false) {
  constexpr std::size_t far = 100000;
  std::mt19937 random(seed);
  const std::size_t lines = 50 + random() % 300;
  const std::size_t joins_at = random() % lines;
  const bool a_closes_first = random() % 2 == 0;
  std::vector<std::string> a_lines;
  for (std::size_t i = 0; i < lines; ++i) {
    a_lines.push_back(pattern(20 + random() % 100, static_cast<unsigned>(i)) + "\n");
  }
  std::vector<std::string> b_pieces(1 + random() % 6);
  for (std::string& piece : b_pieces) piece = pattern(1 + random() % 20000, 7);
  const unsigned b_seed = static_cast<unsigned>(random());
  if (b_ends_in_zeros) b_pieces.back() += std::string(1 + random() % 9000, '\0');
  {
    std::ofstream a(expected, std::ios::out | std::ios::binary);
    for (const std::string& line : a_lines) a << line;
    a.flush();
    std::ofstream b(expected, in_out);
    b.seekp(static_cast<std::streamoff>(far));
    for (const std::string& piece : b_pieces) b << piece;
  }
  write_file(path, "");
  int start[2];
  int says[2];
  if (::pipe(start) != 0 || ::pipe(says) != 0) return "pipe failed";
  // Forked before A opens, so that it holds nothing of A's.
  const pid_t b_pid = mapout::test::spawn([&] {
    ::close(start[1]);
    ::close(says[0]);
    char go;
    if (::read(start[0], &go, 1) != 1) return 1;
    std::mt19937 b_random(b_seed);
    spin(b_random, 20000);
    mapout::ostream b(path, in_out, with_flush_publishes(b_opts, flush_publishes));
    b.seekp(static_cast<std::streamoff>(far));
    for (const std::string& piece : b_pieces) {
      b << piece;
      if (b_random() % 2 == 0) show(b, flush_publishes);
      spin(b_random, 5000);
    }
    b.close();
    return mapout::test::write_all(says[1], b ? "ok" : "B: " + b.error_message()) ? 0 : 1;
  });
  ::close(start[0]);
  ::close(says[1]);
  std::string failed;
  {
    mapout::ostream a(path, in_out, with_flush_publishes(opts, flush_publishes));
    for (std::size_t i = 0; i < lines; ++i) {
      a << a_lines[i];
      show(a, flush_publishes);
      if (i == joins_at && ::write(start[1], "g", 1) != 1) failed = "signal failed";
      spin(random, 3000);
    }
    if (!a_closes_first) {
      const std::string said = mapout::test::drain(says[0]);
      if (said != "ok") failed = said;
    }
    a.close();
    if (!a) failed = "A: " + a.error_message();
  }
  ::close(start[1]);
  if (a_closes_first) {
    const std::string said = mapout::test::drain(says[0]);
    if (said != "ok" && failed.empty()) failed = said;
  }
  ::close(says[0]);
  if (mapout::test::wait_for(b_pid) != 0 && failed.empty()) failed = "B did not exit with 0";
  if (!failed.empty()) return failed;
  if (::getxattr(path.c_str(), "user.mapout.end", nullptr, 0) >= 0) return "an end was left";
  const std::string same = same_bytes(path, read_file(expected));
  return same == "ok" ? "" : same;
}

TEST(ForkedWriter, BytesOfAWriterThatJoinedAndClosedSurviveTheOthersPublishes) {
  temp_dir dir;
  for (const auto& mode : every_mapped_mode()) {
    for (const bool flush_publishes : {false, true}) {
      SCOPED_TRACE(std::string(mode.name) + (flush_publishes ? ", flush_publishes" : ", publish"));
      expect_ok(run_in_child([&]() -> std::string {
        for (unsigned seed = 1; seed <= 25; ++seed) {
          const std::string failed = write_while_another_joins(
              dir / "shared.log", dir / "expected", mode.opts, mode.opts, flush_publishes, seed);
          if (!failed.empty()) return "seed " + std::to_string(seed) + ": " + failed;
        }
        return "ok";
      }));
    }
  }
}

// Zeros are bytes written: B's last bytes are zeros past A's end, which no page shows as data,
// and A, in another process, closes after B (or B after A) without cutting them.
TEST(ForkedWriter, ZerosAtTheEndOfAWriterThatClosedSurviveTheOthersClose) {
  temp_dir dir;
  for (const auto& mode : every_mapped_mode()) {
    for (const bool flush_publishes : {false, true}) {
      SCOPED_TRACE(std::string(mode.name) + (flush_publishes ? ", flush_publishes" : ", publish"));
      expect_ok(run_in_child([&]() -> std::string {
        for (unsigned seed = 1; seed <= 15; ++seed) {
          const std::string failed =
              write_while_another_joins(dir / "zeros.log", dir / "expected", mode.opts, mode.opts,
                                        flush_publishes, seed, true);
          if (!failed.empty()) return "seed " + std::to_string(seed) + ": " + failed;
        }
        return "ok";
      }));
    }
  }
}

// A writer that extends on faults and one that extends ahead: the on_fault writer's stores made
// running free, before it found the other, and its claim since, survive the other's cuts, and its
// own cuts keep the other's claim.
TEST(ForkedWriter, WritersOfBothExtensionModesLoseNothing) {
  temp_dir dir;
  mapout::options on_fault = mapout::test::mapped();
  on_fault.extension = mapout::extension::on_fault;
  const mapout::options ahead = mapout::test::mapped(64 << 10);
  for (const bool first_on_fault : {false, true}) {
    SCOPED_TRACE(first_on_fault ? "on_fault joined by ahead" : "ahead joined by on_fault");
    expect_ok(run_in_child([&]() -> std::string {
      for (unsigned seed = 1; seed <= 15; ++seed) {
        const std::string failed = write_while_another_joins(
            dir / "mixed.log", dir / "expected", first_on_fault ? on_fault : ahead,
            first_on_fault ? ahead : on_fault, seed % 2 == 0, seed);
        if (!failed.empty()) return "seed " + std::to_string(seed) + ": " + failed;
      }
      return "ok";
    }));
  }
}

// A publish while the other writer streams on without publishing leaves that writer's
// extension, which it may be storing into; the other's publish then gives it back.
TEST(TwoStreams, APublishKeepsTheExtensionTheOtherWriterStoresInto) {
  temp_dir dir;
  for (const auto& mode : ahead_modes()) {
    SCOPED_TRACE(mode.name);
    expect_ok(run_in_child([&]() -> std::string {
      const std::filesystem::path path = dir / "streams";
      write_file(path, "");
      mapout::ostream logger(path, in_out, mode.opts);
      mapout::ostream streamer(path, in_out, mode.opts);
      streamer.seekp(1000);
      std::string streamed;
      for (unsigned line = 0; line < 200; ++line) {
        logger << pattern(4, line);
        logger.publish();
        const std::string piece = pattern(1 + line * 37 % 3000, line + 1);
        streamer << piece;
        streamed += piece;
        if (std::filesystem::file_size(path) < 1000 + streamed.size()) {
          return "line " + std::to_string(line) + ": the streamer's bytes were cut";
        }
      }
      streamer.publish();
      std::string want;
      for (unsigned line = 0; line < 200; ++line) want += pattern(4, line);
      want.resize(1000, '\0');
      want += streamed;
      const std::string shown = same_bytes(path, want);
      if (shown != "ok") return "after both published: " + shown;
      logger.close();
      streamer.close();
      return same_bytes(path, want);
    }));
  }
}

// How the two writers begin, once both opened: with a random step, with a step of the first
// writer, or with a plain flush() of the first writer (which publishes nothing) and then a random
// step.
enum class beginning { either_steps, first_steps, first_flushes };

// Two writers of one process, each at its own offset, each showing every write: after each, a
// reader finds the size and the bytes that two std::ofstream give, never an extension's zeros.
std::string show_every_write(const std::filesystem::path& dir, const mapout::options& first_opts,
                             const mapout::options& second_opts, bool flush_publishes,
                             beginning begin, unsigned seed) {
  std::mt19937 random(seed);
  const std::size_t second_at = random() % 200000;
  const std::filesystem::path path = dir / "shown";
  const std::filesystem::path expected = dir / "expected";
  write_file(path, "");
  write_file(expected, "");
  mapout::ostream first(path, in_out, with_flush_publishes(first_opts, flush_publishes));
  mapout::ostream second(path, in_out, with_flush_publishes(second_opts, flush_publishes));
  std::ofstream first_std(expected, in_out);
  std::ofstream second_std(expected, in_out);
  second.seekp(static_cast<std::streamoff>(second_at));
  second_std.seekp(static_cast<std::streamoff>(second_at));
  if (begin == beginning::first_flushes) first.flush();
  for (unsigned step = 0; step < 80; ++step) {
    const bool to_first = random() % 2 == 0 || (step == 0 && begin == beginning::first_steps);
    // Now and then a piece that outgrows the first extension.
    const std::size_t size = random() % 8 == 0 ? 70000 + random() % 70000 : 1 + random() % 300;
    const std::string piece = pattern(size, step);
    mapout::ostream& out = to_first ? first : second;
    std::ofstream& out_std = to_first ? first_std : second_std;
    out << piece;
    show(out, flush_publishes);
    out_std << piece;
    out_std.flush();
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return "stat failed";
    const std::string want = read_file(expected);
    if (static_cast<std::size_t>(st.st_size) != want.size()) {
      return "step " + std::to_string(step) + ": size " + std::to_string(st.st_size) + ", want " +
             std::to_string(want.size());
    }
    const std::string same = same_bytes(path, want);
    if (same != "ok") return "step " + std::to_string(step) + ": " + same;
  }
  first.close();
  second.close();
  if (!first || !second) return "a stream failed";
  return "";
}

TEST(TwoStreams, AReaderSeesOnlyTheBytesWrittenAfterEachFlush) {
  temp_dir dir;
  for (const auto& mode : ahead_modes()) {
    for (const bool flush_publishes : {false, true}) {
      SCOPED_TRACE(std::string(mode.name) + (flush_publishes ? ", flush_publishes" : ", publish"));
      expect_ok(run_in_child([&]() -> std::string {
        for (unsigned seed = 1; seed <= seeds_per_mode; ++seed) {
          const std::string failed = show_every_write(
              dir.path(), mode.opts, mode.opts, flush_publishes, beginning::either_steps, seed);
          if (!failed.empty()) return "seed " + std::to_string(seed) + ": " + failed;
        }
        return "ok";
      }));
    }
  }
}

struct writer_pair {
  const char* name;
  mapout::options first;
  mapout::options second;
};

std::vector<writer_pair> pairs_with_on_fault() {
  mapout::options on_fault = mapout::test::mapped();
  on_fault.extension = mapout::extension::on_fault;
  const mapout::options ahead = mapout::test::mapped();
  return {{"on_fault and on_fault", on_fault, on_fault},
          {"on_fault and ahead", on_fault, ahead},
          {"ahead and on_fault", ahead, on_fault}};
}

void show_every_write_of_on_fault_pairs(const std::filesystem::path& dir, beginning begin) {
  for (const writer_pair& pair : pairs_with_on_fault()) {
    for (const bool flush_publishes : {false, true}) {
      SCOPED_TRACE(std::string(pair.name) + (flush_publishes ? ", flush_publishes" : ", publish"));
      expect_ok(run_in_child([&]() -> std::string {
        for (unsigned seed = 1; seed <= seeds_per_mode; ++seed) {
          const std::string failed =
              show_every_write(dir, pair.first, pair.second, flush_publishes, begin, seed);
          if (!failed.empty()) return "seed " + std::to_string(seed) + ": " + failed;
        }
        return "ok";
      }));
    }
  }
}

// An on_fault writer that finds another writer at an extension or a publish stops running free:
// its window ends at its extent and it claims only that, so the other's publishes cut back to
// the bytes. The first writer opened alone, so it runs free until its first call.
TEST(TwoStreams, AReaderSeesOnlyTheBytesWrittenAfterEachFlushWithOnFaultWriters) {
  temp_dir dir;
  show_every_write_of_on_fault_pairs(dir.path(), beginning::first_steps);
}

// The same when the first call of the writer that opened alone is a flush() that publishes
// nothing, and the other may step first: any call ends the free running, not only a publish.
TEST(TwoStreams, AReaderSeesOnlyTheBytesWrittenOnceAFreeWriterThatWasJoinedFlushes) {
  temp_dir dir;
  show_every_write_of_on_fault_pairs(dir.path(), beginning::first_flushes);
}

// Until its next call a free-running writer claims the whole file: its stores into the other's
// extension, made with no call since the other joined, survive the other's publishes, trailing
// zeros included (which no page shows as data).
TEST(TwoStreams, StoresOfAFreeWriterIntoTheOthersExtensionSurviveTheOthersPublish) {
  temp_dir dir;
  mapout::options on_fault = mapout::test::mapped();
  on_fault.extension = mapout::extension::on_fault;
  expect_ok(run_in_child([&] {
    const std::filesystem::path path = dir / "free";
    write_file(path, "");
    mapout::ostream free_writer(path, in_out, on_fault);
    free_writer.seekp(1000);
    mapout::ostream joiner(path, in_out, on_fault);
    joiner << pattern(100);
    joiner.publish();
    const std::string stored = pattern(6, 1) + std::string(5, '\0');
    free_writer << stored;
    joiner << pattern(10, 2);
    joiner.publish();
    free_writer.close();
    joiner.close();
    if (!free_writer || !joiner) return std::string("a stream failed");
    std::string want = pattern(100) + pattern(10, 2);
    want.resize(1000, '\0');
    want += stored;
    return same_bytes(path, want);
  }));
}

// Zeros are bytes written, though no page shows them as data: a writer that closes with zeros at
// its end, inside the other's extension, keeps them through the other's publish and close.
TEST(TwoStreams, ZerosAtTheEndOfAClosedWriterSurviveTheOthersPublish) {
  temp_dir dir;
  for (const auto& mode : every_mapped_mode()) {
    SCOPED_TRACE(mode.name);
    expect_ok(run_in_child([&] {
      const std::filesystem::path path = dir / "zeros";
      write_file(path, "");
      mapout::ostream first(path, in_out, mode.opts);
      first << pattern(1000);
      first.publish();
      {
        mapout::ostream second(path, in_out, mode.opts);
        second.seekp(3000);
        second << pattern(500, 1) << std::string(700, '\0');
      }
      first << pattern(10, 2);
      first.publish();
      first.close();
      std::string want = pattern(1000) + pattern(10, 2);
      want.resize(3000, '\0');
      want += pattern(500, 1) + std::string(700, '\0');
      return same_bytes(path, want);
    }));
  }
}

// Where the file system refuses user attributes (refused here in the kernel, for this process
// and the one it forks): a writer of another process that closes first leaves its end nowhere
// the last writer sees, so its trailing zeros are cut and the file ends at its last non-zero
// byte; a writer of the same process leaves it in the process's table, and its zeros stay.
TEST(TwoStreams, WithoutUserAttributesOnlyAWriterOfTheSameProcessKeepsZerosAtItsEnd) {
  if (mapout::test::this_architecture == 0) GTEST_SKIP() << "no seccomp architecture number";
  temp_dir dir;
  for (const auto& mode : every_mapped_mode()) {
    for (const bool same_process : {false, true}) {
      SCOPED_TRACE(std::string(mode.name) + (same_process ? ", one process" : ", two processes"));
      expect_ok(run_in_child([&]() -> std::string {
        if (!mapout::test::refuse_system_calls({__NR_fgetxattr, __NR_fsetxattr, __NR_fremovexattr},
                                               ENOTSUP)) {
          return "the filter was refused";
        }
        const std::filesystem::path path = dir / "no-attributes";
        write_file(path, "");
        const int probe = ::open(path.c_str(), O_RDWR);
        const bool refused =
            ::fsetxattr(probe, "user.mapout.probe", "1", 1, 0) != 0 && errno == ENOTSUP;
        ::close(probe);
        if (!refused) return std::string("user attributes are not refused");
        mapout::ostream first(path, in_out, mode.opts);
        first << pattern(1000);
        first.publish();
        const auto write_second = [&] {
          mapout::ostream second(path, in_out, mode.opts);
          second.seekp(3000);
          second << pattern(500, 1) << std::string(700, '\0');
          second.close();
          return second ? 0 : 1;
        };
        if (same_process) {
          if (write_second() != 0) return std::string("the second writer failed");
        } else if (mapout::test::wait_for(mapout::test::spawn(write_second)) != 0) {
          return std::string("the second writer's process failed");
        }
        first << pattern(10, 2);
        first.publish();
        first.close();
        if (!first) return "the first writer: " + first.error_message();
        std::string want = pattern(1000) + pattern(10, 2);
        want.resize(3000, '\0');
        want += pattern(500, 1);
        if (same_process) want += std::string(700, '\0');
        return same_bytes(path, want);
      }));
    }
  }
}

// A publish after a seek back shows every byte written, not only those up to the cursor; the
// next bytes past the end extend again.
TEST(Publish, AfterASeekBackShowsEveryByteWritten) {
  temp_dir dir;
  for (const auto& mode : every_mapped_mode()) {
    SCOPED_TRACE(mode.name);
    expect_ok(run_in_child([&] {
      const std::filesystem::path path = dir / "patched";
      mapout::ostream out(path, std::ios::out, mode.opts);
      out << pattern(100000);
      out.seekp(10);
      out << "PATCH";
      out.publish();
      const std::string size_then = std::to_string(std::filesystem::file_size(path));
      if (size_then != "100000") return "size after the publish " + size_then;
      out.seekp(0, std::ios::end);
      out << pattern(100, 3);
      out.close();
      std::string want = pattern(100000) + pattern(100, 3);
      want.replace(10, 5, "PATCH");
      return same_bytes(path, want);
    }));
  }
}

}  // namespace
