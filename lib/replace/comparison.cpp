// Comparing an output with the old file as it is written, with pread(2): a mapping of a file that
// another program may truncate could raise SIGBUS on a read.
#include "replace/comparison.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <new>

namespace mapout::detail {
namespace {

// The old file is read this much at a time.
constexpr std::size_t scratch_size = std::size_t{64} << 10;
// Differing bytes, and stretches of them, kept track of in case later writes make them equal
// again (a header patched after the body, a table rewritten). Past either the output counts as
// changed for good and comparing stops, so that an output that differs early costs a plain
// write and a read of 64 KiB or so of the old file.
constexpr std::uint64_t most_differing_bytes = std::uint64_t{64} << 10;
constexpr std::size_t most_differing_stretches = 4096;

const char zeros[4096] = {};

}  // namespace

void comparison::create(const char* path, const struct stat& expected,
                        std::unique_ptr<comparison>& out) noexcept {
  out.reset(new (std::nothrow) comparison);
  if (!out) return;
  out->old_ =
      descriptor(retry_on_eintr(sys().open, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC, mode_t{0}));
  out->scratch_.reset(new (std::nothrow) char[scratch_size]);
  struct stat st;
  if (!out->old_ || !out->scratch_ || sys().fstat(out->old_.get(), &st) != 0 ||
      st.st_dev != expected.st_dev || st.st_ino != expected.st_ino) {
    out.reset();
    return;
  }
  out->old_size_ = static_cast<std::uint64_t>(st.st_size);
}

void comparison::give_up() noexcept {
  comparing_ = false;
  differing_.clear();
  differing_bytes_ = 0;
  old_.close();
  scratch_.reset();
}

void comparison::written(std::uint64_t offset, const char* data, std::size_t size) noexcept {
  if (!comparing_ || size == 0) return;
  // The output ends at its highest byte written, so it is longer than the old file for good.
  if (offset + size > old_size_) return give_up();
  if (offset > high_water_) compare_zeros(high_water_, offset);
  high_water_ = std::max(high_water_, offset + size);
  compare(offset, data, size);
}

void comparison::compare_zeros(std::uint64_t from, std::uint64_t to) noexcept {
  while (comparing_ && from < to) {
    const auto size = static_cast<std::size_t>(std::min<std::uint64_t>(to - from, sizeof zeros));
    compare(from, zeros, size);
    from += size;
  }
}

void comparison::compare(std::uint64_t offset, const char* data, std::size_t size) noexcept {
  try {
    forget(offset, offset + size);
    while (comparing_ && size > 0) {
      const std::size_t chunk = std::min(size, scratch_size);
      std::size_t read = 0;
      while (read < chunk) {
        const ssize_t got = retry_on_eintr(sys().pread, old_.get(), scratch_.get() + read,
                                           chunk - read, static_cast<off_t>(offset + read));
        // An old file that cannot be read, or shrank, has to be replaced.
        if (got <= 0) return give_up();
        read += static_cast<std::size_t>(got);
      }
      if (std::memcmp(scratch_.get(), data, chunk) != 0) {
        for (std::size_t i = 0; i < chunk;) {
          if (scratch_[i] == data[i]) {
            ++i;
            continue;
          }
          const std::size_t first = i;
          while (i < chunk && scratch_[i] != data[i]) ++i;
          remember(offset + first, offset + i);
          if (differing_bytes_ > most_differing_bytes ||
              differing_.size() > most_differing_stretches) {
            return give_up();
          }
        }
      }
      offset += chunk;
      data += chunk;
      size -= chunk;
    }
  } catch (const std::bad_alloc&) {
    give_up();
  }
}

void comparison::forget(std::uint64_t from, std::uint64_t to) {
  auto next = differing_.lower_bound(from);
  if (next != differing_.begin()) {
    const auto before = std::prev(next);
    const std::uint64_t end = before->second;
    if (end > from) {
      before->second = from;
      differing_bytes_ -= end - from;
      if (end > to) {
        remember(to, end);
        return;
      }
    }
  }
  while (next != differing_.end() && next->first < to) {
    const std::uint64_t begin = next->first;
    const std::uint64_t end = next->second;
    differing_bytes_ -= end - begin;
    next = differing_.erase(next);
    if (end > to) {
      remember(to, end);
      return;
    }
  }
}

void comparison::remember(std::uint64_t from, std::uint64_t to) {
  differing_.emplace(from, to);
  differing_bytes_ += to - from;
}

bool comparison::unchanged(std::uint64_t size) noexcept {
  if (!comparing_ || size != old_size_) return false;
  if (size > high_water_) compare_zeros(high_water_, size);
  high_water_ = std::max(high_water_, size);
  return comparing_ && differing_.empty();
}

}  // namespace mapout::detail
