// mapout::istream misused, with std::ifstream as the oracle: files cut, grown or replaced
// underneath, seeks before the start and far past the end, devices that ignore seeks, FIFOs,
// /proc files, directories, and unget and putback at every boundary.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <thread>

#include "child_process.hpp"
#include "input_sequences.hpp"
#include "mapout/istream.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::random_text;
using mapout::test::step;
using mapout::test::temp_dir;
using mapout::test::write_file;

const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));

void append(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::app) << bytes;
}

// Runs the same calls on both streams and compares what each returns, call by call.
class both_streams {
 public:
  explicit both_streams(const std::filesystem::path& path,
                        std::ios::openmode mode = std::ios::in | std::ios::binary)
      : expected_(path, mode), actual_(path, mode) {}

  void same(const std::string& what, const std::function<std::string(std::istream&)>& call) {
    const std::string want = call(expected_);
    const std::string got = call(actual_);
    EXPECT_EQ(got, want) << what << "; mapout: " << actual_.error_message();
  }
  // A call that returns nothing: the states after it are compared.
  void same_state(const std::string& what, const std::function<void(std::istream&)>& call) {
    same(what, [&](std::istream& in) {
      call(in);
      return state(in);
    });
  }

  static std::string state(std::istream& in) {
    std::ostringstream seen;
    seen << "state " << in.rdstate() << " gcount " << in.gcount();
    return seen.str();
  }
  static std::string tell(std::istream& in) {
    std::ostringstream seen;
    seen << "tellg " << in.tellg() << ' ' << state(in);
    return seen.str();
  }
  static std::string rest(std::istream& in) {
    std::ostringstream seen;
    seen << in.rdbuf();
    return "rest " + seen.str() + ' ' + state(in);
  }

  std::ifstream& expected() { return expected_; }
  mapout::istream& actual() { return actual_; }

 private:
  mapout::test::oracle_ifstream expected_;
  mapout::istream actual_;
};

std::string seek_end_and_tell(std::istream& in) {
  in.clear();
  in.seekg(0, std::ios::end);
  return both_streams::tell(in);
}

// ---- A file cut underneath: a seek from the end finds the new end, as std::ifstream's does

TEST(IfstreamOracle, SeekToTheEndOfAFileCutSinceFindsTheNewEnd) {
  temp_dir dir;
  const std::size_t size = 200'000;
  for (const std::size_t cut :
       {std::size_t{0}, std::size_t{1}, page - 1, page, 3 * page + 5, size / 2, size - 1}) {
    SCOPED_TRACE(cut);
    const auto path = dir / "log";
    write_file(path, random_text(size, 1));
    both_streams in(path);
    in.same("read", [](std::istream& s) {
      std::string bytes(150'000, '\0');
      s.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      return bytes + both_streams::state(s);
    });
    std::filesystem::resize_file(path, cut);
    in.same("seekg(0, end) after the cut", seek_end_and_tell);
    in.same("reading at the new end", both_streams::rest);
    ASSERT_FALSE(in.actual().bad()) << in.actual().error_message();
    // Written again from the start, as a rotating logger does: read on from the end found.
    append(path, random_text(size + 10'000, 2));
    in.same("reading what was written since", [](std::istream& s) {
      s.clear();
      return both_streams::rest(s);
    });
    in.same("seekg(0) and everything", [](std::istream& s) {
      s.clear();
      s.seekg(0);
      return both_streams::rest(s);
    });
    in.same("seekg(0, end) once grown", seek_end_and_tell);
  }
}

// A follower that detects rotation by the end moving back, and then reads every call as
// std::ifstream reads.
TEST(IfstreamOracle, RandomCallsAfterACutMatchIfstream) {
  temp_dir dir;
  for (unsigned seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE(seed);
    const auto path = dir / "log";
    write_file(path, random_text(100'000 + seed * 999, seed));
    both_streams in(path);
    std::mt19937 random_expected(seed);
    std::mt19937 random_actual(seed);
    for (int round = 0; round < 4; ++round) {
      const auto size = static_cast<std::int64_t>(std::filesystem::file_size(path));
      for (int i = 0; i < 300; ++i) {
        const unsigned op = random_expected() % 14;
        random_actual();
        const std::string want = step(in.expected(), op, random_expected, size);
        const std::string got = step(in.actual(), op, random_actual, size);
        ASSERT_EQ(got, want) << "round " << round << " step " << i;
      }
      // Cut, then grown again by less or more than before; the follower seeks to the end.
      std::filesystem::resize_file(path, static_cast<std::uintmax_t>(size) / (round + 2));
      append(path, random_text(static_cast<std::size_t>(size) / 3 * round, seed + 100));
      in.same("seekg(0, end)", seek_end_and_tell);
    }
  }
}

TEST(IfstreamOracle, AppendedWhileReadingIsReadOnAsIfstreamReadsIt) {
  temp_dir dir;
  const auto path = dir / "grows";
  write_file(path, random_text(3 * page + 1, 3));
  both_streams in(path);
  std::mt19937 random_expected(7);
  std::mt19937 random_actual(7);
  for (int round = 0; round < 8; ++round) {
    const auto size = static_cast<std::int64_t>(std::filesystem::file_size(path));
    for (int i = 0; i < 200; ++i) {
      const unsigned op = random_expected() % 14;
      random_actual();
      const std::string want = step(in.expected(), op, random_expected, size);
      const std::string got = step(in.actual(), op, random_actual, size);
      ASSERT_EQ(got, want) << "round " << round << " step " << i;
    }
    append(path, random_text(round * 40'000 + 1, round));
#ifdef _WIN32
    // The C runtime under Wine reads nothing past an end a read met until a seek (its _read's
    // end-of-file flag): a follower there seeks to where it is, as any runtime allows, to read on.
    in.same("seekg(tellg())", [](std::istream& s) {
      s.clear();
      s.seekg(s.tellg());
      return both_streams::tell(s);
    });
#endif
  }
}

TEST(IfstreamOracle, FileReplacedByRenameIsReadAsOpened) {
  temp_dir dir;
  const auto path = dir / "f";
  write_file(path, random_text(50'000, 4));
  both_streams in(path);
  in.same("read", [](std::istream& s) {
    std::string bytes(1000, '\0');
    s.read(bytes.data(), 1000);
    return bytes;
  });
  write_file(dir / "new", random_text(70'000, 5));
  std::filesystem::rename(dir / "new", path);
  in.same("the rest", both_streams::rest);
  in.same("seekg(0, end)", seek_end_and_tell);
}

// ---- Seeks before the start and far past the end

TEST(IfstreamOracle, SeeksBeforeTheStartAndFarPastTheEndMatchIfstream) {
  temp_dir dir;
  const auto path = dir / "f";
  write_file(path, random_text(10'000, 6));
  both_streams in(path);
  const std::int64_t largest = std::numeric_limits<std::int64_t>::max();
  struct seek {
    std::int64_t offset;
    std::ios::seekdir dir;
  };
  for (const seek s :
       {seek{-1, std::ios::beg}, seek{5, std::ios::beg}, seek{-6, std::ios::cur},
        seek{-10'001, std::ios::end}, seek{-10'000, std::ios::end}, seek{1 << 20, std::ios::beg},
        seek{std::int64_t{1} << 40, std::ios::beg}, seek{std::int64_t{1} << 50, std::ios::beg},
        seek{largest, std::ios::beg}, seek{1, std::ios::beg}, seek{largest, std::ios::cur},
        seek{largest - 1, std::ios::cur}, seek{largest, std::ios::end},
        seek{std::numeric_limits<std::int64_t>::min(), std::ios::cur}}) {
    const std::string what =
        "seekg(" + std::to_string(s.offset) + ", " + std::to_string(static_cast<int>(s.dir)) + ")";
    in.same(what, [&](std::istream& stream) {
      stream.clear();
      stream.seekg(s.offset, s.dir);
      const std::string after = both_streams::tell(stream);
      const int c = stream.get();
      return after + " get " + std::to_string(c) + ' ' + both_streams::state(stream);
    });
  }
}

// ---- unget and putback at the start, at the end and across the mapping's end

TEST(IfstreamOracle, UngetAndPutbackAtTheBoundariesMatchIfstream) {
  temp_dir dir;
  for (const std::size_t size : {std::size_t{1}, page, page + 1}) {
    SCOPED_TRACE(size);
    const auto path = dir / ("f" + std::to_string(size));
    const std::string text = random_text(size, 8);
    write_file(path, text);
    both_streams in(path);
    in.same_state("unget at the start", [](std::istream& s) { s.unget(); });
    in.same_state("putback at the start", [&](std::istream& s) {
      s.clear();
      s.putback(text[0]);
    });
    in.same_state("to the end", [](std::istream& s) {
      s.clear();
      s.ignore(std::numeric_limits<std::streamsize>::max());
    });
    in.same_state("unget at the end", [](std::istream& s) {
      s.clear();
      s.unget();
    });
    in.same("get after unget", [](std::istream& s) { return std::to_string(s.get()); });
    in.same_state("putback of the last byte", [&](std::istream& s) { s.putback(text.back()); });
    in.same("get after putback", [](std::istream& s) { return std::to_string(s.get()); });
    in.same_state("two ungets", [](std::istream& s) {
      s.unget();
      s.unget();
    });
    in.same("tellg", both_streams::tell);
    // Appended past the mapping: the byte before the first appended one can be put back.
    append(path, "tail");
    in.same("past the mapping", [](std::istream& s) {
      s.clear();
      s.seekg(0, std::ios::end);
      s.seekg(-4, std::ios::end);
      const int first = s.get();
      s.unget();
      s.unget();
      return std::to_string(first) + ' ' + both_streams::rest(s);
    });
  }
}

// ---- Inputs that are not regular files

// /dev/zero ignores seeks: lseek(2) leaves it at 0, and std::ifstream reports that.
TEST(IfstreamOracle, SeekOnDevZeroLandsWhereTheDeviceSays) {
  both_streams in("/dev/zero");
  in.same("seekg(100)", [](std::istream& s) {
    s.seekg(100);
    return both_streams::tell(s);
  });
  in.same("read 10", [](std::istream& s) {
    char bytes[10];
    s.read(bytes, sizeof bytes);
    return std::string(bytes, sizeof bytes) + both_streams::state(s);
  });
  // std::ifstream's tellg() here is lseek's 0 less what its buffer holds; mapout counts the bytes
  // consumed since the seek (mapout/istream.hpp).
  EXPECT_EQ(in.actual().tellg(), 10);
  in.same("seekg(-5, cur)", [](std::istream& s) {
    s.seekg(-5, std::ios::cur);
    return both_streams::tell(s);
  });
  in.same("seekg(1 << 20, cur)", [](std::istream& s) {
    s.seekg(1 << 20, std::ios::cur);
    return both_streams::tell(s);
  });
  in.same("seekg(0, end)", seek_end_and_tell);
  in.same("read 10 more", [](std::istream& s) {
    char bytes[10];
    s.read(bytes, sizeof bytes);
    return std::string(bytes, sizeof bytes) + both_streams::state(s);
  });
}

#ifdef _WIN32
// NUL, Windows' device that reads as empty: each seek lands where the device puts it and each read
// finds the end, as with std::ifstream.
TEST(IfstreamOracle, SeekOnNulLandsWhereTheDeviceSays) {
  both_streams in("NUL");
  ASSERT_TRUE(in.actual().is_open()) << in.actual().error_message();
  const auto read_10 = [](std::istream& s) {
    char bytes[10];
    s.read(bytes, sizeof bytes);
    return std::string(bytes, static_cast<std::size_t>(s.gcount())) + both_streams::state(s);
  };
  in.same("seekg(100)", [](std::istream& s) {
    s.seekg(100);
    return both_streams::tell(s);
  });
  in.same("read 10", read_10);
  in.same("seekg(-5, cur)", [](std::istream& s) {
    s.clear();
    s.seekg(-5, std::ios::cur);
    return both_streams::tell(s);
  });
  in.same("seekg(0, end)", seek_end_and_tell);
  in.same("get", [](std::istream& s) { return std::to_string(s.get()) + both_streams::state(s); });
  in.same("read 10 more", [&](std::istream& s) {
    s.clear();
    return read_10(s);
  });
}
#endif  // _WIN32

#ifndef _WIN32
// A FIFO: each stream reads the same bytes from its own writer; seeks fail on both.
TEST(IfstreamOracle, FifoReadsAndRefusesSeeksAsIfstream) {
  temp_dir dir;
  const auto path = dir / "fifo";
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  const std::string text = random_text(200'000, 9);
  auto run = [&](std::istream& in) {
    std::string seen;
    std::mt19937 random(11);
    for (int i = 0; i < 600 && in.good(); ++i) {
      seen += step(in, random() % 14, random, static_cast<std::int64_t>(text.size())) + '\n';
    }
    return seen;
  };
  auto over = [&](auto open) {
    std::thread writer([&] {
      const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0) return;
      mapout::test::write_all(fd, text);
      ::close(fd);
    });
    const std::string seen = open();
    writer.join();
    return seen;
  };
  const std::string want = over([&] {
    std::ifstream in(path, std::ios::binary);
    std::string seen = run(in);
    std::ostringstream rest;
    rest << in.rdbuf();
    return seen;
  });
  const std::string got = over([&] {
    mapout::istream in(path, std::ios::binary);
    std::string seen = run(in);
    std::ostringstream rest;
    rest << in.rdbuf();
    return seen;
  });
  EXPECT_EQ(got, want);
}
#endif  // _WIN32

TEST(IfstreamOracle, ProcFilesReadAndSeekAsIfstream) {
  for (const char* file : {"/proc/version", "/proc/filesystems", "/proc/self/cmdline"}) {
    SCOPED_TRACE(file);
    both_streams in(file);
    in.same("everything", both_streams::rest);
    in.same("seekg(0) and everything", [](std::istream& s) {
      s.clear();
      s.seekg(0);
      return both_streams::rest(s);
    });
    in.same("seekg(3)", [](std::istream& s) {
      s.clear();
      s.seekg(3);
      return both_streams::tell(s) + both_streams::rest(s);
    });
    in.same("seekg(0, end)", seek_end_and_tell);
  }
}

TEST(IfstreamOracle, DirectoryOpensAndFailsToReadAsIfstream) {
  temp_dir dir;
  both_streams in(dir.path());
  in.same("open", [](std::istream& s) { return both_streams::state(s); });
  in.same("get", [](std::istream& s) {
    const int c = s.get();
    return std::to_string(c) + ' ' + both_streams::state(s);
  });
}

}  // namespace
