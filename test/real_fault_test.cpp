// Real faults: a full file system, RLIMIT_FSIZE, a truncate by another process, SIGBUS signals
// that are not mapout's, and the on_sigbus mode against the ahead mode on random output.
//
// The tests that need a process where mapout's handler is not installed yet run this executable
// again with MAPOUT_FAULT_SCENARIO set (see main at the end).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bytes.hpp"
#include "child_process.hpp"
#include "mapout/ostream.hpp"
#include "mapout/output_file.hpp"
#include "platform/sys.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::read_file;
using mapout::test::run_in_child;
using mapout::test::temp_dir;

using mapout::test::pattern;

const std::size_t page = mapout::test::page_size();

struct mode {
  const char* name;
  mapout::options opts;
};

mapout::options with(mapout::extension extension, bool guard, std::size_t reserve = 0) {
  mapout::options opts;
  opts.extension = extension;
  opts.guard_faults = guard;
  opts.strategy = mapout::strategy::mapped;
  if (reserve) opts.mapping_size = reserve;
  return opts;
}

// Every way a mapped file can grow, with a reservation small enough that the window moves.
std::vector<mode> modes() {
  return {{"ahead", with(mapout::extension::ahead, false, 256 << 10)},
          {"ahead+guard", with(mapout::extension::ahead, true, 256 << 10)},
          {"on_sigbus", with(mapout::extension::on_fault, false, 256 << 10)}};
}

// Writes `bytes` in chunks, flushing after each, until the stream fails or all is written.
// Returns how many bytes the stream took before it failed.
std::size_t write_until_failure(mapout::ostream& out, const std::string& bytes,
                                std::size_t chunk = 1000) {
  std::size_t done = 0;
  while (done < bytes.size() && out) {
    const std::size_t size = std::min(chunk, bytes.size() - done);
    out.write(bytes.data() + done, static_cast<std::streamsize>(size));
    out.flush();
    if (out) done += size;
  }
  return done;
}

// A 1 MiB tmpfs mounted for one test, when the test may mount.
class small_tmpfs {
 public:
  small_tmpfs() {
    if (::mount("mapout-test", dir_.path().c_str(), "tmpfs", 0, "size=1m") == 0)
      mounted_ = true;
    else
      error_ = std::strerror(errno);
  }
  ~small_tmpfs() {
    if (mounted_) ::umount2(dir_.path().c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }
  const std::string& error() const { return error_; }
  std::filesystem::path operator/(const std::string& name) const { return dir_ / name; }

 private:
  temp_dir dir_;
  bool mounted_ = false;
  std::string error_;
};

TEST(FullDisk, EveryModeReportsEnospcAndKeepsTheBytesBefore) {
  for (const mode& m : modes()) {
    SCOPED_TRACE(m.name);
    small_tmpfs fs;
    if (!fs.mounted()) GTEST_SKIP() << "needs root to mount a 1 MiB tmpfs: " << fs.error();
    const std::string bytes = pattern(4 << 20);
    mapout::ostream out(fs / "full", std::ios::out, m.opts);
    ASSERT_TRUE(out.is_open()) << out.rdbuf()->error_message();
    const std::size_t taken = write_until_failure(out, bytes);
    EXPECT_TRUE(out.bad());
    EXPECT_EQ(out.rdbuf()->error(), std::errc::no_space_on_device);
    EXPECT_NE(out.rdbuf()->error_message().find((fs / "full").string()), std::string::npos);
    out.close();
    EXPECT_TRUE(out.fail());
    const std::string got = read_file(fs / "full");
    // The file system holds 1 MiB: at least half of it must have been used, and every byte the
    // stream took before failing must be there unchanged.
    EXPECT_GE(got.size(), std::size_t{512} << 10);
    EXPECT_LE(got.size(), taken + 1000);
    EXPECT_TRUE(got == bytes.substr(0, got.size()));
  }
}

TEST(FileSizeLimit, EfbigIsAStreamErrorWhenSigxfszIsIgnored) {
  for (const mode& m : modes()) {
    SCOPED_TRACE(m.name);
    temp_dir dir;
    const std::uint64_t limit = (std::uint64_t{1} << 20) + 1000;
    const auto child = run_in_child([&]() -> std::string {
      ::signal(SIGXFSZ, SIG_IGN);
      const rlimit rl = {limit, limit};
      if (::setrlimit(RLIMIT_FSIZE, &rl) != 0) return "setrlimit failed";
      const std::string bytes = pattern(4 << 20);
      mapout::ostream out(dir / "limited", std::ios::out, m.opts);
      if (!out.is_open()) return "open: " + out.rdbuf()->error_message();
      write_until_failure(out, bytes);
      if (!out.bad()) return "the stream did not fail";
      if (out.rdbuf()->error() != std::errc::file_too_large) {
        return "error: " + out.rdbuf()->error_message();
      }
      out.close();
      const std::string got = read_file(dir / "limited");
      if (got.size() < (std::size_t{1} << 20) || got.size() > limit) {
        return "size " + std::to_string(got.size());
      }
      if (got != bytes.substr(0, got.size())) return "bytes before the limit changed";
      struct sigaction xfsz;
      ::sigaction(SIGXFSZ, nullptr, &xfsz);
      if (xfsz.sa_handler != SIG_IGN) return "SIGXFSZ is no longer ignored";
      return "ok";
    });
    EXPECT_EQ(child.status, 0);
    EXPECT_EQ(child.report, "ok");
  }
}

// Writes 256 KiB, lets another process cut the file to nothing, and writes on. False when the
// other process could not truncate.
bool write_around_a_truncate(mapout::ostream& out, const std::filesystem::path& path) {
  const std::string bytes = pattern(512 << 10);
  out.write(bytes.data(), 256 << 10);
  // One byte more takes the next extension, which reaches past what is written: the stores after
  // the truncate land in pages the file no longer has.
  out.put(bytes[256 << 10]);
  out.flush();
  const pid_t truncator = mapout::test::spawn([&] { return ::truncate(path.c_str(), 0); });
  if (mapout::test::wait_for(truncator) != 0) return false;
  out.write(bytes.data() + (256 << 10) + 1, (256 << 10) - 1);
  out.flush();
  return true;
}

// The children that are meant to die of SIGBUS leave no core file behind.
void no_core_files() {
  const rlimit none = {0, 0};
  ::setrlimit(RLIMIT_CORE, &none);
}

TEST(ExternalTruncate, GuardedStreamFailsWithEioAndTheProcessLives) {
  for (const mode& m : modes()) {
    if (!m.opts.guard_faults && m.opts.extension == mapout::extension::ahead) continue;
    SCOPED_TRACE(m.name);
    temp_dir dir;
    mapout::ostream out(dir / "cut", std::ios::out, m.opts);
    ASSERT_TRUE(out.is_open());
    ASSERT_TRUE(write_around_a_truncate(out, dir / "cut"));
    EXPECT_TRUE(out.bad());
    EXPECT_EQ(out.rdbuf()->error(), std::errc::io_error);
    const std::string message = out.rdbuf()->error_message();
    EXPECT_NE(message.find("truncated by another process"), std::string::npos) << message;
    EXPECT_NE(message.find((dir / "cut").string()), std::string::npos) << message;
    out.close();
    EXPECT_TRUE(out.fail());
    // The other process's truncate stands: close does not grow the file back.
    EXPECT_EQ(std::filesystem::file_size(dir / "cut"), 0u);
  }
}

// ---- Random output: on_sigbus must write exactly what ahead writes, many streams at a time.

struct random_step {
  enum { write, put, number, seek_back, seek_forward, flush } kind;
  std::size_t size;
  std::uint64_t value;
};

std::vector<random_step> random_steps(unsigned seed) {
  std::mt19937_64 random(seed);
  std::vector<random_step> steps(40);
  for (random_step& step : steps) {
    const unsigned roll = random() % 100;
    step.kind = roll < 45   ? random_step::write
                : roll < 60 ? random_step::put
                : roll < 75 ? random_step::number
                : roll < 85 ? random_step::seek_back
                : roll < 92 ? random_step::seek_forward
                            : random_step::flush;
    step.size = random() % 8 == 0 ? random() % (1 << 20) : random() % 5000;
    step.value = random();
  }
  return steps;
}

// What the file should hold, and where the stream's cursor is.
struct file_model {
  std::string bytes;
  std::size_t position = 0;
};

// Applies the steps to `out` and to `file`.
void apply(const std::vector<random_step>& steps, std::ostream& out, file_model& file) {
  static const std::string text = pattern(1 << 20);
  std::string& model = file.bytes;
  std::size_t& position = file.position;
  auto store = [&](const std::string& bytes) {
    if (model.size() < position + bytes.size()) model.resize(position + bytes.size(), '\0');
    model.replace(position, bytes.size(), bytes);
    position += bytes.size();
  };
  for (const random_step& step : steps) {
    switch (step.kind) {
      case random_step::write:
        out.write(text.data(), static_cast<std::streamsize>(step.size));
        store(text.substr(0, step.size));
        break;
      case random_step::put:
        out.put(static_cast<char>('A' + step.value % 26));
        store(std::string(1, static_cast<char>('A' + step.value % 26)));
        break;
      case random_step::number:
        out << step.value << ' ';
        store(std::to_string(step.value) + ' ');
        break;
      case random_step::seek_back:
        position = model.empty() ? 0 : step.value % model.size();
        out.seekp(static_cast<std::streamoff>(position));
        break;
      case random_step::seek_forward:
        position = model.size() + step.size;
        out.seekp(static_cast<std::streamoff>(position));
        break;
      case random_step::flush:
        out.flush();
        break;
    }
  }
}

TEST(SigbusMode, ByteIdenticalToAheadModeWithManyStreamsInSeveralThreads) {
  temp_dir dir;
  constexpr int threads = 4;
  constexpr int seeds_per_thread = 6;
  constexpr int streams_at_once = 3;
  const std::size_t reserves[] = {3 * page, 64 << 10, 1 << 20, 0};
  std::vector<std::string> failures(threads);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (int s = 0; s < seeds_per_thread; ++s) {
        const unsigned seed = static_cast<unsigned>(t * 1000 + s);
        const std::size_t reserve = reserves[seed % 4];
        std::vector<std::unique_ptr<mapout::ostream>> outs;
        std::vector<file_model> models(2 * streams_at_once);
        std::vector<std::filesystem::path> paths;
        for (int k = 0; k < 2 * streams_at_once; ++k) {
          const auto extension = k % 2 ? mapout::extension::on_fault : mapout::extension::ahead;
          paths.push_back(dir / (std::to_string(seed) + "-" + std::to_string(k)));
          outs.push_back(std::make_unique<mapout::ostream>(paths.back(), std::ios::binary,
                                                           with(extension, false, reserve)));
        }
        // All streams of this thread are open at once and written in turns.
        const std::vector<random_step> steps = random_steps(seed);
        for (std::size_t from = 0; from < steps.size(); from += 5) {
          const std::vector<random_step> slice(steps.begin() + static_cast<long>(from),
                                               steps.begin() + static_cast<long>(from + 5));
          for (int k = 0; k < 2 * streams_at_once; ++k) {
            apply(slice, *outs[static_cast<std::size_t>(k)], models[static_cast<std::size_t>(k)]);
          }
        }
        for (int k = 0; k < 2 * streams_at_once; ++k) {
          mapout::ostream& out = *outs[static_cast<std::size_t>(k)];
          out.close();
          const std::string got = read_file(paths[static_cast<std::size_t>(k)]);
          if (!out || got != models[static_cast<std::size_t>(k)].bytes) {
            failures[static_cast<std::size_t>(t)] +=
                "seed " + std::to_string(seed) + " stream " + std::to_string(k) + " differs; ";
          }
        }
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  for (const std::string& failure : failures) EXPECT_EQ(failure, "");
}

TEST(SigbusMode, WindowSpansTheReservationAndStoresPastTheEndGrowTheFile) {
  temp_dir dir;
  mapout::output_file file;
  ASSERT_FALSE(file.open(dir / "grown", std::ios::out,
                         with(mapout::extension::on_fault, false, std::size_t{1} << 20)));
  char* const begin = file.current().begin;
  ASSERT_EQ(file.current().end - begin, 1 << 20);
  EXPECT_EQ(std::filesystem::file_size(dir / "grown"), 0u);
  begin[700000] = 'x';  // past the end of an empty file: the handler extends it
  EXPECT_GT(std::filesystem::file_size(dir / "grown"), 700000u);
  mapout::output_file::window view{begin + 700001, file.current().end};
  ASSERT_FALSE(file.close(view));
  const std::string got = read_file(dir / "grown");
  ASSERT_EQ(got.size(), 700001u);
  EXPECT_EQ(got[700000], 'x');
  EXPECT_EQ(got[699999], '\0');
}

TEST(SigbusMode, HundredsOfStreamsOpenAtOnce) {
  temp_dir dir;
  std::vector<std::unique_ptr<mapout::ostream>> outs;
  for (int k = 0; k < 300; ++k) {
    outs.push_back(std::make_unique<mapout::ostream>(dir / std::to_string(k), std::ios::out,
                                                     with(mapout::extension::on_fault, false)));
    ASSERT_TRUE(outs.back()->is_open());
  }
  for (int k = 0; k < 300; ++k) *outs[static_cast<std::size_t>(k)] << "stream " << k << '\n';
  for (int k = 0; k < 300; ++k) {
    outs[static_cast<std::size_t>(k)]->close();
    EXPECT_TRUE(*outs[static_cast<std::size_t>(k)]);
    EXPECT_EQ(read_file(dir / std::to_string(k)), "stream " + std::to_string(k) + "\n");
  }
}

// ---- SIGBUS signals that are not mapout's, in a fresh process each.

// Stores into a page past the end of an empty file: a SIGBUS at an address mapout never mapped.
char* foreign_fault(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
  void* const map = ::mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) return nullptr;
  char* const address = static_cast<char*>(map) + 10;
  *static_cast<volatile char*>(address) = 'x';
  return address;
}

volatile char* seen_address = nullptr;
volatile int plain_calls = 0;

void fix_foreign_fault(int, siginfo_t* info, void*) {
  seen_address = static_cast<char*>(info->si_addr);
  const auto at = reinterpret_cast<std::uintptr_t>(info->si_addr) & ~(page - 1);
  ::mmap(reinterpret_cast<void*>(at), page, PROT_READ | PROT_WRITE,
         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
}

void count_plain(int) {
  plain_calls = plain_calls + 1;
}

// Opens a stream in on_sigbus mode, which installs mapout's handler, and writes through faults.
bool mapout_works(const std::filesystem::path& dir) {
  mapout::ostream out(dir / "ours", std::ios::out, with(mapout::extension::on_fault, false));
  const std::string bytes = pattern(3 << 20);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  return out && read_file(dir / "ours") == bytes;
}

// The faults nothing can serve, in a process whose SIGBUS had the default action before mapout's
// handler: each must end the process with SIGBUS, as it would without mapout. Returns only when
// the process survived, which is wrong.
int run_fatal_scenario(const std::string& scenario, const std::filesystem::path& dir,
                       int ready_fd) {
  if (scenario == "unguarded-truncate") {
    mapout::ostream out(dir / "cut", std::ios::out, with(mapout::extension::ahead, false));
    if (::write(ready_fd, "ready", 5) != 5) return 12;
    write_around_a_truncate(out, dir / "cut");
  } else if (scenario == "no-scratch-page") {
    mapout::ostream out(dir / "full", std::ios::out, with(mapout::extension::on_fault, false));
    if (::write(ready_fd, "ready", 5) != 5) return 12;
    mapout::detail::sys().fallocate = [](int, int, off_t, off_t) {
      errno = ENOSPC;
      return -1;
    };
    mapout::detail::sys().mmap = [](void*, std::size_t, int, int, int, off_t) {
      errno = ENOMEM;
      return MAP_FAILED;
    };
    out << 'x';
  } else if (scenario == "outside-guarded-window") {
    mapout::output_file file;
    if (file.open(dir / "guarded", std::ios::out, with(mapout::extension::ahead, true)) || [&] {
          mapout::output_file::window view = file.current();
          return file.make_room(view, 1);
        }()) {
      return 11;
    }
    if (::write(ready_fd, "ready", 5) != 5) return 12;
    file.current().end[page] = 'x';  // past the extent the window ends at, inside the mapping
  }
  return 20;
}

// Runs in the re-executed child: 0 when the scenario came through alive as it should.
int run_scenario(const std::string& scenario, const std::filesystem::path& dir, int ready_fd) {
  no_core_files();
  struct sigaction before = {};
  sigemptyset(&before.sa_mask);
  if (scenario == "default-fault") {
    before.sa_handler = SIG_DFL;
  } else if (scenario == "ignore-fault" || scenario == "ignore-kill") {
    before.sa_handler = SIG_IGN;
  } else if (scenario == "siginfo-fault") {
    before.sa_sigaction = fix_foreign_fault;
    before.sa_flags = SA_SIGINFO;
  } else if (scenario == "plain-kill") {
    before.sa_handler = count_plain;
  } else {
    before.sa_handler = SIG_DFL;
    ::sigaction(SIGBUS, &before, nullptr);
    return run_fatal_scenario(scenario, dir, ready_fd);
  }
  ::sigaction(SIGBUS, &before, nullptr);
  if (!mapout_works(dir)) return 11;
  if (::write(ready_fd, "ready", 5) != 5) return 12;
  if (scenario == "ignore-kill" || scenario == "plain-kill") {
    ::kill(::getpid(), SIGBUS);
    if (scenario == "plain-kill" && plain_calls != 1) return 13;
  } else {
    char* const address = foreign_fault(dir / "foreign");
    if (scenario == "siginfo-fault" && (address == nullptr || seen_address != address)) return 14;
  }
  return mapout_works(dir) ? 0 : 15;
}

struct scenario_result {
  int status = 0;
  std::string ready;
};

scenario_result run_fresh_process(const std::string& scenario) {
  temp_dir dir;
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    ::setenv("MAPOUT_FAULT_SCENARIO", scenario.c_str(), 1);
    ::setenv("MAPOUT_FAULT_DIR", dir.path().c_str(), 1);
    ::setenv("MAPOUT_FAULT_READY_FD", std::to_string(fds[1]).c_str(), 1);
    ::execl("/proc/self/exe", "mapout_fault_tests", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(fds[1]);
  scenario_result result;
  result.ready = mapout::test::drain(fds[0]);
  ::close(fds[0]);
  ::waitpid(pid, &result.status, 0);
  return result;
}

// Runs `scenario` in a fresh process, which must get ready and then die of SIGBUS.
void expect_death_by_sigbus(const std::string& scenario) {
  const scenario_result r = run_fresh_process(scenario);
  EXPECT_EQ(r.ready, "ready");
  ASSERT_TRUE(WIFSIGNALED(r.status)) << "exit status " << WEXITSTATUS(r.status);
  EXPECT_EQ(WTERMSIG(r.status), SIGBUS);
}

// Runs `scenario` in a fresh process, which must get ready and then exit with status 0.
void expect_clean_exit(const std::string& scenario) {
  const scenario_result r = run_fresh_process(scenario);
  EXPECT_EQ(r.ready, "ready");
  ASSERT_TRUE(WIFEXITED(r.status)) << "killed by signal " << WTERMSIG(r.status);
  EXPECT_EQ(WEXITSTATUS(r.status), 0);
}

TEST(ForeignSigbus, DefaultActionStillKills) {
  expect_death_by_sigbus("default-fault");
}

TEST(ForeignSigbus, IgnoredSentSignalIsIgnored) {
  expect_clean_exit("ignore-kill");
}

// A fault cannot be ignored: the kernel kills for it, and so must the chained handler.
TEST(ForeignSigbus, IgnoredFaultStillKills) {
  expect_death_by_sigbus("ignore-fault");
}

TEST(ForeignSigbus, PreviousSiginfoHandlerGetsTheFaultAddress) {
  expect_clean_exit("siginfo-fault");
}

TEST(ForeignSigbus, PreviousPlainHandlerGetsASentSignal) {
  expect_clean_exit("plain-kill");
}

// ---- Faults nothing can serve: the process dies as it would without mapout.

// The truncate scenario above really is fatal without the guard.
TEST(FatalSigbus, UnguardedStoreIntoATruncatedFile) {
  expect_death_by_sigbus("unguarded-truncate");
}

// With no scratch page to put the store in, the store cannot succeed: the process dies rather
// than fault forever.
TEST(FatalSigbus, NoScratchPageForAFailedExtension) {
  expect_death_by_sigbus("no-scratch-page");
}

// The guard serves stores into what the file was, not stores outside the window it gave.
TEST(FatalSigbus, StoreOutsideTheGuardedWindow) {
  expect_death_by_sigbus("outside-guarded-window");
}

}  // namespace

int main(int argc, char** argv) {
  if (const char* scenario = std::getenv("MAPOUT_FAULT_SCENARIO")) {
    return run_scenario(scenario, std::getenv("MAPOUT_FAULT_DIR"),
                        std::atoi(std::getenv("MAPOUT_FAULT_READY_FD")));
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
