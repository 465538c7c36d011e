// Many streams at once: a thousand open together, and threads each writing its own stream.
#include <gtest/gtest.h>

#ifndef _WIN32
#include <sys/resource.h>
#endif

#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "mapout/ostream.hpp"
#include "strategies.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::buffered;
using mapout::test::mapped;
using mapout::test::read_file;
using mapout::test::temp_dir;

constexpr int stream_count = 1000;

// Makes room for `needed` descriptors; false when the limit cannot be raised that far.
#ifdef _WIN32
// Windows's C library has room for 2048 descriptors, and no limit to raise.
bool allow_descriptors(int needed) {
  return needed <= 2048;
}
#else
bool allow_descriptors(rlim_t needed) {
  rlimit limit;
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return false;
  if (limit.rlim_cur >= needed) return true;
  limit.rlim_cur = needed;
  if (limit.rlim_max < needed) limit.rlim_max = needed;  // root may raise the hard limit too
  return ::setrlimit(RLIMIT_NOFILE, &limit) == 0;
}
#endif

std::string name_of(int i) {
  return "stream-" + std::to_string(i);
}

// With the default reservation: 1000 of them take 64 GiB of address space and no memory.
TEST(Concurrency, ThousandStreamsOpenAtOnce) {
  if (!allow_descriptors(stream_count + 100)) {
    GTEST_SKIP() << "RLIMIT_NOFILE cannot be raised to " << stream_count + 100;
  }
  temp_dir dir;
  std::vector<std::unique_ptr<mapout::ostream>> streams;
  std::vector<std::string> expected(stream_count);
  for (int i = 0; i < stream_count; ++i) {
    streams.push_back(std::make_unique<mapout::ostream>(dir / name_of(i), std::ios::out, mapped()));
    ASSERT_TRUE(streams.back()->is_open()) << i << ": " << streams.back()->rdbuf()->error_message();
  }
  // Round by round, so that every stream is written while all the others are open.
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < stream_count; ++i) {
      std::ostringstream line;
      line << name_of(i) << " round " << round << ' ' << std::string(i % 7 * 500, 'x') << '\n';
      *streams[i] << line.str();
      expected[i] += line.str();
    }
  }
  for (int i = 0; i < stream_count; ++i) {
    EXPECT_TRUE(streams[i]->rdbuf()->file().is_mapped()) << i;
    streams[i]->close();
    ASSERT_TRUE(*streams[i]) << i << ": " << streams[i]->rdbuf()->error_message();
  }
  for (int i = 0; i < stream_count; ++i) {
    ASSERT_EQ(read_file(dir / name_of(i)), expected[i]) << i;
  }
}

// One thread's own output: lines, blocks, single bytes and a patch of the first line.
template <class Stream>
void write_thread_output(Stream& out, unsigned seed) {
  std::mt19937 random(seed);
  for (int i = 0; i < 3000; ++i) {
    switch (random() % 4) {
      case 0:
        out << "thread " << seed << " line " << i << '\n';
        break;
      case 1: {
        const std::string block(random() % 8000, static_cast<char>('a' + seed % 26));
        out.write(block.data(), static_cast<std::streamsize>(block.size()));
        break;
      }
      case 2:
        out.put(static_cast<char>('0' + i % 10));
        break;
      default:
        out << i * 1000003LL << std::endl;
        break;
    }
  }
  out.seekp(0);
  out << "PATCHED";
  out.seekp(0, std::ios::end);
  out << "end\n";
}

TEST(Concurrency, ThreadsEachWithItsOwnStream) {
  temp_dir dir;
  const std::size_t page = mapout::test::page_size();
  constexpr int thread_count = 8;
  std::vector<std::thread> threads;
  std::vector<std::string> errors(thread_count);
  for (int t = 0; t < thread_count; ++t) {
    threads.emplace_back([&, t] {
      // Tiny reservations make mappings move in several threads at once.
      const mapout::options opts = t % 3 == 0   ? mapped()
                                   : t % 3 == 1 ? mapped((t % 2 + 1) * page)
                                                : buffered();
      mapout::ostream out(dir / name_of(t), std::ios::out, opts);
      write_thread_output(out, static_cast<unsigned>(t));
      out.close();
      if (!out) errors[t] = out.rdbuf()->error_message();
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < thread_count; ++t) {
    SCOPED_TRACE("thread " + std::to_string(t));
    EXPECT_EQ(errors[t], "");
    std::ostringstream expected;
    write_thread_output(expected, static_cast<unsigned>(t));
    const std::string got = read_file(dir / name_of(t));
    ASSERT_EQ(got.size(), expected.str().size());
    EXPECT_TRUE(got == expected.str());
  }
}

}  // namespace
