// Past its first megabytes a mapped file streams on with a second thread populating its pages
// ahead of the stores: the bytes must be exactly what std::ofstream writes, through moves of the
// mapping and seeks, and every way the thread can fail must leave the writer correct.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <fstream>
#include <random>
#include <string>
#include <system_error>
#include <thread>

#include "bytes.hpp"
#include "child_process.hpp"
#include "mapout/ostream.hpp"
#include "platform/sys.hpp"
#include "strategies.hpp"
#include "system_call_override.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::mapped;
using mapout::test::pattern;
using mapout::test::read_file;
using mapout::test::temp_dir;

constexpr std::size_t mib = std::size_t{1} << 20;

// Counts the MADV_POPULATE_WRITE calls made off the thread that opened the stream; with
// `refuse`, each fails as on a kernel older than 5.14.
template <bool refuse>
class thread_populates {
 public:
  thread_populates() : madvise_(&call) {
    writer() = std::this_thread::get_id();
    count() = 0;
  }
  static int calls() { return count(); }

 private:
  static std::thread::id& writer() {
    static std::thread::id id;
    return id;
  }
  static std::atomic<int>& count() {
    static std::atomic<int> calls{0};
    return calls;
  }
  static int call(void* address, std::size_t length, int advice) {
    if (advice == MADV_POPULATE_WRITE && std::this_thread::get_id() != writer()) {
      ++count();
      if (refuse) {
        errno = EINVAL;
        return -1;
      }
    }
    return mapout::detail::real_system_calls().madvise(address, length, advice);
  }

  mapout::test::system_call_override<&mapout::detail::system_calls::madvise> madvise_;
};

// The same random pieces, seeks back and forward and flushes to a mapout::ostream and to a
// std::ofstream.
template <typename Stream>
void write_randomly(Stream& out, const std::string& text, unsigned seed) {
  std::mt19937 random(seed);
  std::size_t at = 0;
  while (at < text.size()) {
    const unsigned roll = random() % 100;
    const std::size_t size =
        std::min<std::size_t>(text.size() - at, roll < 5 ? random() % (2 * mib) : random() % 300);
    out.write(text.data() + at, static_cast<std::streamsize>(size));
    at += size;
    if (roll >= 97) {
      // Patch a few bytes behind the cursor, then stream on from the end.
      const auto end = out.tellp();
      out.seekp(end - static_cast<std::streamoff>(random() % std::min<std::size_t>(at, 3 * mib)));
      out.write("patch", 5);
      out.seekp(end);
    } else if (roll == 96) {
      out.flush();
    }
  }
}

TEST(BackgroundPopulate, LargeFileMatchesOfstreamThroughMovesAndSeeks) {
  temp_dir dir;
  for (const std::size_t reserve : {4 * mib, 32 * mib}) {
    SCOPED_TRACE(reserve);
    const std::string text = pattern(40 * mib + 4321, static_cast<unsigned>(reserve));
    {
      const thread_populates<false> populates;
      mapout::ostream out(dir / "mapped", std::ios::out, mapped(reserve));
      write_randomly(out, text, 7);
      out.close();
      ASSERT_TRUE(out) << out.rdbuf()->error_message();
      EXPECT_GT(populates.calls(), 0);
    }
    std::ofstream expected(dir / "expected", std::ios::binary);
    write_randomly(expected, text, 7);
    expected.close();
    EXPECT_TRUE(read_file(dir / "mapped") == read_file(dir / "expected"));
  }
}

TEST(BackgroundPopulate, RefusedInTheThreadTheStoresFaultThePagesIn) {
  temp_dir dir;
  const std::string text = pattern(24 * mib + 99);
  {
    const thread_populates<true> refuses;
    mapout::ostream out(dir / "out", std::ios::out, mapped(4 * mib));
    for (std::size_t at = 0; at < text.size(); at += 1000) {
      const std::size_t size = std::min<std::size_t>(1000, text.size() - at);
      out.write(text.data() + at, static_cast<std::streamsize>(size));
    }
    out.close();
    ASSERT_TRUE(out) << out.rdbuf()->error_message();
    EXPECT_EQ(refuses.calls(), 1);  // refused once, never asked again for this file
  }
  EXPECT_TRUE(read_file(dir / "out") == text);
}

// A forked child has the stream's memory but not its thread: it writes on and closes without it.
TEST(BackgroundPopulate, ForkedChildWritesOnAndClosesWithoutTheThread) {
  temp_dir dir;
  const std::string text = pattern(30 * mib);
  mapout::ostream out(dir / "forked", std::ios::out, mapped(4 * mib));
  out.write(text.data(), static_cast<std::streamsize>(12 * mib));
  const pid_t child = mapout::test::spawn([&] {
    ::alarm(120);  // a child that waits for the thread it does not have dies instead of hanging
    out.write(text.data() + 12 * mib, static_cast<std::streamsize>(text.size() - 12 * mib));
    out.close();
    return out ? 0 : 3;
  });
  ASSERT_EQ(mapout::test::wait_for(child), 0);
  // The parent's copy, thread and all, still works: it rewrites its own start and closes, and
  // its close (the child's never cuts) keeps the child's bytes.
  out.seekp(0);
  out.write(text.data(), 100);
  out.close();
  ASSERT_TRUE(out) << out.rdbuf()->error_message();
  EXPECT_TRUE(read_file(dir / "forked") == text);
}

// A process that may start no thread (RLIMIT_NPROC used up, as for a busy build user or in a
// container's pid limit) writes the whole file without one. Root ignores the limit: the child
// becomes nobody, after opening the file as root.
TEST(BackgroundPopulate, NoThreadUnderAnExhaustedProcessLimitWritesOn) {
  temp_dir dir;
  const std::string text = pattern(20 * mib + 77);
  const auto child = mapout::test::run_in_child([&] {
    mapout::ostream out(dir / "limited", std::ios::out, mapped());
    const rlimit none = {0, 0};
    if (::setrlimit(RLIMIT_NPROC, &none) != 0) return std::string("setrlimit failed");
    const uid_t nobody = 65534;
    if (::geteuid() == 0 &&
        (::setresgid(nobody, nobody, nobody) != 0 || ::setresuid(nobody, nobody, nobody) != 0)) {
      return std::string("cannot become nobody");
    }
    try {
      std::thread([] {}).join();
      return std::string("a thread started: the limit does not hold");
    } catch (const std::system_error&) {
    }
    for (std::size_t at = 0; at < text.size(); at += 65536) {
      const std::size_t size = std::min<std::size_t>(65536, text.size() - at);
      out.write(text.data() + at, static_cast<std::streamsize>(size));
    }
    out.close();
    return out ? std::string("ok") : out.rdbuf()->error_message();
  });
  EXPECT_EQ(child.status, 0) << "the writer did not exit normally";
  EXPECT_EQ(child.report, "ok");
  EXPECT_TRUE(read_file(dir / "limited") == text);
}

// Another process truncates the file while the thread populates ahead: its populate fails, the
// stores past the new end meet the guard, and the stream fails with EIO.
TEST(BackgroundPopulate, FileTruncatedWhilePopulatingFailsWithEio) {
  temp_dir dir;
  const std::string text = pattern(24 * mib);
  mapout::options opts = mapped(4 * mib);
  opts.guard_faults = true;
  mapout::ostream out(dir / "cut", std::ios::out, opts);
  out.write(text.data(), static_cast<std::streamsize>(12 * mib));
  out.flush();
  const pid_t truncator = mapout::test::spawn([&] { return ::truncate((dir / "cut").c_str(), 0); });
  ASSERT_EQ(mapout::test::wait_for(truncator), 0);
  out.write(text.data() + 12 * mib, static_cast<std::streamsize>(12 * mib));
  out.flush();
  EXPECT_TRUE(out.bad());
  EXPECT_EQ(out.rdbuf()->error(), std::errc::io_error) << out.rdbuf()->error_message();
  out.close();
  EXPECT_EQ(std::filesystem::file_size(dir / "cut"), 0u);
}

}  // namespace
