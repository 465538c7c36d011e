// mapout::ostream against std::ofstream: the same randomized operations on both must leave the same
// bytes and report the same positions, whatever the reservation, strategy and extension mode, on
// new and existing files, on ext4 or tmpfs and on XFS; after each publish a reader in another
// process sees the same bytes in both.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "child_process.hpp"
#include "file_system_type.hpp"
#include "mapout/ostream.hpp"
#include "mounted_file_system.hpp"
#include "strategies.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::mapped;
using mapout::test::mounted_file_system;
using mapout::test::on_unmeasured_file_system;
using mapout::test::page_size;
using mapout::test::read_file;
using mapout::test::temp_dir;
using mapout::test::write_file;

constexpr int seeds = 200;
constexpr std::size_t largest_write = std::size_t{1} << 20;

enum class kind {
  write,
  put,
  sputc,
  string,
  c_string,
  integer,
  endl,
  flush,
  publish,
  persist,
  seek,
  bad_seek  // a seek before the start, which fails, then clear()
};

struct operation {
  kind what;
  std::string bytes;     // what the operation stores, for the ones that store
  long long number = 0;  // the integer for kind::integer, the offset for kind::seek
  std::ios_base::seekdir dir = std::ios_base::beg;
};

// Random bytes to cut writes from: generating each write's bytes afresh would dominate the run.
const std::string& byte_pool() {
  static const std::string pool = [] {
    std::mt19937_64 random(1);
    std::string bytes(2 * largest_write, '\0');
    for (char& c : bytes) c = static_cast<char>(random());
    return bytes;
  }();
  return pool;
}

class generator {
 public:
  // `existing` bytes are in the file when it is opened. `seeking`: half the operations write
  // length-prefixed records, patched as binary formats patch them.
  generator(unsigned seed, std::size_t existing, bool seeking, bool scattered)
      : random_(seed),
        size_(static_cast<std::int64_t>(existing)),
        seeking_(seeking),
        scattered_(scattered) {}

  std::vector<operation> operations() {
    std::vector<operation> result;
    if (scattered_) {
      add_scattered_records(result);
      return result;
    }
    const int count = pick(10, 40);
    for (int i = 0; i < count; ++i) {
      if (seeking_ && pick(0, 1) == 0) {
        add_record(result);
      } else {
        result.push_back(next());
      }
    }
    return result;
  }

 private:
  int pick(int low, int high) { return std::uniform_int_distribution<int>(low, high)(random_); }

  // Mostly the short writes of text output, some pages, one in thirty-odd of up to 1 MiB.
  std::size_t write_size() {
    const int band = pick(0, 99);
    if (band < 70) return static_cast<std::size_t>(pick(0, 100));
    if (band < 97) return static_cast<std::size_t>(pick(100, 20000));
    return static_cast<std::size_t>(pick(20000, static_cast<int>(largest_write)));
  }

  std::string bytes(std::size_t size, bool nul_free) {
    const std::string& pool = byte_pool();
    std::string result =
        pool.substr(static_cast<std::size_t>(pick(0, int(pool.size() - size))), size);
    if (nul_free) std::replace(result.begin(), result.end(), '\0', 'z');
    return result;
  }

  operation stores(kind what, std::string text) {
    position_ += static_cast<std::int64_t>(text.size());
    size_ = std::max(size_, position_);
    return {what, std::move(text)};
  }

  // A placeholder, a body, a seek back over both, the length, and a seek to the end or to where
  // the record ended: across the buffer's start, a page end or the mapping's end as they fall.
  void add_record(std::vector<operation>& result) {
    const std::size_t body =
        pick(0, 9) == 0 ? write_size() : static_cast<std::size_t>(pick(0, 300));
    const std::int64_t start = position_;
    result.push_back(stores(kind::write, "????"));
    result.push_back(stores(kind::write, bytes(body, false)));
    const std::int64_t end = position_;
    result.push_back(seek_to(start));
    result.push_back(stores(kind::write, bytes(4, false)));
    result.push_back(seek_to(pick(0, 1) == 0 ? size_ : end));
  }

  // A file laid out as an index is (a seek to its last byte, a zero), then many small records at
  // random offsets in it, a few of them past its end; some flushes and publishes among them.
  void add_scattered_records(std::vector<operation>& result) {
    const std::int64_t layout = std::max<std::int64_t>(size_, pick(1, 40) * 4096 + pick(0, 4095));
    result.push_back(seek_to(layout - 1));
    result.push_back(stores(kind::put, std::string(1, '\0')));
    const int count = pick(80, 200);
    for (int i = 0; i < count; ++i) {
      const auto size = static_cast<std::size_t>(pick(1, 64));
      const std::int64_t reach = pick(0, 49) == 0 ? size_ + 5000 : size_ - 1;
      result.push_back(seek_to(std::uniform_int_distribution<std::int64_t>(0, reach)(random_)));
      result.push_back(stores(pick(0, 4) == 0 ? kind::put : kind::write, bytes(size, false)));
      if (pick(0, 49) == 0) result.push_back({pick(0, 1) == 0 ? kind::flush : kind::publish, {}});
    }
  }

  operation seek() {
    if (seeking_ && pick(0, 4) == 0) return {kind::bad_seek, {}, -position_ - 1};
    std::int64_t target;
    if (pick(0, 3) == 0) {
      target = size_ + pick(1, 3 * 4096 + 17);  // a gap that must read as zeros
    } else {
      target = size_ == 0 ? 0 : std::uniform_int_distribution<std::int64_t>(0, size_)(random_);
    }
    return seek_to(target);
  }

  operation seek_to(std::int64_t target) {
    operation op{kind::seek, {}};
    switch (pick(0, 2)) {
      case 0:
        op.number = target;
        op.dir = std::ios_base::beg;
        break;
      case 1:
        op.number = target - position_;
        op.dir = std::ios_base::cur;
        break;
      default:
        op.number = target - size_;
        op.dir = std::ios_base::end;
        break;
    }
    position_ = target;
    return op;
  }

  operation next() {
    switch (pick(0, 19)) {
      case 0:
      case 1:
      case 2:
      case 3:
      case 4:
        return stores(kind::write, bytes(write_size(), false));
      case 5:
      case 6:
        return stores(kind::put, bytes(static_cast<std::size_t>(pick(1, 300)), false));
      case 7:
      case 8:
        return stores(kind::sputc, bytes(static_cast<std::size_t>(pick(1, 5000)), false));
      case 9:
        return stores(kind::string, bytes(write_size(), false));
      case 10:
        return stores(kind::c_string, bytes(static_cast<std::size_t>(pick(0, 200)), true));
      case 11:
      case 12: {
        const long long number = std::uniform_int_distribution<long long>()(random_);
        operation op = stores(kind::integer, std::to_string(number));
        op.number = number;
        return op;
      }
      case 13:
        return stores(kind::endl, "\n");
      case 14:
        return {kind::flush, {}};
      case 15:
        return {pick(0, 3) == 0 ? kind::persist : kind::publish, {}};
      default:
        return seek();
    }
  }

  std::mt19937_64 random_;
  std::int64_t position_ = 0;
  std::int64_t size_ = 0;
  bool seeking_;
  bool scattered_;
};

// Calls through the stream's own type, so that whatever mapout::ostream adds over std::ostream is
// what runs. Returns tellp afterwards, and -2 where the stream went bad.
template <class Stream>
std::int64_t perform(Stream& out, const operation& op) {
  switch (op.what) {
    case kind::write:
      out.write(op.bytes.data(), static_cast<std::streamsize>(op.bytes.size()));
      break;
    case kind::put:
      for (char c : op.bytes) out.put(c);
      break;
    case kind::sputc:
      for (char c : op.bytes) out.rdbuf()->sputc(c);
      break;
    case kind::string:
      out << op.bytes;
      break;
    case kind::c_string:
      out << op.bytes.c_str();
      break;
    case kind::integer:
      out << op.number;
      break;
    case kind::endl:
      out << std::endl;
      break;
    case kind::flush:
      out.flush();
      break;
    case kind::publish:
    case kind::persist:
      if constexpr (std::is_same_v<Stream, mapout::ostream>) {
        op.what == kind::publish ? out.publish() : out.persist();
      } else {
        out.flush();
      }
      break;
    case kind::seek:
      // Both overloads: mapout::ostream serves each inline where it can.
      if (op.dir == std::ios_base::beg && op.number % 2 == 0) {
        out.seekp(std::streampos(op.number));
      } else {
        out.seekp(op.number, op.dir);
      }
      break;
    case kind::bad_seek:
      out.seekp(op.number, std::ios_base::cur);
      if (!out.fail()) return -3;
      out.clear();
      break;
  }
  return out ? static_cast<std::int64_t>(out.tellp()) : -2;
}

// A reader in another process sees the same bytes in both files (under Windows, which cannot
// fork, a reader of its own in this process).
bool reader_sees_the_same(const std::filesystem::path& expected,
                          const std::filesystem::path& actual) {
#ifdef _WIN32
  return read_file(expected) == read_file(actual);
#else
  const pid_t reader =
      mapout::test::spawn([&] { return read_file(expected) == read_file(actual) ? 0 : 1; });
  return mapout::test::wait_for(reader) == 0;
#endif
}

mapout::options on_sigbus(std::size_t reserve) {
  mapout::options opts = mapped(reserve);
  opts.extension = mapout::extension::on_fault;
  return opts;
}

struct configuration {
  const char* name;
  // The options for one seed: some configurations vary them.
  mapout::options (*options_for)(unsigned seed);
  // Whether files pretend to be on a file system where automatic maps: the temporary directory
  // is most often on ext4 or tmpfs, where it keeps its buffer.
  bool on_unmeasured_file_system = false;
  // Whether each seed starts from an existing file of an unaligned size, opened out|in.
  bool existing_file = false;
  // The files live on a loop image made with this mkfs command, or in the temporary directory.
  const char* mkfs = nullptr;
  // Whether the operations are mostly patched records (generator's `seeking`).
  bool seeking = false;
  // Whether the options write through a temporary (atomic, write_if_changed): each seed starts
  // from an old file that holds the bytes it will write, those with one byte changed, or others.
  bool replaces = false;  // Whether the operations lay a file out and store small records at random
                          // offsets of it
  // (generator's `scattered`).
  bool scattered = false;
};

mapout::options automatic(unsigned seed) {
  mapout::options opts;
  opts.buffer_size = 1 + seed * 53 % 5000;
  opts.mapping_size = (1 + seed % 3) * page_size();
  return opts;
}

mapout::options automatic_on_sigbus(unsigned seed) {
  mapout::options opts = automatic(seed);
  opts.extension = mapout::extension::on_fault;
  return opts;
}

mapout::options tiny_reservation(unsigned seed) {
  return mapped((1 + seed % 3) * page_size());
}

mapout::options tiny_reservation_on_sigbus(unsigned seed) {
  return on_sigbus((1 + seed % 3) * page_size());
}

// `options_for` with atomic and write_if_changed.
template <mapout::options (*options_for)(unsigned)>
mapout::options if_changed(unsigned seed) {
  mapout::options opts = options_for(seed);
  opts.atomic = seed % 2 == 0;
  opts.write_if_changed = true;
  return opts;
}

mapout::options buffered(unsigned seed) {
  mapout::options opts;
  opts.strategy = mapout::strategy::buffered;
  if (seed % 2) opts.buffer_size = 1 + seed * 37 % 5000;  // most writes cross the buffer
  return opts;
}

const configuration configurations[] = {
    {"TinyReservation", tiny_reservation},
    {"Default", [](unsigned) { return mapped(); }},
    // The first buffer, then the mapping from wherever the stream stands when the buffer runs
    // out: after seeks, inside what write(2) already wrote, or past the end.
    {"Automatic", automatic, true},
    {"Buffered", buffered},
    // Stores past an unaligned end of file (after publish, in an existing file, after the first
    // buffer) must fault, or be extended first, in the SIGBUS mode.
    {"OnSigbus", tiny_reservation_on_sigbus},
    {"OnSigbusDefault", [](unsigned) { return on_sigbus(mapped().mapping_size); }},
    {"AutomaticOnSigbus", automatic_on_sigbus, true},
    {"ExistingFile", tiny_reservation, false, true},
    {"ExistingFileOnSigbus", tiny_reservation_on_sigbus, false, true},
    {"XfsOnSigbus", tiny_reservation_on_sigbus, false, true, "mkfs.xfs -q -f"},
    {"XfsAutomaticOnSigbus", automatic_on_sigbus, false, false, "mkfs.xfs -q -f"},
    // Patched records, where the buffer patches what it still holds and pwrites what it does
    // not, or the mapping takes over after the first buffer.
    {"AutomaticSeeking", automatic, false, false, nullptr, true},
    {"AutomaticSeekingWhereItMaps", automatic, true, false, nullptr, true},
    {"AutomaticSeekingExistingFile", automatic, false, true, nullptr, true},
    {"BufferedSeeking",
     [](unsigned seed) {
       mapout::options opts;
       opts.strategy = mapout::strategy::buffered;
       opts.buffer_size = 1 + seed * 37 % 600;
       return opts;
     },
     false, false, nullptr, true},
    {"MappedSeeking", tiny_reservation, false, false, nullptr, true},
    {"IfChangedTinyReservation", if_changed<tiny_reservation>, false, false, nullptr, false, true},
    {"IfChangedAutomatic", if_changed<automatic>, true, false, nullptr, false, true},
    {"IfChangedBuffered", if_changed<buffered>, false, false, nullptr, false, true},
    {"IfChangedOnSigbus", if_changed<tiny_reservation_on_sigbus>, false, false, nullptr, false,
     true},
    {"IfChangedAutomaticOnSigbus", if_changed<automatic_on_sigbus>, true, false, nullptr, false,
     true},
    // Patched records over an old file, where the buffer patches what it holds and pwrites the
    // rest.
    {"IfChangedAutomaticSeeking", if_changed<automatic>, false, false, nullptr, true, true},
    {"IfChangedBufferedSeeking", if_changed<buffered>, false, false, nullptr, true, true},
    {"IfChangedMappedSeeking", if_changed<tiny_reservation>, false, false, nullptr, true, true},
    // Small records at random offsets of a laid-out file: the mapping of every byte laid out
    // takes over from the window, and automatic moves from its buffer to it.
    {"ScatteredRecordsMapped", [](unsigned) { return mapped(); }, false, false, nullptr, false,
     false, true},
    {"ScatteredRecordsTinyReservation", tiny_reservation, false, false, nullptr, false, false,
     true},
    {"ScatteredRecordsOnSigbus", tiny_reservation_on_sigbus, false, false, nullptr, false, false,
     true},
    {"ScatteredRecordsAutomatic", automatic, false, false, nullptr, false, false, true},
    {"ScatteredRecordsAutomaticWhereItMaps", automatic, true, false, nullptr, false, false, true},
    {"ScatteredRecordsAutomaticOnSigbus", automatic_on_sigbus, false, false, nullptr, false, false,
     true},
    {"ScatteredRecordsBuffered", buffered, false, false, nullptr, false, false, true},
    {"ScatteredRecordsExistingFile", tiny_reservation, false, true, nullptr, false, false, true},
    {"ScatteredRecordsAutomaticExistingFile", automatic, false, true, nullptr, false, false, true},
    {"ScatteredRecordsIfChangedAutomatic", if_changed<automatic>, false, false, nullptr, false,
     true, true},
};

// Bytes an output may differ from its final bytes while it is written, and still be known
// unchanged at close (the library tracks more).
constexpr std::size_t tracked_differences = 4096;

bool stores_bytes(kind what) {
  return what != kind::flush && what != kind::publish && what != kind::persist &&
         what != kind::seek;
}

// The old file a replacing configuration starts from, for `seed` whose output is `output`.
std::string old_file_for(unsigned seed, const std::string& output) {
  std::string old_bytes = output;
  if (seed % 3 == 1 && !old_bytes.empty()) old_bytes[seed * 7919 % old_bytes.size()] ^= 1;
  if (seed % 3 == 2) old_bytes = byte_pool().substr(seed, seed * 31 % 5000);
  return old_bytes;
}

class SameBytesAsOfstream : public ::testing::TestWithParam<configuration> {};

TEST_P(SameBytesAsOfstream, OverRandomOperations) {
  const configuration& config = GetParam();
  temp_dir dir;
  std::optional<mounted_file_system> image;
  if (config.mkfs) {
    image.emplace(config.mkfs, 300);
    if (!image->mounted()) GTEST_SKIP() << "needs a loop image: " << image->error();
  }
  std::optional<on_unmeasured_file_system> unmeasured;
  if (config.on_unmeasured_file_system) unmeasured.emplace();
  const auto expected_path = image ? *image / "expected" : dir / "expected";
  const auto actual_path = image ? *image / "actual" : dir / "actual";
  for (unsigned seed = 1; seed <= seeds; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    auto mode = std::ios::binary | std::ios::out;
    std::size_t existing = 0;
    if (config.existing_file) {
      existing = 1 + seed * 1009 % (3 * page_size());
      const std::string old_bytes = byte_pool().substr(seed, existing);
      write_file(expected_path, old_bytes);
      write_file(actual_path, old_bytes);
      mode |= std::ios::in;
    }
    const std::vector<operation> operations =
        generator(seed, existing, config.seeking, config.scattered).operations();
    struct stat before = {};
    std::filesystem::file_time_type written_before;
    std::string output;
    if (config.replaces) {
      {
        std::ofstream preview(expected_path, mode);
        for (const operation& op : operations) perform(preview, op);
      }
      output = read_file(expected_path);
      write_file(actual_path, old_file_for(seed, output));
      ASSERT_EQ(::stat(actual_path.string().c_str(), &before), 0);
      written_before = std::filesystem::last_write_time(actual_path);
    }

    // In step, so that a reader can compare the files after each publish.
    std::ofstream expected(expected_path, mode);
    mapout::ostream actual(actual_path, mode, config.options_for(seed));
    ASSERT_TRUE(actual.is_open()) << actual.rdbuf()->error_message();
    // How many bytes differ from the final output as they are stored (or left as zeros in a gap):
    // what the comparison has to keep track of until they are written over.
    std::size_t churn = 0;
    std::size_t position = 0;
    std::size_t high_water = 0;
    for (std::size_t i = 0; i < operations.size(); ++i) {
      SCOPED_TRACE("operation " + std::to_string(i));
      const std::int64_t after = perform(expected, operations[i]);
      ASSERT_EQ(perform(actual, operations[i]), after) << actual.rdbuf()->error_message();
      if (config.replaces && stores_bytes(operations[i].what) && after >= 0) {
        for (std::size_t at = high_water; at < position; ++at) churn += output[at] != '\0';
        const std::string& bytes = operations[i].bytes;
        for (std::size_t at = 0; at < bytes.size(); ++at) {
          churn += bytes[at] != output[position + at];
        }
        high_water = std::max(high_water, position + bytes.size());
      }
      if (after >= 0) position = static_cast<std::size_t>(after);
      // A replacing stream leaves the target as it was until close.
      if (!config.replaces &&
          (operations[i].what == kind::publish || operations[i].what == kind::persist)) {
        ASSERT_TRUE(reader_sees_the_same(expected_path, actual_path));
      }
    }
    expected.close();
    actual.close();
    ASSERT_TRUE(actual) << actual.rdbuf()->error_message();

    const std::string want = read_file(expected_path);
    const std::string got = read_file(actual_path);
    ASSERT_EQ(got.size(), want.size());
    ASSERT_TRUE(got == want) << "first difference at byte "
                             << std::mismatch(got.begin(), got.end(), want.begin()).first -
                                    got.begin();
    if (config.replaces && seed % 3 == 0 && churn <= tracked_differences) {
      struct stat after = {};
      ASSERT_EQ(::stat(actual_path.string().c_str(), &after), 0);
      // Windows has no inode numbers in struct stat (st_ino is 0): the time alone says it there.
      EXPECT_EQ(after.st_ino, before.st_ino) << "an unchanged output replaced the file";
      EXPECT_TRUE(std::filesystem::last_write_time(actual_path) == written_before)
          << "an unchanged output was written";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Equivalence, SameBytesAsOfstream, ::testing::ValuesIn(configurations),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
