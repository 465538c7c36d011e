// Two writers of one file, as two std::ofstream would share it: two streams of one process that
// fill its halves, and a stream that a forked child writes on after the parent closed its copy
// (the daemon pattern). Whatever the order of the closes, the file must end with exactly the bytes
// written, on ext4, tmpfs and XFS, in every strategy and extension mode. Each scenario runs in a
// forked child, since a store into a cut file could kill it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <ios>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "bytes.hpp"
#include "child_process.hpp"
#include "mapout/ostream.hpp"
#include "mounted_file_system.hpp"
#include "platform/sys.hpp"
#include "strategies.hpp"
#include "system_call_override.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::expect_ok;
using mapout::test::same_bytes;

using mapout::test::mounted_file_system;
using mapout::test::pattern;
using mapout::test::read_file;
using mapout::test::run_in_child;
using mapout::test::strategy_case;
using mapout::test::temp_dir;
using mapout::test::write_file;

std::vector<strategy_case> mapped_modes() {
  mapout::options ahead_64k = mapout::test::mapped(64 << 10);
  mapout::options on_sigbus = mapout::test::mapped();
  on_sigbus.extension = mapout::extension::on_fault;
  mapout::options on_sigbus_64k = mapout::test::mapped(64 << 10);
  on_sigbus_64k.extension = mapout::extension::on_fault;
  mapout::options unguarded = mapout::test::mapped();
  unguarded.guard_faults = false;
  return {{"mapped", mapout::test::mapped()},
          {"mapped, 64 KiB", ahead_64k},
          {"on_sigbus", on_sigbus},
          {"on_sigbus, 64 KiB", on_sigbus_64k},
          {"unguarded", unguarded}};
}

// Automatic maps on XFS once the file outgrows its first buffer, and buffers on ext4 and tmpfs.
std::vector<strategy_case> every_mode() {
  std::vector<strategy_case> modes = mapped_modes();
  modes.push_back({"automatic", mapout::options{}});
  modes.push_back({"buffered", mapout::test::buffered()});
  return modes;
}

// The second writer opens and starts on the second half; the first opens (the file's size now
// holds the second's extension, if it has one); both go on in pieces of random size, and close,
// the second first or last; the second half ends in `trailing_zeros` zero bytes. Streams of type
// Stream, opened by `open`. Returns "" or what failed.
template <typename Stream>
std::string fill_halves(const std::function<Stream(const std::filesystem::path&)>& open,
                        const std::filesystem::path& path, std::size_t half, bool second_first,
                        unsigned seed, std::size_t trailing_zeros) {
  const std::string first_half = pattern(half, 3);
  // Zero bytes at the file's end are bytes written, though no page shows them as data.
  const std::string second_half =
      pattern(half - trailing_zeros, 4) + std::string(trailing_zeros, '\0');
  std::mt19937 random(seed);
  write_file(path, "");
  Stream second = open(path);
  second.seekp(static_cast<std::streamoff>(half));
  std::size_t second_done = 1 + random() % 5000;
  second.write(second_half.data(), static_cast<std::streamsize>(second_done));
  Stream first = open(path);
  std::size_t first_done = 0;
  while (first_done < half || second_done < half) {
    const bool to_first = second_done == half || (first_done < half && random() % 2 == 0);
    std::size_t& done = to_first ? first_done : second_done;
    const std::size_t size = std::min<std::size_t>(half - done, 1 + random() % 20000);
    Stream& out = to_first ? first : second;
    out.write((to_first ? first_half : second_half).data() + done,
              static_cast<std::streamsize>(size));
    done += size;
  }
  (second_first ? second : first).close();
  (second_first ? first : second).close();
  return first && second ? "" : "a stream failed";
}

// Both close orders, a few random interleavings, in every mode, in `dir`.
void fill_halves_everywhere(const std::filesystem::path& dir) {
  const std::function<std::ofstream(const std::filesystem::path&)> open_std =
      [](const std::filesystem::path& path) {
        return std::ofstream(path, std::ios::out | std::ios::in | std::ios::binary);
      };
  for (const auto& mode : every_mode()) {
    for (const bool second_first : {true, false}) {
      for (unsigned seed = 1; seed <= 3; ++seed) {
        SCOPED_TRACE(std::string(mode.name) + (second_first ? ", second closes first" : "") +
                     ", seed " + std::to_string(seed));
        const std::size_t half = 200000 + seed * 77777;
        const std::size_t zeros = seed == 3 ? 9000 : 0;
        expect_ok(run_in_child([&] {
          const std::function<mapout::ostream(const std::filesystem::path&)> open_mapout =
              [&](const std::filesystem::path& path) {
                return mapout::ostream(path, std::ios::out | std::ios::in, mode.opts);
              };
          std::string failed =
              fill_halves(open_std, dir / "expected", half, second_first, seed, zeros);
          if (failed.empty())
            failed = fill_halves(open_mapout, dir / "halves", half, second_first, seed, zeros);
          if (!failed.empty()) return failed;
          return same_bytes(dir / "halves", read_file(dir / "expected"));
        }));
      }
    }
  }
}

TEST(TwoStreams, InterleavedHalvesEndAsWithOfstreamOnExt4) {
  temp_dir dir;
  fill_halves_everywhere(dir.path());
}

// Without /proc each writer's lock is its descriptor's: two streams are still told apart.
TEST(TwoStreams, InterleavedHalvesEndAsWithOfstreamWithoutProc) {
  const mapout::test::system_call_override<&mapout::detail::system_calls::open> no_proc(
      [](const char* path, int flags, mode_t mode) {
        if (std::strncmp(path, "/proc/", 6) == 0) {
          errno = ENOENT;
          return -1;
        }
        return mapout::detail::real_system_calls().open(path, flags, mode);
      });
  temp_dir dir;
  fill_halves_everywhere(dir.path());
}

TEST(TwoStreams, InterleavedHalvesEndAsWithOfstreamOnTmpfs) {
  mounted_file_system fs("64m");
  if (!fs.mounted()) GTEST_SKIP() << "needs a tmpfs mount (root): " << fs.error();
  fill_halves_everywhere(fs / "");
}

TEST(TwoStreams, InterleavedHalvesEndAsWithOfstreamOnXfs) {
  mounted_file_system fs("mkfs.xfs -q -f", 300);
  if (!fs.mounted()) GTEST_SKIP() << "needs an XFS loop image: " << fs.error();
  fill_halves_everywhere(fs / "");
}

// The daemon pattern: a process opens a stream (a static one, closed by exit), writes, forks and
// exits; the child writes on, after the parent's close, and closes last. Bytes of both copies
// stay, and the file ends where the child's bytes end. Returns what the child or the file says.
// Not for a buffer: as with std::ofstream, both copies would write the bytes it held at the fork,
// at the offset the two share.
std::string write_as_a_daemon(const std::filesystem::path& path, const mapout::options& opts) {
  const std::string bytes = pattern(3300000);
  const std::string header = "patched by the parent";
  int parent_alive[2];
  int child_says[2];
  if (::pipe(parent_alive) != 0 || ::pipe(child_says) != 0) return "pipe failed";
  const pid_t parent = mapout::test::spawn([&] {
    ::close(child_says[0]);
    static mapout::ostream out;
    out.open(path, std::ios::out, opts);
    // In pieces, so that the file is extended past them by then.
    for (std::size_t done = 0; done < 100000; done += 1000) out.write(bytes.data() + done, 1000);
    const pid_t child = mapout::test::spawn([&] {
      ::close(parent_alive[1]);
      mapout::test::drain(parent_alive[0]);  // until the parent exited
      out.write(bytes.data() + 100000, static_cast<std::streamsize>(bytes.size() - 100000));
      out.close();
      return mapout::test::write_all(child_says[1], out ? "ok" : out.error_message()) ? 0 : 1;
    });
    if (child < 0) return 1;
    out.seekp(0);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    std::exit(out ? 0 : 2);
  });
  ::close(parent_alive[0]);
  ::close(parent_alive[1]);
  ::close(child_says[1]);
  const std::string said = mapout::test::drain(child_says[0]);
  ::close(child_says[0]);
  if (mapout::test::wait_for(parent) != 0) return "the parent failed";
  if (said != "ok") return "the child: " + said;
  return same_bytes(path, header + bytes.substr(header.size()));
}

TEST(ForkedStream, DaemonChildWritesOnAfterTheParentExitsOnExt4) {
  temp_dir dir;
  for (const auto& mode : mapped_modes()) {
    SCOPED_TRACE(mode.name);
    expect_ok(run_in_child([&] { return write_as_a_daemon(dir / "daemon.log", mode.opts); }));
  }
}

// XFS, where automatic maps the file once it outgrows the first buffer.
TEST(ForkedStream, DaemonChildWritesOnAfterTheParentExitsOnXfs) {
  mounted_file_system fs("mkfs.xfs -q -f", 300);
  if (!fs.mounted()) GTEST_SKIP() << "needs an XFS loop image: " << fs.error();
  std::vector<strategy_case> modes = mapped_modes();
  modes.push_back({"automatic", mapout::options{}});
  for (const auto& mode : modes) {
    SCOPED_TRACE(mode.name);
    expect_ok(run_in_child([&] { return write_as_a_daemon(fs / "daemon.log", mode.opts); }));
  }
}

}  // namespace
