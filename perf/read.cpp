// perf/read: the read side. The flat file of examples/flat.hpp written with stdio and mapout and
// loaded three ways; a text file's lines counted by every common reader; random seekg + read; and
// the round trip of a file a program writes and reads straight back, against memory. Every run
// in a fresh child after perf::warm_up, rotating rounds, medians; ext4 (--dir) and tmpfs (--shm).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <mapout/input.hpp>
#include <mapout/istream.hpp>
#include <mapout/ostream.hpp>

#include "command_line.hpp"
#include "flat.hpp"
#include "read_runner.hpp"
#include "stats.hpp"

namespace {

using perf::contender;
using perf::program_dir;
using perf::split;
using perf::stopwatch;

struct settings {
  std::string disk_dir;
  std::string shm_dir = "/dev/shm";
  int rounds = 5;
  std::uint64_t text_bytes = std::uint64_t{100} << 20;
  std::size_t strings = 1000000;
  std::size_t seeks = 200000;
  std::vector<std::string> groups = {"flat", "lines", "random", "roundtrip"};
};

struct place {
  std::string name;  // "ext4", "tmpfs"
  std::string dir;
};

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

std::uint64_t count_newlines(const char* data, std::size_t size) {
  return static_cast<std::uint64_t>(std::count(data, data + size, '\n'));
}

// Every byte of every string, so that a lazy load pays for what it deferred.
template <typename Table>
std::uint64_t sum_of_bytes(const Table& table) {
  std::uint64_t sum = table.size();
  for (std::size_t i = 0; i < table.size(); ++i) {
    for (const char c : table[i]) sum += static_cast<unsigned char>(c);
  }
  return sum;
}

// Lines of 0 to 120 characters, written in 4 MiB blocks so that ext4 caches them in large folios
// as it would a file copied or downloaded.
void write_text(const std::string& path, std::uint64_t bytes) {
  std::mt19937 random(7);
  std::string text;
  text.reserve(bytes);
  while (text.size() < bytes) {
    const std::size_t length = random() % 121;
    for (std::size_t i = 0; i < length && text.size() + 1 < bytes; ++i) {
      text.push_back(static_cast<char>(i % 8 == 7 ? ' ' : 'a' + random() % 26));
    }
    text.push_back('\n');
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("open " + path);
  constexpr std::size_t block = std::size_t{4} << 20;
  for (std::size_t at = 0; at < text.size(); at += block) {
    const std::size_t size = std::min(block, text.size() - at);
    if (::write(fd, text.data() + at, size) != static_cast<ssize_t>(size)) fail("write " + path);
  }
  ::close(fd);
}

void write_flat_stdio(const std::string& path, const std::vector<std::string>& strings) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) fail("fopen " + path);
  flat::stdio_output out{file};
  flat::write_strings(out, strings);
  if (std::ferror(file) != 0 || std::fclose(file) != 0) fail("fwrite " + path);
}

void write_flat_mapout(const std::string& path, const std::vector<std::string>& strings) {
  mapout::ostream out(path, std::ios::binary);
  flat::write_strings(out, strings);
  out.close();
  if (!out) throw std::runtime_error(out.error_message());
}

// The cheapest way to keep the bytes in memory: one string, appended to, no stream in between.
struct string_output {
  std::string bytes;
  void write(const char* data, std::size_t size) { bytes.append(data, size); }
};

std::uint64_t file_size(const std::string& path) {
  return std::filesystem::file_size(path);
}

std::vector<contender> flat_writers(const place& at, const std::vector<std::string>& strings) {
  const std::string path = at.dir + "/written.flat";
  return {
      {"stdio fwrite_unlocked",
       [=, &strings](stopwatch& t) {
         t.start();
         write_flat_stdio(path, strings);
         t.stop();
         const std::uint64_t size = file_size(path);
         ::unlink(path.c_str());
         return size;
       }},
      {"mapout::ostream",
       [=, &strings](stopwatch& t) {
         t.start();
         write_flat_mapout(path, strings);
         t.stop();
         const std::uint64_t size = file_size(path);
         ::unlink(path.c_str());
         return size;
       }},
  };
}

std::vector<contender> flat_loaders(const std::string& path) {
  return {
      {"one fread + pointer fix-up",
       [=](stopwatch& t) {
         t.start();
         const flat::copied_table table(path.c_str());
         t.lap();
         const std::uint64_t sum = sum_of_bytes(table);
         t.stop();
         return sum;
       }},
      {"element by element (fread)",
       [=](stopwatch& t) {
         t.start();
         const std::vector<std::string> table = flat::load_each(path.c_str());
         t.lap();
         std::uint64_t sum = table.size();
         for (const std::string& s : table) {
           for (const char c : s) sum += static_cast<unsigned char>(c);
         }
         t.stop();
         return sum;
       }},
      {"zero-copy mapped_input",
       [=](stopwatch& t) {
         t.start();
         const flat::mapped_table table(path.c_str());
         t.lap();
         const std::uint64_t sum = sum_of_bytes(table);
         t.stop();
         return sum;
       }},
  };
}

// Reads `path` in 64 KiB blocks with `read_block` (returns bytes read, 0 at the end).
template <typename ReadBlock>
std::uint64_t count_in_blocks(ReadBlock read_block) {
  constexpr std::size_t block = std::size_t{64} << 10;
  std::unique_ptr<char[]> buffer(new char[block]);
  std::uint64_t lines = 0;
  for (std::size_t got; (got = read_block(buffer.get(), block)) > 0;) {
    lines += count_newlines(buffer.get(), got);
  }
  return lines;
}

template <typename Stream>
std::uint64_t count_getlines(Stream& in) {
  std::uint64_t lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  return lines;
}

std::vector<contender> line_counters(const std::string& path) {
  return {
      {"std::ifstream::read, whole file",
       [=](stopwatch& t) {
         t.start();
         std::ifstream in(path, std::ios::binary);
         in.seekg(0, std::ios::end);
         const auto size = static_cast<std::size_t>(in.tellg());
         in.seekg(0);
         std::unique_ptr<char[]> bytes(new char[size]);
         if (!in.read(bytes.get(), static_cast<std::streamsize>(size))) fail("read " + path);
         const std::uint64_t lines = count_newlines(bytes.get(), size);
         bytes.reset();
         t.stop();
         return lines;
       }},
      {"std::ifstream::read, 64 KiB blocks",
       [=](stopwatch& t) {
         t.start();
         std::ifstream in(path, std::ios::binary);
         const std::uint64_t lines = count_in_blocks([&](char* into, std::size_t size) {
           in.read(into, static_cast<std::streamsize>(size));
           return static_cast<std::size_t>(in.gcount());
         });
         t.stop();
         return lines;
       }},
      {"fread, 64 KiB blocks",
       [=](stopwatch& t) {
         t.start();
         std::FILE* file = std::fopen(path.c_str(), "rb");
         if (!file) fail("fopen " + path);
         const std::uint64_t lines = count_in_blocks(
             [&](char* into, std::size_t size) { return ::fread_unlocked(into, 1, size, file); });
         std::fclose(file);
         t.stop();
         return lines;
       }},
      {"pread, 64 KiB blocks",
       [=](stopwatch& t) {
         t.start();
         const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
         if (fd < 0) fail("open " + path);
         off_t offset = 0;
         const std::uint64_t lines = count_in_blocks([&](char* into, std::size_t size) {
           const ssize_t got = ::pread(fd, into, size, offset);
           if (got < 0) fail("pread " + path);
           offset += got;
           return static_cast<std::size_t>(got);
         });
         ::close(fd);
         t.stop();
         return lines;
       }},
      {"mapped_input",
       [=](stopwatch& t) {
         t.start();
         const mapout::mapped_input in(path);
         const std::uint64_t lines = count_newlines(in.data(), in.size());
         t.stop();
         return lines;
       }},
      {"mapped_input, access::sequential",
       [=](stopwatch& t) {
         t.start();
         const mapout::mapped_input in(path, mapout::access::sequential);
         const std::uint64_t lines = count_newlines(in.data(), in.size());
         t.stop();
         return lines;
       }},
      {"std::getline on std::ifstream",
       [=](stopwatch& t) {
         t.start();
         std::ifstream in(path);
         const std::uint64_t lines = count_getlines(in);
         t.stop();
         return lines;
       }},
      {"std::getline on mapout::istream",
       [=](stopwatch& t) {
         t.start();
         mapout::istream in(path);
         const std::uint64_t lines = count_getlines(in);
         t.stop();
         return lines;
       }},
  };
}

template <typename Stream>
std::uint64_t random_reads(const std::string& path, std::size_t seeks, std::uint64_t size) {
  Stream in(path, std::ios::binary);
  std::mt19937_64 random(11);
  char bytes[64];
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < seeks; ++i) {
    in.seekg(static_cast<std::streamoff>(random() % (size - sizeof bytes)));
    if (!in.read(bytes, sizeof bytes)) fail("read " + path);
    for (const char c : bytes) sum += static_cast<unsigned char>(c);
  }
  return sum;
}

std::vector<contender> random_readers(const std::string& path, std::size_t seeks) {
  const std::uint64_t size = file_size(path);
  return {
      {"std::ifstream",
       [=](stopwatch& t) {
         t.start();
         const std::uint64_t sum = random_reads<std::ifstream>(path, seeks, size);
         t.stop();
         return sum;
       }},
      {"mapout::istream",
       [=](stopwatch& t) {
         t.start();
         const std::uint64_t sum = random_reads<mapout::istream>(path, seeks, size);
         t.stop();
         return sum;
       }},
  };
}

// The file a program writes and reads straight back, or its bytes kept in memory instead.
template <typename WriteAndRead>
contender round_trip(const std::string& name, WriteAndRead write_and_read) {
  return {name, [=](stopwatch& t) {
            t.start();
            const std::uint64_t sum = write_and_read();
            t.stop();
            return sum;
          }};
}

// A library writes the strings where the program says, and the program reads them straight back
// and removes the file: the file's whole life is timed.
std::vector<contender> round_trips(const std::vector<place>& places,
                                   const std::vector<std::string>& strings) {
  std::vector<contender> trips;
  trips.push_back(round_trip("memory: std::ostringstream", [&strings] {
    std::ostringstream out;
    flat::write_strings(out, strings);
    const std::string bytes = out.str();
    return sum_of_bytes(flat::table_view(bytes));
  }));
  trips.push_back(round_trip("memory: std::string, appended", [&strings] {
    string_output out;
    flat::write_strings(out, strings);
    return sum_of_bytes(flat::table_view(out.bytes));
  }));
  std::uint64_t total = 0;
  for (const std::string& string : strings) total += string.size() + sizeof(std::uint64_t);
  trips.push_back(round_trip("memory: std::string, reserved", [&strings, total] {
    string_output out;
    out.bytes.reserve(total + 2 * sizeof(std::uint64_t));
    flat::write_strings(out, strings);
    return sum_of_bytes(flat::table_view(out.bytes));
  }));
  for (const place& at : places) {
    const std::string path = at.dir + "/roundtrip.flat";
    const auto read_back = [path] {
      std::uint64_t sum = 0;
      {
        const flat::mapped_table table(path.c_str());
        sum = sum_of_bytes(table);
      }
      if (::unlink(path.c_str()) != 0) fail("unlink " + path);
      return sum;
    };
    trips.push_back(round_trip(at.name + ": stdio, then mapped_input", [=, &strings] {
      write_flat_stdio(path, strings);
      return read_back();
    }));
    trips.push_back(round_trip(at.name + ": mapout::ostream, then mapped_input", [=, &strings] {
      write_flat_mapout(path, strings);
      return read_back();
    }));
  }
  return trips;
}

// One table: medians (and the best wall time) of every contender, and how many times faster
// than the first contender each one's median was.
void report(const std::string& title, const std::vector<contender>& contenders,
            const perf::group_result& result, bool lapped) {
  std::printf("\n%s\n", title.c_str());
  std::printf("%-42s %9s %9s %9s %9s %9s %8s %8s\n", "", lapped ? "load s" : "", "wall s", "best s",
              "user s", "sys s", "faults", "x");
  std::vector<double> medians;
  std::vector<double> firsts;
  for (std::size_t k = 0; k < contenders.size(); ++k) {
    std::vector<double> wall, first, user, sys, faults;
    for (const stopwatch& s : result.samples[k]) {
      wall.push_back(s.wall);
      first.push_back(s.first);
      user.push_back(s.user);
      sys.push_back(s.sys);
      faults.push_back(static_cast<double>(s.faults));
    }
    medians.push_back(perf::median(wall));
    firsts.push_back(perf::median(first));
    const double base = lapped ? firsts[0] : medians[0];
    const double mine = lapped ? firsts[k] : medians[k];
    char load[16] = "";
    if (lapped) std::snprintf(load, sizeof load, "%9.6f", firsts[k]);
    std::printf("%-42s %9s %9.4f %9.4f %9.4f %9.4f %8.0f %8.2f%s\n", contenders[k].name.c_str(),
                load, medians[k], perf::best(wall), perf::median(user), perf::median(sys),
                perf::median(faults), mine > 0 ? base / mine : 0.0,
                result.checks[k] == result.checks[0] ? "" : "  WRONG RESULT");
  }
}

bool wanted(const settings& s, const char* group) {
  return std::find(s.groups.begin(), s.groups.end(), group) != s.groups.end();
}

}  // namespace

int main(int argc, char** argv) try {
  settings s;
  s.disk_dir = program_dir() + "/files";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--dir") {
      s.disk_dir = value;
    } else if (flag == "--shm") {
      s.shm_dir = value;
    } else if (flag == "--rounds") {
      s.rounds = std::atoi(value.c_str());
    } else if (flag == "--mib") {
      s.text_bytes = std::strtoull(value.c_str(), nullptr, 10) << 20;
    } else if (flag == "--strings") {
      s.strings = std::strtoull(value.c_str(), nullptr, 10);
    } else if (flag == "--seeks") {
      s.seeks = std::strtoull(value.c_str(), nullptr, 10);
    } else if (flag == "--groups") {
      s.groups = split(value);
    } else {
      argc = 0;
    }
  }
  if (argc % 2 == 0 || s.rounds < 1 || s.text_bytes < 4096 || s.strings == 0) {
    std::fprintf(stderr,
                 "usage: %s [--dir EXT4-DIR] [--shm TMPFS-DIR] [--rounds N] [--mib MiB] "
                 "[--strings N] [--seeks N] [--groups flat,lines,random,roundtrip]\n",
                 argv[0]);
    return 2;
  }
  const std::string scratch = "/mapout-read-" + std::to_string(::getpid());
  const std::vector<place> places = {{"ext4", s.disk_dir + scratch},
                                     {"tmpfs", s.shm_dir + scratch}};
  for (const place& at : places) std::filesystem::create_directories(at.dir);
  std::printf(
      "medians of %d rounds, each run in a fresh child; x: times faster than the first row\n",
      s.rounds);

  std::vector<std::string> strings;
  if (wanted(s, "flat") || wanted(s, "roundtrip")) strings = flat::random_strings(s.strings);
  std::uint64_t flat_bytes = 0;
  for (const std::string& string : strings) flat_bytes += string.size() + 8;

  for (const place& at : places) {
    if (wanted(s, "flat")) {
      const std::vector<contender> writers = flat_writers(at, strings);
      report("flat file of " + std::to_string(s.strings) + " strings, written, " + at.name, writers,
             perf::run_group(writers, s.rounds, flat_bytes), false);
      const std::string path = at.dir + "/strings.flat";
      write_flat_mapout(path, strings);
      const std::vector<contender> loaders = flat_loaders(path);
      report("the same file loaded (load s), then every byte of every string read (wall s), " +
                 at.name,
             loaders, perf::run_group(loaders, s.rounds, 2 * flat_bytes), true);
      ::unlink(path.c_str());
    }
    if (wanted(s, "lines") || wanted(s, "random")) {
      const std::string path = at.dir + "/text";
      write_text(path, s.text_bytes);
      const std::string mib = std::to_string(s.text_bytes >> 20) + " MiB";
      if (wanted(s, "lines")) {
        const std::vector<contender> counters = line_counters(path);
        report("lines of a " + mib + " text file counted, " + at.name, counters,
               perf::run_group(counters, s.rounds, s.text_bytes), false);
      }
      if (wanted(s, "random")) {
        const std::vector<contender> readers = random_readers(path, s.seeks);
        report(std::to_string(s.seeks) + " seekg + 64-byte read at random offsets of the " + mib +
                   " file, " + at.name,
               readers, perf::run_group(readers, s.rounds, 0), false);
      }
      ::unlink(path.c_str());
    }
  }
  if (wanted(s, "roundtrip")) {
    const std::vector<contender> trips = round_trips(places, strings);
    report("round trip: " + std::to_string(s.strings) +
               " strings written by a library, read back whole, the file removed",
           trips, perf::run_group(trips, s.rounds, 4 * flat_bytes), false);
  }
  for (const place& at : places) std::filesystem::remove_all(at.dir);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "read: %s\n", e.what());
  return 1;
}
