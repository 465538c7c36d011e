// A flat file of variable-length strings: the count, then count + 1 offsets, then all the bytes.
// Written with mapout::ostream (or stdio, to compare) and loaded three ways: element by element,
// with one copy and a pointer fix-up, and with no copy at all from a mapout::mapped_input.
//
//   uint64 count | uint64 offset[count + 1] | bytes
//
// offset[i] is where string i starts among the bytes, offset[count] is their total; integers are
// in the machine's byte order (this is a cache, not an exchange format).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <mapout/input.hpp>
#include <mapout/ostream.hpp>

namespace flat {

// The strings the example and perf/read write: `count` of 100 to 200 letters, the same each run.
inline std::vector<std::string> random_strings(std::size_t count) {
  std::mt19937 random(42);
  std::vector<std::string> strings(count);
  for (std::string& s : strings) {
    s.resize(100 + random() % 101);  // 150 bytes on average
    for (char& c : s) c = static_cast<char>('a' + random() % 26);
  }
  return strings;
}

// Writes the file through anything with write(const char*, size): offsets first, then the bytes,
// each in its own call, as a program that serializes element by element does.
template <typename Output>
void write_strings(Output& out, const std::vector<std::string>& strings) {
  const std::uint64_t count = strings.size();
  out.write(reinterpret_cast<const char*>(&count), sizeof count);
  std::uint64_t offset = 0;
  for (const std::string& s : strings) {
    out.write(reinterpret_cast<const char*>(&offset), sizeof offset);
    offset += s.size();
  }
  out.write(reinterpret_cast<const char*>(&offset), sizeof offset);
  for (const std::string& s : strings) out.write(s.data(), static_cast<std::streamsize>(s.size()));
}

// stdio behind the same write(), for write_strings; ferror and fclose report what failed.
struct stdio_output {
  std::FILE* file;
  void write(const char* data, std::size_t size) { ::fwrite_unlocked(data, 1, size, file); }
};

[[noreturn]] inline void fail(const std::string& what) {
  throw std::runtime_error("flat: " + what);
}

inline void read_exactly(std::FILE* file, void* into, std::size_t size) {
  if (::fread_unlocked(into, 1, size, file) != size) fail("short read");
}

// 1. Element by element: an fread and an allocation per string.
inline std::vector<std::string> load_each(const char* path) {
  std::FILE* file = std::fopen(path, "rb");
  if (!file) fail(std::string("cannot open ") + path);
  std::uint64_t count = 0;
  read_exactly(file, &count, sizeof count);
  std::vector<std::uint64_t> offsets(count + 1);
  read_exactly(file, offsets.data(), offsets.size() * sizeof(std::uint64_t));
  std::vector<std::string> strings(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    strings[i].resize(offsets[i + 1] - offsets[i]);
    read_exactly(file, strings[i].data(), strings[i].size());
  }
  std::fclose(file);
  return strings;
}

// 2. One copy: one fread of the whole file, then the offsets turned into pointers in place.
class copied_table {
 public:
  explicit copied_table(const char* path) {
    std::FILE* file = std::fopen(path, "rb");
    if (!file) fail(std::string("cannot open ") + path);
    std::fseek(file, 0, SEEK_END);
    const long size = std::ftell(file);
    std::fseek(file, 0, SEEK_SET);
    if (size < static_cast<long>(sizeof(std::uint64_t))) fail("too short");
    // Whole words: the header is read and rewritten as 64-bit values.
    bytes_.reset(new std::uint64_t[(static_cast<std::size_t>(size) + 7) / 8]);
    read_exactly(file, bytes_.get(), static_cast<std::size_t>(size));
    std::fclose(file);
    count_ = bytes_[0];
    const char* const data = reinterpret_cast<const char*>(bytes_.get() + 2 + count_);
    starts_ = reinterpret_cast<const char**>(bytes_.get() + 1);
    for (std::uint64_t i = 0; i <= count_; ++i) {
      std::uint64_t offset = 0;
      std::memcpy(&offset, &bytes_[1 + i], sizeof offset);
      starts_[i] = data + offset;
    }
  }
  std::size_t size() const { return count_; }
  std::string_view operator[](std::size_t i) const {
    return {starts_[i], static_cast<std::size_t>(starts_[i + 1] - starts_[i])};
  }

 private:
  std::unique_ptr<std::uint64_t[]> bytes_;
  std::uint64_t count_ = 0;
  const char** starts_ = nullptr;
};

// The strings of a flat file already in memory, without copying them.
class table_view {
 public:
  table_view() = default;
  explicit table_view(std::string_view bytes) {
    if (bytes.size() < sizeof(std::uint64_t)) fail("too short");
    const auto* words = reinterpret_cast<const std::uint64_t*>(bytes.data());
    count_ = words[0];
    if ((bytes.size() / sizeof(std::uint64_t)) < count_ + 2) fail("offsets cut short");
    offsets_ = words + 1;
    data_ = bytes.data() + (2 + count_) * sizeof(std::uint64_t);
    if (offsets_[count_] > bytes.size() - (2 + count_) * sizeof(std::uint64_t))
      fail("bytes cut short");
  }
  std::size_t size() const { return count_; }
  std::string_view operator[](std::size_t i) const {
    return {data_ + offsets_[i], static_cast<std::size_t>(offsets_[i + 1] - offsets_[i])};
  }

 private:
  std::uint64_t count_ = 0;
  const std::uint64_t* offsets_ = nullptr;
  const char* data_ = nullptr;
};

// 3. Zero copies: views straight into the mapping; nothing is read until a string is used.
class mapped_table {
 public:
  explicit mapped_table(const char* path) : input_(path), table_(input_.view()) {}
  std::size_t size() const { return table_.size(); }
  std::string_view operator[](std::size_t i) const { return table_[i]; }
  // EIO once another process truncated the file while it was mapped.
  std::error_code error() const { return input_.error(); }

 private:
  mapout::mapped_input input_;
  table_view table_;
};

}  // namespace flat
