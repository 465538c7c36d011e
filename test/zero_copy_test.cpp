// The window of an open mapout::ostream borrowed by a zero-copy writer: an adapter shaped as
// Protocol Buffers' ZeroCopyOutputStream (Next, BackUp, ByteCount) over mapout::cursor's next()
// and back_up(), driven as its coded writers drive it, against std::ostringstream on every
// strategy; and back_up()'s rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

#include "mapout/cursor.hpp"
#include "mapout/ostream.hpp"
#include "mapout/streambuf.hpp"
#include "random_sequences.hpp"
#include "strategies.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::pick;
using mapout::test::read_file;
using mapout::test::temp_dir;

// Protocol Buffers' interface, as an adapter implements it.
class zero_copy_output_stream {
 public:
  virtual ~zero_copy_output_stream() = default;
  virtual bool Next(void** data, int* size) = 0;
  virtual void BackUp(int count) = 0;
  virtual std::int64_t ByteCount() const = 0;
};

// The adapter docs/api.md shows: a cursor kept as a member borrows the stream's window until the
// adapter goes.
class ostream_output final : public zero_copy_output_stream {
 public:
  explicit ostream_output(mapout::ostream& out) : cursor_(out) {}

  bool Next(void** data, int* size) override {
    const mapout::window memory = cursor_.next();
    if (memory.begin == memory.end) return false;
    const auto size_handed = static_cast<std::size_t>(memory.end - memory.begin);
    const std::size_t handed = std::min<std::size_t>(size_handed, INT_MAX);
    cursor_.back_up(size_handed - handed);
    *data = memory.begin;
    *size = static_cast<int>(handed);
    byte_count_ += static_cast<std::int64_t>(handed);
    return true;
  }
  void BackUp(int count) override {
    cursor_.back_up(static_cast<std::size_t>(count));
    byte_count_ -= count;
  }
  std::int64_t ByteCount() const override { return byte_count_; }

 private:
  mapout::cursor cursor_;
  std::int64_t byte_count_ = 0;
};

// A coded writer as Protocol Buffers' drive the interface: bytes copied into each buffer Next()
// hands out, of which it uses a random part and backs up the rest; what is left at the end is
// backed up too.
class coded_writer {
 public:
  coded_writer(zero_copy_output_stream& out, std::mt19937& random) : out_(out), random_(random) {}
  coded_writer(const coded_writer&) = delete;
  coded_writer& operator=(const coded_writer&) = delete;
  ~coded_writer() { give_back_unused(); }

  void varint(std::uint64_t value) {
    char bytes[10];
    std::size_t size = 0;
    do {
      bytes[size++] = static_cast<char>((value & 0x7f) | (value > 0x7f ? 0x80 : 0));
      value >>= 7;
    } while (value != 0);
    write(bytes, size);
  }
  void write(const char* data, std::size_t size) {
    while (size > 0) {
      if (left_ == 0 && !refresh()) return;
      const std::size_t part = std::min(size, left_);
      std::memcpy(at_, data, part);
      at_ += part;
      left_ -= part;
      data += part;
      size -= part;
    }
  }
  // Backs up what it did not fill: the part's rest and the tail.
  void give_back_unused() {
    out_.BackUp(static_cast<int>(left_ + unused_));
    written_ -= static_cast<std::int64_t>(left_);
    unused_ = 0;
    left_ = 0;
  }
  // What it wrote, which ByteCount() must say.
  std::int64_t written() const { return written_; }

 private:
  // The next buffer: only a random part of it is used, the rest backed up when the part is full.
  bool refresh() {
    give_back_unused();
    void* data = nullptr;
    int size = 0;
    if (!out_.Next(&data, &size)) return false;
    at_ = static_cast<char*>(data);
    left_ = static_cast<std::size_t>(size);
    if (size > 0 && pick(random_, 0, 2) == 0) {
      left_ = static_cast<std::size_t>(pick(random_, 1, size));
    }
    unused_ = static_cast<std::size_t>(size) - left_;
    written_ += static_cast<std::int64_t>(left_);
    return true;
  }

  zero_copy_output_stream& out_;
  std::mt19937& random_;
  char* at_ = nullptr;
  std::size_t left_ = 0;    // the part of the buffer still to fill
  std::size_t unused_ = 0;  // the buffer's tail past that part, to back up
  std::int64_t written_ = 0;
};

std::string random_bytes(std::mt19937& random) {
  const int length = pick(random, 0, 3) == 0 ? pick(random, 0, 5000) : pick(random, 0, 40);
  std::string bytes(static_cast<std::size_t>(length), '\0');
  for (char& c : bytes) c = static_cast<char>(pick(random, 0, 255));
  return bytes;
}

void append_varint(std::string& to, std::uint64_t value) {
  do {
    to += static_cast<char>((value & 0x7f) | (value > 0x7f ? 0x80 : 0));
    value >>= 7;
  } while (value != 0);
}

TEST(ZeroCopy, LengthDelimitedRecordsBetweenStreamWritesMatchOstringstream) {
  temp_dir dir;
  mapout::test::for_random_sequences(
      dir, 200, [](mapout::ostream& out, std::ostringstream& reference, std::mt19937& random) {
        for (int session = pick(random, 1, 6); session > 0; --session) {
          const int number = pick(random, -5, 5000);
          const std::string before = random_bytes(random);
          out << number << before;
          reference << number << before;
          const std::int64_t start = out.tellp();
          std::string records;
          std::int64_t byte_count = 0;
          {
            ostream_output adapter(out);
            coded_writer writer(adapter, random);
            for (int record = pick(random, 0, 30); record > 0; --record) {
              const std::string bytes = random_bytes(random);
              writer.varint(bytes.size());
              writer.write(bytes.data(), bytes.size());
              append_varint(records, bytes.size());
              records += bytes;
            }
            writer.give_back_unused();
            EXPECT_EQ(adapter.ByteCount(), writer.written());
            byte_count = adapter.ByteCount();
          }
          reference << records;
          ASSERT_TRUE(out.good());
          EXPECT_EQ(byte_count, static_cast<std::int64_t>(records.size()));
          if (start >= 0) {
            EXPECT_EQ(static_cast<std::int64_t>(out.tellp()), start + byte_count);
          }
        }
        const std::string after = random_bytes(random);
        out << after << '\n';
        reference << after << '\n';
      });
}

// The tail given back is not in the file: the bytes that follow are written over it.
TEST(ZeroCopy, BackedUpTailIsNotWritten) {
  for (const auto& which : mapout::test::window_cases()) {
    SCOPED_TRACE(which.name);
    temp_dir dir;
    mapout::ostream out(dir / "out", std::ios::out, which.opts);
    out << "head:";
    {
      mapout::cursor put(out);
      const mapout::window memory = put.next();
      ASSERT_NE(memory.begin, memory.end);
      const auto size = static_cast<std::size_t>(memory.end - memory.begin);
      memory.begin[0] = '1';
      put.back_up(size - 1);
      if (size > 1) {
        // The memory given back is handed out again, right after the byte kept.
        const mapout::window again = put.next();
        ASSERT_EQ(again.begin, memory.begin + 1);
        ASSERT_EQ(again.end, memory.end);
        put.back_up(size - 1);
      }
    }
    out << ":tail";
    out.close();
    ASSERT_TRUE(out.good()) << out.error_message();
    EXPECT_EQ(read_file(dir / "out"), "head:1:tail");
  }
}

// back_up() goes no further back than the memory the last next() handed out: not over it, and not
// over a byte stored after it.
TEST(ZeroCopy, BackUpPastTheMemoryHandedOutThrows) {
  for (const auto& which : mapout::test::strategies()) {
    SCOPED_TRACE(which.name);
    temp_dir dir;
    mapout::streambuf buf;
    ASSERT_NE(buf.open(dir / "out", std::ios::out, which.opts), nullptr);
    std::size_t size = 0;
    {
      mapout::cursor put(buf);
      EXPECT_THROW(put.back_up(1), std::logic_error);
      const mapout::window memory = put.next();
      size = static_cast<std::size_t>(memory.end - memory.begin);
      std::memset(memory.begin, 'a', size);
      EXPECT_THROW(put.back_up(size + 1), std::logic_error);
      put.back_up(0);
      put.put('b');
      EXPECT_THROW(put.back_up(1), std::logic_error);
      put.back_up(0);
    }
    ASSERT_NE(buf.close(), nullptr);
    EXPECT_EQ(read_file(dir / "out"), std::string(size, 'a') + "b");
  }
}

// A stream that is not good hands out nothing, as it receives nothing from put().
TEST(ZeroCopy, StreamThatIsNotGoodHandsOutNothing) {
  temp_dir dir;
  mapout::ostream out(dir / "out");
  out << "kept";
  out.setstate(std::ios::failbit);
  {
    ostream_output adapter(out);
    void* data = nullptr;
    int size = -1;
    EXPECT_FALSE(adapter.Next(&data, &size));
    EXPECT_EQ(adapter.ByteCount(), 0);
  }
  out.clear();
  out.close();
  EXPECT_EQ(read_file(dir / "out"), "kept");
}

}  // namespace
