// options.atomic, write_if_changed and durable, and discard(): the target stays as it was until a
// close that succeeds, an unchanged output leaves the file exactly as it was (inode, mtime), and
// every failure leaves the old file and no temporary behind, on every strategy.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "bytes.hpp"
#include "child_process.hpp"
#include "mapout/ostream.hpp"
#include "mapout/output_file.hpp"
#include "mapout/streambuf.hpp"
#include "mounted_file_system.hpp"
#include "strategies.hpp"
#include "system_call_override.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::names_in;
using mapout::test::stat_of;

namespace fs = std::filesystem;
using calls = mapout::detail::system_calls;
using mapout::test::page_size;
using mapout::test::pattern;
using mapout::test::read_file;
using mapout::test::system_call_override;
using mapout::test::temp_dir;
using mapout::test::write_file;

// Every strategy, the automatic choice and the SIGBUS extension among them.
std::vector<mapout::test::strategy_case> every_strategy() {
  std::vector<mapout::test::strategy_case> cases = mapout::test::strategies();
  cases.push_back({"automatic", mapout::options{}});
  mapout::options small_first_buffer;
  small_first_buffer.buffer_size = 4096;
  cases.push_back({"automatic, small first buffer", small_first_buffer});
  mapout::options on_sigbus = mapout::test::mapped(page_size());
  on_sigbus.extension = mapout::extension::on_fault;
  cases.push_back({"on_sigbus", on_sigbus});
  return cases;
}

mapout::options with(mapout::options opts, bool atomic, bool if_changed) {
  opts.atomic = atomic;
  opts.write_if_changed = if_changed;
  return opts;
}

// An old file with an mtime far in the past, nanoseconds included, so that any write shows.
void write_old_file(const fs::path& path, const std::string& bytes) {
  write_file(path, bytes);
  const struct timespec times[2] = {{946684800, 123456789}, {946684800, 123456789}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}

// Writes `bytes` in random pieces through every kind of call.
void write_in_pieces(mapout::ostream& out, const std::string& bytes, unsigned seed) {
  std::mt19937 random(seed);
  for (std::size_t at = 0; at < bytes.size();) {
    const std::size_t size = std::min<std::size_t>(bytes.size() - at, random() % 9000 + 1);
    if (size == 1) {
      out.put(bytes[at]);
    } else {
      out.write(bytes.data() + at, static_cast<std::streamsize>(size));
    }
    at += size;
  }
}

bool same_file_untouched(const struct stat& before, const struct stat& after) {
  return before.st_ino == after.st_ino && before.st_mtim.tv_sec == after.st_mtim.tv_sec &&
         before.st_mtim.tv_nsec == after.st_mtim.tv_nsec;
}

// ---- atomic ----

TEST(Atomic, TargetIsUntouchedUntilCloseOnEveryStrategy) {
  for (const auto& strategy : every_strategy()) {
    SCOPED_TRACE(strategy.name);
    temp_dir dir;
    const std::string old_bytes = pattern(5000, 1);
    const std::string new_bytes = pattern(300 * 1024, 2);
    write_old_file(dir / "out", old_bytes);
    mapout::ostream out(dir / "out", std::ios::binary, with(strategy.opts, true, false));
    ASSERT_TRUE(out.is_open()) << out.error_message();
    write_in_pieces(out, new_bytes, 1);
    out.publish();
    out.flush();
    EXPECT_EQ(read_file(dir / "out"), old_bytes);
    out.close();
    ASSERT_TRUE(out) << out.error_message();
    EXPECT_EQ(read_file(dir / "out"), new_bytes);
    EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"out"});
  }
}

TEST(Atomic, NewFileGetsWhatOfstreamGives) {
  temp_dir dir;
  const mode_t saved = ::umask(027);
  mapout::options opts;
  opts.atomic = true;
  {
    mapout::ostream out(dir / "new", std::ios::out, opts);
    out << "x";
    out.close();
    ASSERT_TRUE(out) << out.error_message();
  }
  std::ofstream(dir / "ofstream") << "x";
  ::umask(saved);
  EXPECT_EQ(stat_of(dir / "new").st_mode & 07777, 0640u);
  EXPECT_EQ(stat_of(dir / "new").st_mode, stat_of(dir / "ofstream").st_mode);
}

TEST(Atomic, ReplacedFileKeepsItsPermissionBits) {
  temp_dir dir;
  write_old_file(dir / "out", "old");
  ASSERT_EQ(::chmod((dir / "out").c_str(), 0751), 0);
  const ino_t old_inode = stat_of(dir / "out").st_ino;
  mapout::options opts;
  opts.atomic = true;
  mapout::ostream out(dir / "out", std::ios::out, opts);
  out << "new";
  out.close();
  ASSERT_TRUE(out) << out.error_message();
  EXPECT_EQ(stat_of(dir / "out").st_mode & 07777, 0751u);
  EXPECT_NE(stat_of(dir / "out").st_ino, old_inode);
  EXPECT_EQ(read_file(dir / "out"), "new");
}

TEST(Atomic, DestructionWithoutCloseDiscards) {
  for (const auto& strategy : every_strategy()) {
    SCOPED_TRACE(strategy.name);
    temp_dir dir;
    write_old_file(dir / "out", "old");
    {
      mapout::ostream out(dir / "out", std::ios::out, with(strategy.opts, true, false));
      write_in_pieces(out, pattern(200000), 2);
    }
    EXPECT_EQ(read_file(dir / "out"), "old");
    {
      mapout::streambuf buf;
      ASSERT_TRUE(buf.open(dir / "out", std::ios::out, with(strategy.opts, true, false)));
      buf.sputn("half", 4);
    }
    EXPECT_EQ(read_file(dir / "out"), "old");
    {
      mapout::output_file file;
      ASSERT_FALSE(file.open(dir / "out", std::ios::out, with(strategy.opts, true, false)));
      mapout::output_file::window view = file.current();
      ASSERT_FALSE(file.write(view, "half", 4));
    }
    EXPECT_EQ(read_file(dir / "out"), "old");
    EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"out"});
  }
}

TEST(Atomic, ExceptionUnwindingPastTheStreamPublishesNothing) {
  temp_dir dir;
  write_old_file(dir / "out", "old");
  mapout::options opts;
  opts.atomic = true;
  try {
    mapout::ostream out(dir / "out", std::ios::out, opts);
    out << "the first half";
    throw std::runtime_error("generator failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(read_file(dir / "out"), "old");
}

TEST(Atomic, DiscardLeavesTheTargetAsItWas) {
  for (const auto& strategy : every_strategy()) {
    SCOPED_TRACE(strategy.name);
    temp_dir dir;
    write_old_file(dir / "out", "old");
    const struct stat before = stat_of(dir / "out");
    mapout::ostream out(dir / "out", std::ios::out, with(strategy.opts, true, false));
    write_in_pieces(out, pattern(100000), 3);
    out.discard();
    EXPECT_TRUE(out);
    EXPECT_FALSE(out.is_open());
    EXPECT_TRUE(same_file_untouched(before, stat_of(dir / "out")));
    EXPECT_EQ(read_file(dir / "out"), "old");
    // A new file is never made.
    mapout::ostream fresh(dir / "fresh", std::ios::out, with(strategy.opts, true, false));
    fresh << "x";
    fresh.discard();
    EXPECT_FALSE(fs::exists(dir / "fresh"));
  }
}

TEST(Discard, WithoutAtomicClosesAsCloseDoes) {
  temp_dir dir;
  mapout::ostream out(dir / "out");
  out << "kept";
  out.discard();
  EXPECT_TRUE(out);
  EXPECT_EQ(read_file(dir / "out"), "kept");
}

TEST(Atomic, SymbolicLinkIsWrittenThroughAndStays) {
  temp_dir dir;
  fs::create_directory(dir / "real");
  write_old_file(dir / "real" / "file", "old");
  fs::create_symlink("real/file", dir / "link");
  fs::create_symlink(dir / "link", dir / "link to link");
  mapout::options opts;
  opts.atomic = true;
  for (const char* name : {"link", "link to link"}) {
    mapout::ostream out(dir / name, std::ios::out, opts);
    out << "new through " << name;
    out.close();
    ASSERT_TRUE(out) << out.error_message();
    EXPECT_TRUE(fs::is_symlink(dir / name));
    EXPECT_EQ(read_file(dir / "real" / "file"), std::string("new through ") + name);
  }
  EXPECT_EQ(names_in(dir / "real"), std::vector<std::string>{"file"});
  // A dangling link makes the file it names, as std::ofstream does.
  fs::create_symlink("real/made", dir / "dangling");
  mapout::ostream out(dir / "dangling", std::ios::out, opts);
  out << "made";
  out.close();
  ASSERT_TRUE(out) << out.error_message();
  EXPECT_TRUE(fs::is_symlink(dir / "dangling"));
  EXPECT_EQ(read_file(dir / "real" / "made"), "made");
}

// A file system without O_TMPFILE: the temporary is ".<name>.mapout-XXXXXX" beside the target.
int refuse_tmpfile(int directory, const char* path, int flags, mode_t mode) {
  if ((flags & O_TMPFILE) == O_TMPFILE) {
    errno = EOPNOTSUPP;
    return -1;
  }
  return mapout::detail::real_system_calls().openat(directory, path, flags, mode);
}

TEST(Atomic, NamedTemporaryWhereTheFileSystemHasNoTmpfile) {
  system_call_override<&calls::openat> no_tmpfile(refuse_tmpfile);
  temp_dir dir;
  write_old_file(dir / "out", "old");
  mapout::options opts;
  opts.atomic = true;
  mapout::ostream out(dir / "out", std::ios::out, opts);
  ASSERT_TRUE(out.is_open()) << out.error_message();
  out << "new";
  const std::vector<std::string> during = names_in(dir.path());
  ASSERT_EQ(during.size(), 2u);
  EXPECT_EQ(during[0].substr(0, 12), ".out.mapout-");
  EXPECT_EQ(during[0].size(), 12u + 6u);
  out.close();
  ASSERT_TRUE(out) << out.error_message();
  EXPECT_EQ(read_file(dir / "out"), "new");
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"out"});

  mapout::ostream dropped(dir / "out", std::ios::out, opts);
  dropped << "dropped";
  dropped.discard();
  EXPECT_EQ(read_file(dir / "out"), "new");
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"out"});
}

// The hidden name of a 250-byte name would pass NAME_MAX: a shorter one is made, at open.
TEST(Atomic, LongTargetNameIsReplacedThroughAShorterHiddenName) {
  temp_dir dir;
  const std::string name(250, 'n');
  for (bool tmpfile : {true, false}) {
    for (bool exists : {false, true}) {
      SCOPED_TRACE(std::string(tmpfile ? "O_TMPFILE" : "named") + (exists ? ", replacing" : ""));
      system_call_override<&calls::openat> openat(
          tmpfile ? mapout::detail::real_system_calls().openat : refuse_tmpfile);
      if (exists) write_old_file(dir / name, "old");
      mapout::options opts;
      opts.atomic = true;
      opts.write_if_changed = exists;
      mapout::ostream out(dir / name, std::ios::out, opts);
      ASSERT_TRUE(out.is_open()) << out.error_message();
      for (const std::string& entry : names_in(dir.path())) {
        if (entry != name) {
          EXPECT_LE(entry.size(), std::size_t{NAME_MAX});
          EXPECT_EQ(entry.substr(0, 1 + 240), "." + name.substr(0, 240));
        }
      }
      out << "new";
      out.close();
      ASSERT_TRUE(out) << out.error_message();
      EXPECT_EQ(read_file(dir / name), "new");
      EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{name});
      fs::remove(dir / name);
    }
  }
  // A name no file can have fails at open, with std::ofstream's errno.
  std::ofstream theirs(dir / std::string(256, 'n'));
  const int ofstream_errno = errno;
  EXPECT_FALSE(theirs.is_open());
  mapout::options opts;
  opts.atomic = true;
  mapout::output_file file;
  EXPECT_EQ(file.open(dir / std::string(256, 'n'), std::ios::out, opts),
            std::error_code(ofstream_errno, std::system_category()));
}

TEST(Atomic, ModesThatKeepTheOldBytesAreRefused) {
  temp_dir dir;
  write_old_file(dir / "out", "old");
  mapout::options opts;
  opts.atomic = true;
  for (auto mode : {std::ios::app, std::ios::out | std::ios::in, std::ios::in | std::ios::app}) {
    mapout::output_file file;
    EXPECT_EQ(file.open(dir / "out", mode, opts), std::errc::invalid_argument);
  }
  EXPECT_EQ(read_file(dir / "out"), "old");
}

TEST(Atomic, DeviceIsWrittenAsWithoutTheOption) {
  mapout::options opts;
  opts.atomic = true;
  opts.write_if_changed = true;
  mapout::ostream out("/dev/null", std::ios::out, opts);
  out << "nothing";
  out.close();
  EXPECT_TRUE(out) << out.error_message();
}

// ---- durable ----

int fdatasyncs = 0;
int fsyncs = 0;

TEST(Durable, SyncsTheFileAndWithATemporaryItsDirectory) {
  system_call_override<&calls::fdatasync> count_fdatasync([](int fd) {
    ++fdatasyncs;
    return mapout::detail::real_system_calls().fdatasync(fd);
  });
  system_call_override<&calls::fsync> count_fsync([](int fd) {
    ++fsyncs;
    return mapout::detail::real_system_calls().fsync(fd);
  });
  temp_dir dir;
  for (bool atomic : {false, true}) {
    SCOPED_TRACE(atomic ? "atomic" : "plain");
    fdatasyncs = fsyncs = 0;
    mapout::options opts;
    opts.atomic = atomic;
    opts.durable = true;
    mapout::ostream out(dir / "out", std::ios::out, opts);
    out << "durable";
    EXPECT_EQ(fdatasyncs, 0);
    out.close();
    ASSERT_TRUE(out) << out.error_message();
    EXPECT_EQ(fdatasyncs, 1);
    EXPECT_EQ(fsyncs, atomic ? 1 : 0);
    EXPECT_EQ(read_file(dir / "out"), "durable");
  }
}

TEST(Durable, FdatasyncFailureKeepsTheOldFile) {
  system_call_override<&calls::fdatasync> failing([](int) {
    errno = EIO;
    return -1;
  });
  temp_dir dir;
  write_old_file(dir / "out", "old");
  mapout::options opts;
  opts.atomic = true;
  opts.durable = true;
  mapout::ostream out(dir / "out", std::ios::out, opts);
  out << "new";
  out.close();
  EXPECT_FALSE(out);
  EXPECT_EQ(out.error(), std::errc::io_error);
  EXPECT_NE(out.error_message().find("fdatasync"), std::string::npos);
  EXPECT_EQ(read_file(dir / "out"), "old");
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"out"});
}

// ---- write_if_changed ----

TEST(WriteIfChanged, UnchangedOutputLeavesInodeAndMtime) {
  for (const auto& strategy : every_strategy()) {
    for (bool atomic : {false, true}) {
      for (std::size_t size : {std::size_t{0}, std::size_t{1}, page_size(), std::size_t{300000}}) {
        SCOPED_TRACE(std::string(strategy.name) + (atomic ? ", atomic, " : ", ") +
                     std::to_string(size) + " bytes");
        temp_dir dir;
        const std::string bytes = pattern(size, 5);
        write_old_file(dir / "out", bytes);
        const struct stat before = stat_of(dir / "out");
        mapout::ostream out(dir / "out", std::ios::binary, with(strategy.opts, atomic, true));
        ASSERT_TRUE(out.is_open()) << out.error_message();
        write_in_pieces(out, bytes, static_cast<unsigned>(size));
        out.close();
        ASSERT_TRUE(out) << out.error_message();
        EXPECT_TRUE(same_file_untouched(before, stat_of(dir / "out")));
        EXPECT_EQ(read_file(dir / "out"), bytes);
        EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"out"});
      }
    }
  }
}

TEST(WriteIfChanged, ChangedOutputReplacesTheFile) {
  const std::string old_bytes = pattern(300000, 6);
  std::string first = old_bytes;
  first[0] ^= 1;
  std::string last = old_bytes;
  last.back() ^= 1;
  const std::vector<std::pair<const char*, std::string>> changes = {
      {"first byte", first},
      {"last byte", last},
      {"longer", old_bytes + "x"},
      {"shorter", old_bytes.substr(0, old_bytes.size() - 1)},
      {"empty", ""},
  };
  for (const auto& strategy : every_strategy()) {
    for (bool atomic : {false, true}) {
      for (const auto& [name, bytes] : changes) {
        SCOPED_TRACE(std::string(strategy.name) + (atomic ? ", atomic, " : ", ") + name);
        temp_dir dir;
        write_old_file(dir / "out", old_bytes);
        const struct stat before = stat_of(dir / "out");
        mapout::ostream out(dir / "out", std::ios::binary, with(strategy.opts, atomic, true));
        write_in_pieces(out, bytes, 7);
        out.close();
        ASSERT_TRUE(out) << out.error_message();
        EXPECT_FALSE(same_file_untouched(before, stat_of(dir / "out")));
        EXPECT_TRUE(read_file(dir / "out") == bytes);
        EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"out"});
      }
    }
  }
}

TEST(WriteIfChanged, NewFileIsWritten) {
  temp_dir dir;
  mapout::options opts;
  opts.write_if_changed = true;
  mapout::ostream out(dir / "out", std::ios::out, opts);
  out << "new";
  out.close();
  ASSERT_TRUE(out) << out.error_message();
  EXPECT_EQ(read_file(dir / "out"), "new");
}

// What another process does to the target while the output is written.
struct interference {
  const char* name;
  void (*act)(const fs::path& target);
};

const interference interferences[] = {
    {"deleted", [](const fs::path& target) { fs::remove(target); }},
    {"renamed away",
     [](const fs::path& target) { fs::rename(target, target.parent_path() / "away"); }},
    {"overwritten in place",
     [](const fs::path& target) {
       std::fstream file(target, std::ios::in | std::ios::out | std::ios::binary);
       file.write("FOREIGN!", 8);
     }},
    {"appended to",
     [](const fs::path& target) {
       std::ofstream file(target, std::ios::app | std::ios::binary);
       file << "a line of theirs\n";
     }},
};

// The output equals the old file, but the old file is not there as it was at close: the target must
// end up holding the bytes written.
TEST(WriteIfChanged, TargetChangedByAnotherProcessBeforeCloseGetsTheBytesWritten) {
  const std::string bytes = pattern(std::size_t{1} << 20, 9);
  for (const auto& strategy : every_strategy()) {
    for (bool atomic : {false, true}) {
      for (const interference& other : interferences) {
        SCOPED_TRACE(std::string(strategy.name) + (atomic ? ", atomic, " : ", ") + other.name);
        temp_dir dir;
        write_old_file(dir / "out", bytes);
        mapout::ostream out(dir / "out", std::ios::binary, with(strategy.opts, atomic, true));
        ASSERT_TRUE(out.is_open()) << out.error_message();
        const std::size_t half = bytes.size() / 2;
        write_in_pieces(out, bytes.substr(0, half), 11);
        // The first half is compared with the old file before the other process acts.
        out.flush();
        other.act(dir / "out");
        write_in_pieces(out, bytes.substr(half), 12);
        out.close();
        ASSERT_TRUE(out) << out.error_message();
        EXPECT_TRUE(read_file(dir / "out") == bytes);
        for (const std::string& name : names_in(dir.path())) {
          EXPECT_TRUE(name == "out" || name == "away") << name;
        }
      }
    }
  }
}

// A header written as a placeholder and patched after the body: the same bytes in the end.
void write_with_patched_header(mapout::ostream& out, const std::string& body,
                               const std::string& header) {
  out << std::string(header.size(), '\0');
  out.write(body.data(), static_cast<std::streamsize>(body.size()));
  out.seekp(0);
  out << header;
  out.seekp(0, std::ios::end);
  out << "end";
}

TEST(WriteIfChanged, PatchedHeaderIsComparedAsFinallyWritten) {
  const std::string body = pattern(200000, 8);
  for (const auto& strategy : every_strategy()) {
    for (bool atomic : {false, true}) {
      SCOPED_TRACE(std::string(strategy.name) + (atomic ? ", atomic" : ""));
      temp_dir dir;
      write_old_file(dir / "out", "HEADER42" + body + "end");
      const struct stat before = stat_of(dir / "out");
      {
        mapout::ostream out(dir / "out", std::ios::binary, with(strategy.opts, atomic, true));
        write_with_patched_header(out, body, "HEADER42");
        out.close();
        ASSERT_TRUE(out) << out.error_message();
      }
      EXPECT_TRUE(same_file_untouched(before, stat_of(dir / "out")));
      {
        mapout::ostream out(dir / "out", std::ios::binary, with(strategy.opts, atomic, true));
        write_with_patched_header(out, body, "HEADER43");
        out.close();
        ASSERT_TRUE(out) << out.error_message();
      }
      EXPECT_FALSE(same_file_untouched(before, stat_of(dir / "out")));
      EXPECT_TRUE(read_file(dir / "out") == "HEADER43" + body + "end");
    }
  }
}

TEST(WriteIfChanged, GapLeftBySeekingPastTheEndComparesAsZeros) {
  for (const auto& strategy : every_strategy()) {
    SCOPED_TRACE(strategy.name);
    temp_dir dir;
    const std::string old_bytes = "abc" + std::string(3 * page_size() + 5, '\0') + "xyz";
    write_old_file(dir / "out", old_bytes);
    const struct stat before = stat_of(dir / "out");
    mapout::ostream out(dir / "out", std::ios::binary, with(strategy.opts, false, true));
    out << "abc";
    out.seekp(static_cast<std::streamoff>(old_bytes.size() - 3));
    out << "xyz";
    out.close();
    ASSERT_TRUE(out) << out.error_message();
    EXPECT_TRUE(same_file_untouched(before, stat_of(dir / "out")));

    // Bytes where the new file has its gap: changed.
    std::string other_gap = old_bytes;
    other_gap[page_size()] = 'x';
    write_old_file(dir / "out", other_gap);
    mapout::ostream again(dir / "out", std::ios::binary, with(strategy.opts, false, true));
    again << "abc";
    again.seekp(static_cast<std::streamoff>(old_bytes.size() - 3));
    again << "xyz";
    again.close();
    ASSERT_TRUE(again) << again.error_message();
    EXPECT_TRUE(read_file(dir / "out") == old_bytes);
  }
}

std::size_t bytes_read = 0;
int temporary_fd = -1;  // the mapping reads its own file when it closes: not counted

TEST(WriteIfChanged, ComparingReadsTheOldFileOnceAndStopsWhenItDiffersEarly) {
  system_call_override<&calls::pread> count([](int fd, void* data, std::size_t size, off_t at) {
    const ssize_t got = mapout::detail::real_system_calls().pread(fd, data, size, at);
    if (got > 0 && fd != temporary_fd) bytes_read += static_cast<std::size_t>(got);
    return got;
  });
  const std::string bytes = pattern(4 << 20, 9);
  for (const auto& strategy : every_strategy()) {
    SCOPED_TRACE(strategy.name);
    temp_dir dir;
    write_old_file(dir / "out", bytes);
    bytes_read = 0;
    mapout::ostream same(dir / "out", std::ios::binary, with(strategy.opts, false, true));
    temporary_fd = same.native_handle();
    write_in_pieces(same, bytes, 10);
    same.close();
    EXPECT_EQ(bytes_read, bytes.size());

    bytes_read = 0;
    mapout::ostream shifted(dir / "out", std::ios::binary, with(strategy.opts, false, true));
    temporary_fd = shifted.native_handle();
    shifted << "inserted line\n";
    write_in_pieces(shifted, bytes, 11);
    shifted.close();
    EXPECT_LT(bytes_read, std::size_t{512} << 10);
    EXPECT_TRUE(read_file(dir / "out") == "inserted line\n" + bytes);
  }
}

// The old file cannot be opened for reading: the output is written, as if it had changed.
int refuse_reading(const char* path, int flags, mode_t mode) {
  if ((flags & O_ACCMODE) == O_RDONLY && !(flags & O_DIRECTORY)) {
    errno = EACCES;
    return -1;
  }
  return mapout::detail::real_system_calls().open(path, flags, mode);
}

TEST(WriteIfChanged, UnreadableOldFileIsReplaced) {
  system_call_override<&calls::open> unreadable(refuse_reading);
  temp_dir dir;
  write_old_file(dir / "out", "same");
  const struct stat before = stat_of(dir / "out");
  mapout::options opts;
  opts.write_if_changed = true;
  mapout::ostream out(dir / "out", std::ios::out, opts);
  out << "same";
  out.close();
  ASSERT_TRUE(out) << out.error_message();
  EXPECT_FALSE(same_file_untouched(before, stat_of(dir / "out")));
  EXPECT_EQ(read_file(dir / "out"), "same");
}

// ---- errors: the old file stays, and no temporary ----

TEST(ReplacementErrors, TargetIsADirectory) {
  temp_dir dir;
  fs::create_directory(dir / "out");
  for (bool atomic : {false, true}) {
    mapout::output_file file;
    EXPECT_EQ(file.open(dir / "out", std::ios::out, with({}, atomic, !atomic)),
              std::errc::is_a_directory);
    EXPECT_TRUE(fs::is_directory(dir / "out"));
  }
}

TEST(ReplacementErrors, DirectoryNotWritable) {
  system_call_override<&calls::openat> not_writable([](int, const char*, int, mode_t) {
    errno = EACCES;
    return -1;
  });
  temp_dir dir;
  write_old_file(dir / "out", "old");
  mapout::ostream out;
  out.open(dir / "out", std::ios::out, with({}, true, true));
  EXPECT_FALSE(out.is_open());
  EXPECT_EQ(out.error(), std::errc::permission_denied);
  EXPECT_NE(out.error_message().find("open temporary"), std::string::npos);
  EXPECT_EQ(read_file(dir / "out"), "old");
}

// Root writes anywhere: a child that is `nobody` meets the permissions a user meets.
constexpr uid_t nobody = 65534;

TEST(ReplacementErrors, RealPermissionsAsAnotherUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to run a child as nobody";
  temp_dir dir;
  ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);
  fs::create_directory(dir / "read-only");
  write_old_file(dir / "read-only" / "out", "old");
  ASSERT_EQ(::chmod((dir / "read-only").c_str(), 0555), 0);
  ASSERT_EQ(::chmod((dir / "read-only" / "out").c_str(), 0666), 0);
  // A file its owner may write but not read, in a directory it may write.
  fs::create_directory(dir / "writable");
  write_old_file(dir / "writable" / "out", "same");
  ASSERT_EQ(::chown((dir / "writable").c_str(), nobody, nobody), 0);
  ASSERT_EQ(::chown((dir / "writable" / "out").c_str(), nobody, nobody), 0);
  ASSERT_EQ(::chmod((dir / "writable" / "out").c_str(), 0200), 0);
  if (::access(dir.path().c_str(), X_OK) != 0) GTEST_SKIP() << "temporary directory not searchable";
  const pid_t child = mapout::test::spawn([&] {
    if (::setgid(nobody) != 0 || ::setuid(nobody) != 0) return 10;
    mapout::options opts;
    opts.atomic = true;
    opts.write_if_changed = true;
    mapout::output_file file;
    if (file.open(dir / "read-only" / "out", std::ios::out, opts) != std::errc::permission_denied) {
      return 11;
    }
    if (file.error_message().find("open temporary") == std::string::npos) return 12;
    // The old file cannot be read for comparing: the output is written all the same.
    if (file.open(dir / "writable" / "out", std::ios::out, opts)) return 13;
    mapout::output_file::window view = file.current();
    if (file.write(view, "same", 4) || file.close(view)) return 14;
    return 0;
  });
  EXPECT_EQ(mapout::test::wait_for(child), 0);
  EXPECT_EQ(read_file(dir / "read-only" / "out"), "old");
  EXPECT_EQ(names_in(dir / "read-only"), std::vector<std::string>{"out"});
  struct stat written = stat_of(dir / "writable" / "out");
  EXPECT_EQ(written.st_mode & 07777, 0200u);
  EXPECT_NE(written.st_mtim.tv_sec, 946684800);
  EXPECT_EQ(read_file(dir / "writable" / "out"), "same");
  EXPECT_EQ(names_in(dir / "writable"), std::vector<std::string>{"out"});
}

TEST(ReplacementErrors, RenameFailureKeepsTheOldFile) {
  system_call_override<&calls::renameat> failing([](int, const char*, int, const char*) {
    errno = EXDEV;
    return -1;
  });
  for (const auto& strategy : every_strategy()) {
    SCOPED_TRACE(strategy.name);
    temp_dir dir;
    write_old_file(dir / "out", "old");
    mapout::ostream out(dir / "out", std::ios::out, with(strategy.opts, true, true));
    write_in_pieces(out, pattern(100000), 12);
    out.close();
    EXPECT_FALSE(out);
    EXPECT_EQ(out.error(), std::errc::cross_device_link);
    EXPECT_NE(out.error_message().find("rename"), std::string::npos);
    EXPECT_EQ(read_file(dir / "out"), "old");
    EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"out"});
  }
}

// The new file's owner and bits are given at close, after every byte: a failure there keeps the
// old file, reported with the call that failed, for a named temporary too.
TEST(ReplacementErrors, OwnerOrBitsFailingAtCloseKeepTheOldFile) {
  system_call_override<&calls::fchmod> no_fchmod([](int, mode_t) {
    errno = EIO;
    return -1;
  });
  system_call_override<&calls::fchown> no_fchown([](int, uid_t, gid_t) {
    errno = EIO;
    return -1;
  });
  for (bool tmpfile : {true, false}) {
    for (bool another_owner : {false, true}) {
      SCOPED_TRACE(std::string(tmpfile ? "O_TMPFILE" : "named") +
                   (another_owner ? ", another owner" : ""));
      if (another_owner && ::geteuid() != 0) continue;
      system_call_override<&calls::openat> openat(
          tmpfile ? mapout::detail::real_system_calls().openat : refuse_tmpfile);
      temp_dir dir;
      write_old_file(dir / "out", "old");
      if (another_owner) {
        ASSERT_EQ(::chown((dir / "out").c_str(), nobody, nobody), 0);
      }
      mapout::ostream out(dir / "out", std::ios::out, with({}, true, true));
      ASSERT_TRUE(out.is_open()) << out.error_message();
      out << "new";
      out.close();
      EXPECT_FALSE(out);
      EXPECT_EQ(out.error(), std::errc::io_error);
      EXPECT_NE(out.error_message().find(another_owner ? "fchown" : "fchmod"), std::string::npos)
          << out.error_message();
      EXPECT_EQ(read_file(dir / "out"), "old");
      EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"out"});
    }
  }
}

TEST(ReplacementErrors, FullDiskWhileWritingTheTemporaryKeepsTheOldFile) {
  for (const auto& strategy : every_strategy()) {
    SCOPED_TRACE(strategy.name);
    mapout::test::mounted_file_system tmpfs("1m");
    if (!tmpfs.mounted()) GTEST_SKIP() << "needs root to mount a tmpfs: " << tmpfs.error();
    const std::string old_bytes = pattern(300000, 13);
    write_old_file(tmpfs / "out", old_bytes);
    mapout::ostream out(tmpfs / "out", std::ios::binary, with(strategy.opts, true, true));
    ASSERT_TRUE(out.is_open()) << out.error_message();
    write_in_pieces(out, pattern(2 << 20, 14), 15);
    out.close();
    EXPECT_FALSE(out);
    EXPECT_EQ(out.error(), std::errc::no_space_on_device) << out.error_message();
    EXPECT_TRUE(read_file(tmpfs / "out") == old_bytes);
    EXPECT_EQ(names_in(tmpfs / ""), std::vector<std::string>{"out"});
  }
}

}  // namespace
