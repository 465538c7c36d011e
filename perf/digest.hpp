// A fingerprint of a byte stream, to check that every writer left the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "workloads.hpp"

namespace perf {

// Size and a 64-bit hash of a byte stream. The hash runs over 8-byte words, so it does not depend
// on how the stream is cut into update() calls.
class digest {
 public:
  void update(const char* data, std::size_t size) noexcept {
    size_ += size;
    while (size > 0 && pending_size_ != 0) {
      add_pending(*data++);
      --size;
    }
    for (; size >= 8; data += 8, size -= 8) {
      std::uint64_t word;
      std::memcpy(&word, data, 8);
      mix(word);
    }
    while (size-- > 0) add_pending(*data++);
  }

  // The hash of everything so far (a partial last word included).
  std::uint64_t value() const noexcept {
    std::uint64_t hash = hash_;
    if (pending_size_ != 0) hash = (hash ^ pending_) * prime;
    return (hash ^ size_) * prime;
  }
  std::uint64_t size() const noexcept { return size_; }

  bool operator==(const digest& other) const noexcept {
    return size_ == other.size_ && value() == other.value();
  }

 private:
  static constexpr std::uint64_t prime = 0x100000001b3;

  void mix(std::uint64_t word) noexcept { hash_ = (hash_ ^ word) * prime + (hash_ >> 29); }
  void add_pending(char c) noexcept {
    pending_ |= std::uint64_t{static_cast<unsigned char>(c)} << (8 * pending_size_);
    if (++pending_size_ == 8) {
      mix(pending_);
      pending_ = 0;
      pending_size_ = 0;
    }
  }

  std::uint64_t hash_ = 0xcbf29ce484222325;
  std::uint64_t size_ = 0;
  std::uint64_t pending_ = 0;
  unsigned pending_size_ = 0;
};

// The digest of what the workload should produce, by formatting it with std::to_chars.
digest expected_digest(const workload& work);
// expected_digest's, except that the numbers workloads' doubles are fmt's "{}" (its shortest round
// trip) instead of %g: what print with "{}" writes.
digest shortest_digest(const workload& work);
// The digest of a file's bytes, after those `before` took in; throws std::system_error when it
// cannot be read.
digest file_digest(const std::string& path, digest before = {});

}  // namespace perf
