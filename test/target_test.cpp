// Targets that cannot be mapped (a pipe, a FIFO, /dev/null, /dev/stdout on a pipe) take the
// buffered path behind the same interface and behave as std::ofstream does on them.
#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "child_process.hpp"
#include "mapout/ostream.hpp"
#include "strategies.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::drain;
using mapout::test::read_file;
using mapout::test::spawn;
using mapout::test::temp_dir;
using mapout::test::wait_for;

// Several MiB of mixed output, more than a pipe holds, so the writer waits for its reader. Returns
// the bytes written.
template <class Stream>
std::string write_mixed(Stream& out) {
  std::string expected;
  const std::string block(300000, 'b');
  for (int i = 0; i < 2000; ++i) {
    out << "line " << i << '\n';
    expected += "line " + std::to_string(i) + '\n';
    if (i % 250 == 0) {
      out.write(block.data(), static_cast<std::streamsize>(block.size()));
      expected += block;
    }
    out.put(static_cast<char>('a' + i % 26));
    expected += static_cast<char>('a' + i % 26);
  }
  return expected;
}

// The path under which this process reaches its descriptor fd, as a user passing /dev/fd/N would.
std::string path_of_descriptor(int fd) {
  return "/proc/self/fd/" + std::to_string(fd);
}

// A pipe whose far end a forked child reads to the end and hands back through a file.
class piped_reader {
 public:
  explicit piped_reader(const std::filesystem::path& received) {
    EXPECT_EQ(::pipe2(fds_, O_CLOEXEC), 0);
    const std::string into = received.string();
    pid_ = spawn([this, into] {
      ::close(fds_[1]);
      const std::string bytes = drain(fds_[0]);
      std::ofstream out(into, std::ios::binary);
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      return out.good() ? 0 : 1;
    });
    ::close(fds_[0]);
  }
  piped_reader(const piped_reader&) = delete;
  piped_reader& operator=(const piped_reader&) = delete;
  ~piped_reader() {
    if (fds_[1] >= 0) ::close(fds_[1]);
    if (pid_ > 0) wait_for(pid_);
  }

  int write_end() const { return fds_[1]; }
  // After the writer opened its own descriptor: ours must not keep the pipe open.
  void close_write_end() {
    ::close(fds_[1]);
    fds_[1] = -1;
  }
  // Waits for the reader to see end of file; its exit status.
  int finish() {
    close_write_end();
    const int status = wait_for(pid_);
    pid_ = -1;
    return status;
  }

 private:
  int fds_[2] = {-1, -1};
  pid_t pid_ = -1;
};

TEST(Target, PipeWithForkedReaderGetsEveryByte) {
  temp_dir dir;
  piped_reader reader(dir / "received");
  mapout::ostream out(path_of_descriptor(reader.write_end()));
  ASSERT_TRUE(out.is_open()) << out.rdbuf()->error_message();
  reader.close_write_end();
  EXPECT_FALSE(out.rdbuf()->file().is_mapped());
  const std::string expected = write_mixed(out);
  out.close();
  ASSERT_TRUE(out) << out.rdbuf()->error_message();
  ASSERT_EQ(reader.finish(), 0);
  const std::string received = read_file(dir / "received");
  ASSERT_EQ(received.size(), expected.size());
  EXPECT_TRUE(received == expected);
}

// Seeking a pipe fails; the stream is usable again after clear(), as with std::ofstream.
template <class Stream>
std::string seek_on_pipe(const std::filesystem::path& dir) {
  piped_reader reader(dir / "received");
  Stream out(path_of_descriptor(reader.write_end()));
  EXPECT_TRUE(out.is_open());
  reader.close_write_end();
  out << "before ";
  EXPECT_EQ(static_cast<std::streamoff>(out.tellp()), -1);
  out.seekp(0);
  EXPECT_TRUE(out.fail());
  EXPECT_FALSE(out.bad());
  out.clear();
  out.seekp(0, std::ios::end);
  EXPECT_TRUE(out.fail());
  out.clear();
  out << "after\n";
  out.close();
  EXPECT_TRUE(out);
  EXPECT_EQ(reader.finish(), 0);
  return read_file(dir / "received");
}

TEST(Target, SeekOnPipeFailsLikeOfstreamAndWritingGoesOnAfterClear) {
  temp_dir dir;
  EXPECT_EQ(seek_on_pipe<std::ofstream>(dir.path()), "before after\n");
  EXPECT_EQ(seek_on_pipe<mapout::ostream>(dir.path()), "before after\n");
}

TEST(Target, FifoWithReaderGetsEveryByte) {
  temp_dir dir;
  const auto fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string received_path = (dir / "received").string();
  const pid_t reader = spawn([&] {
    const int fd = ::open(fifo.c_str(), O_RDONLY);
    if (fd < 0) return 1;
    const std::string bytes = drain(fd);
    std::ofstream out(received_path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return out.good() ? 0 : 1;
  });
  ASSERT_GT(reader, 0);
  // Opening waits for the reader, as std::ofstream does: mapout does not open a FIFO read-write.
  mapout::ostream out(fifo);
  ASSERT_TRUE(out.is_open()) << out.rdbuf()->error_message();
  EXPECT_FALSE(out.rdbuf()->file().is_mapped());
  const std::string expected = write_mixed(out);
  out.close();
  ASSERT_TRUE(out) << out.rdbuf()->error_message();
  ASSERT_EQ(wait_for(reader), 0);
  const std::string received = read_file(dir / "received");
  ASSERT_EQ(received.size(), expected.size());
  EXPECT_TRUE(received == expected);
}

TEST(Target, DevNullTakesEverythingAndSeeksLikeOfstream) {
  mapout::ostream out("/dev/null");
  ASSERT_TRUE(out.is_open()) << out.rdbuf()->error_message();
  EXPECT_FALSE(out.rdbuf()->file().is_mapped());
  write_mixed(out);
  std::ofstream reference("/dev/null");
  reference << "x";
  reference.seekp(0);
  out.seekp(0);
  EXPECT_EQ(out.fail(), reference.fail());
  out << "more";
  out.close();
  EXPECT_TRUE(out) << out.rdbuf()->error_message();
}

TEST(Target, MappedStrategyRefusesDevNull) {
  mapout::ostream out("/dev/null", std::ios::out, mapout::test::mapped());
  EXPECT_FALSE(out.is_open());
  EXPECT_TRUE(out.fail());
  EXPECT_EQ(out.rdbuf()->error(), std::errc::no_such_device);
  EXPECT_NE(out.rdbuf()->error_message().find("'/dev/null'"), std::string::npos)
      << out.rdbuf()->error_message();
}

TEST(Target, DevStdoutOnAPipe) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t writer = spawn([&] {
    ::close(fds[0]);
    if (::dup2(fds[1], STDOUT_FILENO) < 0) return 2;
    ::close(fds[1]);
    mapout::ostream out("/dev/stdout");
    if (!out.is_open() || out.rdbuf()->file().is_mapped()) return 3;
    write_mixed(out);
    out.close();
    return out ? 0 : 4;
  });
  ::close(fds[1]);
  const std::string received = drain(fds[0]);
  ::close(fds[0]);
  ASSERT_EQ(wait_for(writer), 0);
  std::ostringstream reference;
  const std::string expected = write_mixed(reference);
  ASSERT_EQ(reference.str(), expected);
  ASSERT_EQ(received.size(), expected.size());
  EXPECT_TRUE(received == expected);
}

// The descriptors other than `ours` whose /proc/self/fd link reads `link`.
std::vector<int> descriptors_linked_to(const std::string& link, std::vector<int> ours = {}) {
  std::vector<int> found;
  DIR* fds = ::opendir("/proc/self/fd");
  if (fds == nullptr) return found;
  const int listing = ::dirfd(fds);
  while (const dirent* entry = ::readdir(fds)) {
    if (entry->d_name[0] == '.') continue;
    const int fd = std::stoi(entry->d_name);
    char target[4096];
    const ssize_t size = ::readlinkat(listing, entry->d_name, target, sizeof target);
    if (fd == listing || size <= 0) continue;
    if (std::string(target, static_cast<std::size_t>(size)) != link) continue;
    if (std::find(ours.begin(), ours.end(), fd) == ours.end()) found.push_back(fd);
  }
  ::closedir(fds);
  return found;
}

// A mapped file has two: its descriptor and the one that holds its writer's lock.
void expect_close_on_exec(const std::vector<int>& fds) {
  ASSERT_FALSE(fds.empty());
  for (const int fd : fds) {
    const int flags = ::fcntl(fd, F_GETFD);
    ASSERT_GE(flags, 0);
    EXPECT_TRUE(flags & FD_CLOEXEC);
  }
}

TEST(Target, DescriptorsAreCloseOnExec) {
  temp_dir dir;
  const auto mapped_path = std::filesystem::canonical(dir.path()) / "mapped";
  mapout::ostream mapped(mapped_path, std::ios::out, mapout::test::mapped());
  ASSERT_TRUE(mapped.rdbuf()->file().is_mapped());
  expect_close_on_exec(descriptors_linked_to(mapped_path.string()));

  const auto buffered_path = std::filesystem::canonical(dir.path()) / "buffered";
  mapout::ostream buffered(buffered_path, std::ios::out, mapout::test::buffered());
  ASSERT_FALSE(buffered.rdbuf()->file().is_mapped());
  expect_close_on_exec(descriptors_linked_to(buffered_path.string()));

  const auto appended_path = std::filesystem::canonical(dir.path()) / "appended";
  mapout::ostream appended(appended_path, std::ios::app);
  expect_close_on_exec(descriptors_linked_to(appended_path.string()));

  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  mapout::ostream piped(path_of_descriptor(fds[1]));
  ASSERT_TRUE(piped.is_open());
  char link[64];
  const ssize_t size = ::readlink(path_of_descriptor(fds[1]).c_str(), link, sizeof link);
  ASSERT_GT(size, 0);
  expect_close_on_exec(
      descriptors_linked_to(std::string(link, static_cast<std::size_t>(size)), {fds[0], fds[1]}));
  piped.close();
  ::close(fds[0]);
  ::close(fds[1]);
}

}  // namespace
