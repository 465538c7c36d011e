// mapout::streambuf fails as std::filebuf fails, and mapout::ostream as std::ofstream: on a file
// that cannot take more bytes (RLIMIT_FSIZE in a child, a full tmpfs mounted by the test) and on
// a buffer that is not open, the same return values, states and bytes in the file, and no
// exception out of a streambuf call. Each scenario runs over both and describes what it saw; the
// descriptions must be equal.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <ios>
#include <iterator>
#include <ostream>
#include <string>
#include <system_error>

#include "bytes.hpp"
#include "child_process.hpp"
#include "mapout/ostream.hpp"
#include "mapout/streambuf.hpp"
#include "mounted_file_system.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::mounted_file_system;
using mapout::test::pattern;
using mapout::test::read_file;
using mapout::test::run_in_child;
using mapout::test::temp_dir;

// Not a multiple of any buffer or page: a write(2) stops inside one.
constexpr std::size_t limit = 300001;
// Enough to pass the limit, and the full tmpfs below, several buffers over.
const std::string bytes = pattern(3 << 20);

mapout::options strategy(mapout::strategy which, bool flush_publishes = false) {
  mapout::options opts;
  opts.strategy = which;
  opts.flush_publishes = flush_publishes;
  return opts;
}

struct mapout_mode {
  const char* name;
  mapout::options opts;
};

const mapout_mode modes[] = {
    {"automatic", strategy(mapout::strategy::automatic)},
    {"buffered", strategy(mapout::strategy::buffered)},
    {"mapped", strategy(mapout::strategy::mapped)},
    {"automatic, flush_publishes", strategy(mapout::strategy::automatic, true)},
    {"mapped, flush_publishes", strategy(mapout::strategy::mapped, true)},
};

std::string file_outcome(const std::filesystem::path& path) {
  const std::string got = read_file(path);
  const bool prefix = got == bytes.substr(0, got.size());
  return " file " + std::to_string(got.size()) +
         (prefix ? " bytes" : " bytes, not the ones written");
}

// What a buffer type needs for the scenarios: std::filebuf, or mapout::streambuf with options.
struct filebuf_maker {
  bool open(std::filebuf& buf, const std::filesystem::path& path) const {
    return buf.open(path, std::ios::out | std::ios::binary) != nullptr;
  }
};
struct streambuf_maker {
  mapout::options opts;
  bool open(mapout::streambuf& buf, const std::filesystem::path& path) const {
    return buf.open(path, std::ios::out | std::ios::binary, opts) != nullptr;
  }
};

// std::filebuf's close() succeeds once nothing is left to write; mapout's fails after any failure
// of the file's life (mapout/streambuf.hpp), as every scenario here has one.
std::string closed(std::filebuf& buf) {
  buf.close();
  return "";
}
std::string closed(mapout::streambuf& buf) {
  return buf.close() ? " close succeeded after a failure" : "";
}
std::string closed(std::ofstream& out) {
  out.close();
  return "";
}
std::string closed(mapout::ostream& out) {
  out.close();
  return out.fail() ? "" : " close succeeded after a failure";
}

// Every byte through std::ostreambuf_iterator, as std::copy and std::format_to write.
template <typename Buf, typename Maker>
std::string through_iterator(const Maker& maker, const std::filesystem::path& path) {
  Buf buf;
  if (!maker.open(buf, path)) return "open failed";
  std::string seen;
  try {
    const auto end = std::copy(bytes.begin(), bytes.end(), std::ostreambuf_iterator<char>(&buf));
    seen = end.failed() ? "iterator failed" : "iterator not failed";
  } catch (const std::exception& e) {
    seen = std::string("threw ") + e.what();
  }
  seen += closed(buf);
  return seen + file_outcome(path);
}

// One sputn of everything, then one of the rest: the counts written.
template <typename Buf, typename Maker>
std::string through_sputn(const Maker& maker, const std::filesystem::path& path) {
  Buf buf;
  if (!maker.open(buf, path)) return "open failed";
  std::string seen;
  try {
    const std::streamsize size = static_cast<std::streamsize>(bytes.size());
    const std::streamsize first = buf.sputn(bytes.data(), size);
    seen = "sputn " + std::to_string(first);
    const std::streamsize second = buf.sputn(bytes.data() + first, size - first);
    seen += ", then " + std::to_string(second);
  } catch (const std::exception& e) {
    seen += std::string(" threw ") + e.what();
  }
  seen += closed(buf);
  return seen + file_outcome(path);
}

// Short pieces that the buffer takes, then pubsync, which must hand them to the full file.
template <typename Buf, typename Maker>
std::string through_pubsync(const Maker& maker, const std::filesystem::path& path) {
  Buf buf;
  if (!maker.open(buf, path)) return "open failed";
  std::string seen;
  try {
    const std::size_t piece = 100;
    std::size_t accepted = 0;
    for (std::size_t at = 0; at < 2 * limit && at + piece <= bytes.size(); at += piece) {
      accepted += static_cast<std::size_t>(buf.sputn(bytes.data() + at, piece));
      if (at % 8000 == 0 && buf.pubsync() != 0) break;
    }
    seen = buf.pubsync() == 0 ? "pubsync 0" : "pubsync -1";
  } catch (const std::exception& e) {
    seen = std::string("threw ") + e.what();
  }
  seen += closed(buf);
  return seen + file_outcome(path);
}

template <typename Stream>
std::string stream_state(const Stream& out) {
  return std::string(out.bad() ? "bad" : "not bad") + (out.fail() ? " fail" : "") +
         (out.eof() ? " eof" : "");
}

// write() in pieces until the stream goes bad, then once more with exceptions(badbit); then
// close. `Stream` is std::ofstream or mapout::ostream; `Base` the type the calls are made through.
template <typename Stream, typename Base = Stream>
std::string through_stream(Stream& out, const std::filesystem::path& path) {
  if (!out.is_open()) return "open failed";
  Base& through = out;
  std::string seen;
  const std::size_t piece = 1000;
  for (std::size_t at = 0; at + piece <= bytes.size() && out.good(); at += piece) {
    through.write(bytes.data() + at, static_cast<std::streamsize>(piece));
  }
  seen = stream_state(out);
  out.clear();
  out.exceptions(std::ios::badbit);
  try {
    through.write(bytes.data(), 1 << 20);
    seen += ", then no exception";
  } catch (const std::ios_base::failure&) {
    seen += ", then std::ios_base::failure";
  } catch (...) {
    seen += ", then another exception";
  }
  seen += ", " + stream_state(out);
  out.exceptions(std::ios::goodbit);
  out.clear();
  seen += closed(out);
  return seen + file_outcome(path);
}

// A scenario run over std::filebuf (or std::ofstream), or over mapout's with `opts`: what it saw.
using scenario = std::function<std::string(bool over_mapout, const std::filesystem::path& file,
                                           const mapout::options& opts)>;

const scenario scenarios[] = {
    [](bool over_mapout, const std::filesystem::path& file, const mapout::options& opts) {
      return over_mapout ? through_iterator<mapout::streambuf>(streambuf_maker{opts}, file)
                         : through_iterator<std::filebuf>(filebuf_maker{}, file);
    },
    [](bool over_mapout, const std::filesystem::path& file, const mapout::options& opts) {
      return over_mapout ? through_sputn<mapout::streambuf>(streambuf_maker{opts}, file)
                         : through_sputn<std::filebuf>(filebuf_maker{}, file);
    },
    [](bool over_mapout, const std::filesystem::path& file, const mapout::options& opts) {
      if (!over_mapout) {
        std::ofstream out(file, std::ios::binary);
        return through_stream(out, file);
      }
      mapout::ostream out(file, std::ios::binary, opts);
      return through_stream(out, file);
    },
    [](bool over_mapout, const std::filesystem::path& file, const mapout::options& opts) {
      if (!over_mapout) {
        std::ofstream out(file, std::ios::binary);
        return through_stream<std::ofstream, std::ostream>(out, file);
      }
      mapout::ostream out(file, std::ios::binary, opts);
      return through_stream<mapout::ostream, std::ostream>(out, file);
    },
};
const char* const scenario_names[] = {"ostreambuf_iterator", "sputn", "mapout::ostream",
                                      "std::ostream&"};

TEST(FilebufFailure, FileSizeLimitFailsAsStdFilebuf) {
  for (const mapout_mode& m : modes) {
    for (std::size_t s = 0; s < std::size(scenarios); ++s) {
      SCOPED_TRACE(std::string(m.name) + ", " + scenario_names[s]);
      temp_dir dir;
      const auto child = run_in_child([&]() -> std::string {
        ::signal(SIGXFSZ, SIG_IGN);
        const rlimit rl = {limit, limit};
        if (::setrlimit(RLIMIT_FSIZE, &rl) != 0) return "setrlimit failed";
        return scenarios[s](false, dir / "standard", m.opts) + "\n" +
               scenarios[s](true, dir / "mapout", m.opts);
      });
      ASSERT_EQ(child.status, 0) << child.report;
      const std::size_t newline = child.report.find('\n');
      ASSERT_NE(newline, std::string::npos) << child.report;
      EXPECT_EQ(child.report.substr(newline + 1), child.report.substr(0, newline));
    }
  }
}

TEST(FilebufFailure, PubsyncOfBytesTheLimitRefusesFailsAsStdFilebuf) {
  // The buffer keeps short pieces for a flush: the mapping hands them to the file at once.
  for (const mapout_mode& m : {modes[0], modes[1], modes[3]}) {
    SCOPED_TRACE(m.name);
    temp_dir dir;
    const auto child = run_in_child([&]() -> std::string {
      ::signal(SIGXFSZ, SIG_IGN);
      const rlimit rl = {limit, limit};
      if (::setrlimit(RLIMIT_FSIZE, &rl) != 0) return "setrlimit failed";
      mapout::options opts = m.opts;
      opts.flush_publishes = true;
      return through_pubsync<std::filebuf>(filebuf_maker{}, dir / "standard") + "\n" +
             through_pubsync<mapout::streambuf>(streambuf_maker{opts}, dir / "mapout");
    });
    ASSERT_EQ(child.status, 0) << child.report;
    const std::size_t newline = child.report.find('\n');
    ASSERT_NE(newline, std::string::npos) << child.report;
    EXPECT_EQ(child.report.substr(newline + 1), child.report.substr(0, newline));
  }
}

TEST(FilebufFailure, FullFileSystemFailsAsStdFilebuf) {
  for (const mapout_mode& m : modes) {
    for (std::size_t s = 0; s < std::size(scenarios); ++s) {
      SCOPED_TRACE(std::string(m.name) + ", " + scenario_names[s]);
      // One file system for each, so that each finds the same room.
      mounted_file_system for_standard("256k");
      mounted_file_system for_mapout("256k");
      if (!for_standard.mounted() || !for_mapout.mounted()) GTEST_SKIP() << for_standard.error();
      const std::string standard = scenarios[s](false, for_standard / "out", m.opts);
      const std::string seen = scenarios[s](true, for_mapout / "out", m.opts);
      if (m.opts.strategy != mapout::strategy::mapped) {
        EXPECT_EQ(seen, standard);
        continue;
      }
      // The mapping reserves its extension ahead, all or nothing on tmpfs: it may take fewer
      // bytes than write(2) squeezes in, but reports exactly those.
      EXPECT_EQ(seen.find("threw"), std::string::npos) << seen;
      EXPECT_EQ(seen.find("not the ones written"), std::string::npos) << seen;
      long long count = -1;
      long long then = -1;
      long long in_file = -2;
      if (std::sscanf(seen.c_str(), "sputn %lld, then %lld file %lld bytes", &count, &then,
                      &in_file) == 3) {
        EXPECT_EQ(count, in_file) << seen;
        EXPECT_EQ(then, 0) << seen;
      }
    }
  }
}

// ---- A buffer that is not open, and seeks that fail

template <typename Buf>
std::string unopened_outcome(Buf& buf) {
  std::string seen;
  try {
    seen += "sputc " + std::to_string(buf.sputc('x'));
    seen += ", sputn " + std::to_string(buf.sputn("abc", 3));
    seen += ", sputn of nothing " + std::to_string(buf.sputn("abc", 0));
    seen += ", pubsync " + std::to_string(buf.pubsync());
    seen += ", seek " + std::to_string(buf.pubseekoff(0, std::ios::cur, std::ios::out));
    seen += ", seekpos " + std::to_string(buf.pubseekpos(3, std::ios::out));
    std::ostream out(&buf);
    out << "lost" << std::flush;
    seen += ", stream " + stream_state(out);
    out.clear();
    out.exceptions(std::ios::badbit);
    try {
      out << "lost";
      seen += ", then no exception";
    } catch (const std::ios_base::failure&) {
      seen += ", then std::ios_base::failure";
    }
  } catch (const std::exception& e) {
    seen += std::string(" threw ") + e.what();
  }
  return seen;
}

TEST(FilebufFailure, NeverOpenedBufferFailsAsStdFilebuf) {
  std::filebuf standard;
  mapout::streambuf buf;
  EXPECT_EQ(unopened_outcome(buf), unopened_outcome(standard));
}

TEST(FilebufFailure, ClosedBufferFailsAsStdFilebufAndKeepsTheBytes) {
  temp_dir dir;
  std::filebuf standard;
  mapout::streambuf buf;
  ASSERT_TRUE(standard.open(dir / "standard", std::ios::out));
  ASSERT_TRUE(buf.open(dir / "mapout", std::ios::out));
  standard.sputn("kept\n", 5);
  buf.sputn("kept\n", 5);
  EXPECT_EQ(standard.close() != nullptr, buf.close() != nullptr);
  EXPECT_EQ(unopened_outcome(buf), unopened_outcome(standard));
  EXPECT_EQ(buf.close() != nullptr, standard.close() != nullptr);
  EXPECT_EQ(read_file(dir / "mapout"), read_file(dir / "standard"));
  EXPECT_EQ(read_file(dir / "mapout"), "kept\n");
}

TEST(FilebufFailure, FailedSeeksReturnMinusOneAndWritingGoesOn) {
  for (const mapout_mode& m : modes) {
    SCOPED_TRACE(m.name);
    temp_dir dir;
    std::filebuf standard;
    mapout::streambuf buf;
    ASSERT_TRUE(standard.open(dir / "standard", std::ios::out));
    ASSERT_TRUE(buf.open(dir / "mapout", std::ios::out, m.opts));
    auto both = [&](auto&& call) {
      const auto expected = call(standard);
      EXPECT_EQ(call(buf), expected);
    };
    both([](std::streambuf& b) { return b.sputn("0123456789", 10); });
    both([](std::streambuf& b) { return off_t(b.pubseekoff(-11, std::ios::cur, std::ios::out)); });
    both([](std::streambuf& b) { return off_t(b.pubseekoff(-1, std::ios::beg, std::ios::out)); });
    both([](std::streambuf& b) { return off_t(b.pubseekoff(-11, std::ios::end, std::ios::out)); });
    both([](std::streambuf& b) { return off_t(b.pubseekpos(std::streampos(-1), std::ios::out)); });
    both([](std::streambuf& b) { return off_t(b.pubseekoff(0, std::ios::cur, std::ios::out)); });
    both([](std::streambuf& b) { return b.sputc('a'); });
    both([](std::streambuf& b) { return off_t(b.pubseekoff(-4, std::ios::end, std::ios::out)); });
    both([](std::streambuf& b) { return b.sputn("xy", 2); });
    both([](std::streambuf& b) { return b.pubsync(); });
    standard.close();
    buf.close();
    EXPECT_EQ(read_file(dir / "mapout"), read_file(dir / "standard"));
  }
}

// ---- Whoever drives the buffer, a failure stays inside it

// A stream iterator over a stream whose exceptions() ask for badbit drives the buffer directly:
// as over std::ofstream, it fails, nothing throws, and the stream's state is untouched.
TEST(FilebufFailure, IteratorOverAThrowingStreamFailsQuietly) {
  mapout::ostream out("/dev/full");
  std::ofstream standard("/dev/full");
  ASSERT_TRUE(out.is_open());
  ASSERT_TRUE(standard.is_open());
  out.exceptions(std::ios::badbit);
  standard.exceptions(std::ios::badbit);
  const std::string line(100000, 'x');
  bool threw = false;
  bool failed = false;
  bool standard_failed = false;
  try {
    failed = std::copy(line.begin(), line.end(), std::ostreambuf_iterator<char>(out)).failed();
    standard_failed =
        std::copy(line.begin(), line.end(), std::ostreambuf_iterator<char>(standard)).failed();
  } catch (...) {
    threw = true;
  }
  EXPECT_FALSE(threw);
  EXPECT_EQ(failed, standard_failed);
  EXPECT_TRUE(failed);
  EXPECT_EQ(out.rdstate(), standard.rdstate());
  EXPECT_EQ(out.error(), std::errc::no_space_on_device);
  out.exceptions(std::ios::goodbit);
  standard.exceptions(std::ios::goodbit);
}

// A buffer whose std::ostream is gone, or that left its mapout::ostream, fails by return value.
TEST(FilebufFailure, BufferOutlivingItsStreamFailsByReturnValue) {
  mapout::streambuf buf;
  ASSERT_TRUE(buf.open("/dev/full", std::ios::out));
  {
    std::ostream out(&buf);
    out.exceptions(std::ios::badbit);
    out << "line";
  }
  EXPECT_EQ(buf.pubsync(), -1);
  EXPECT_EQ(buf.error(), std::errc::no_space_on_device);

  mapout::ostream owner("/dev/full");
  owner.exceptions(std::ios::badbit);
  mapout::streambuf moved(std::move(*owner.rdbuf()));
  owner.exceptions(std::ios::goodbit);
  const std::string line(100000, 'x');
  EXPECT_EQ(moved.sputn(line.data(), static_cast<std::streamsize>(line.size())), 0);
  EXPECT_EQ(moved.sputc('x'), std::char_traits<char>::eof());
  EXPECT_EQ(moved.pubsync(), -1);
  EXPECT_EQ(moved.close(), nullptr);
}

// mapout::ostream's own members throw the buffer's failure, with errno, where std::ofstream's
// would throw the standard library's; through a std::ostream& it is the standard one.
TEST(FilebufFailure, StreamThrowsTheCauseThroughItsOwnMembers) {
  const std::string line(100000, 'x');
  for (int how = 0; how < 4; ++how) {
    SCOPED_TRACE(how);
    mapout::ostream out("/dev/full");
    out.exceptions(std::ios::badbit);
    try {
      if (how == 0) out.write(line.data(), static_cast<std::streamsize>(line.size()));
      if (how == 1) out << line;
      if (how == 2) out << 1.5 << std::setw(3) << line;
      if (how == 3) {
        for (int i = 0; i < 100000; ++i) out.put('x');
      }
      ADD_FAILURE() << "no exception";
    } catch (const std::ios_base::failure& e) {
      EXPECT_EQ(e.code(), std::errc::no_space_on_device) << e.what();
      EXPECT_NE(std::string(e.what()).find(out.error_message()), std::string::npos) << e.what();
    }
    EXPECT_TRUE(out.bad());
    out.exceptions(std::ios::goodbit);
  }
}

}  // namespace
