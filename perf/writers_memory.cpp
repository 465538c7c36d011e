// The ceiling: the same bytes stored into memory that is already faulted in, with no file behind,
// each piece copied the fastest way we have (mapout's inline short copy), so that no writer into a
// file can pass it.
#include <sys/mman.h>
#include <mapout/detail/copy_short.hpp>

#include <algorithm>
#include <cstring>

#include "writers.hpp"

namespace perf {
namespace {

// The buffer lives in the child that runs the ceiling; prepare() maps it before timing starts.
char* buffer_begin = nullptr;
char* buffer_cursor = nullptr;

void prepare_buffer(const workload& work) {
  void* const memory = ::mmap(nullptr, work.bytes + max_line_size, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (memory == MAP_FAILED) throw_errno("mmap", "ceiling buffer");
  // MAP_POPULATE maps the zero page for reads only on some kernels: touch every page for writing.
  std::memset(memory, 0, work.bytes + max_line_size);
  buffer_begin = buffer_cursor = static_cast<char*>(memory);
}

class memory_sink {
 public:
  explicit memory_sink(const std::string&) : put_(buffer_begin) {}

  void byte(char c) { *put_++ = c; }
  void token(std::string_view text) {
    mapout::detail::copy_short(put_, text.data(), text.size());
    put_ += text.size();
  }
  void line(std::uint32_t i, std::uint32_t) { put_ = format_line(put_, i); }
  void block(const char* data, std::size_t size) {
    copy_bytes(put_, data, size);
    put_ += size;
  }
  std::uint64_t tell() const { return static_cast<std::uint64_t>(put_ - buffer_begin); }
  void seek(std::uint64_t offset) {
    high_water_ = std::max(high_water_, put_);
    put_ = buffer_begin + offset;
  }
  void write_at(std::uint64_t offset, const char* data, std::size_t size) {
    copy_bytes(buffer_begin + offset, data, size);
  }
  void close() { buffer_cursor = std::max(high_water_, put_); }

 private:
  char* put_;
  // The end of what was written before the last seek: scatter's last block need not be the end.
  char* high_water_ = buffer_begin;
};

digest buffer_digest() {
  digest result;
  result.update(buffer_begin, static_cast<std::size_t>(buffer_cursor - buffer_begin));
  return result;
}

}  // namespace

void add_memory_writers(std::vector<writer>& list) {
  writer ceiling;
  ceiling.id = "ceiling";
  ceiling.label = "ceiling (memory)";
  ceiling.apis = {"store",      "copy_short", "to_chars",   "copy_short", "copy_short",
                  "copy_short", "copy_short", "copy_short", "copy_short", "copy_short"};
  ceiling.prepare = prepare_buffer;
  ceiling.run = run_sink<memory_sink>;
  ceiling.memory_digest = buffer_digest;
  list.push_back(ceiling);
}

}  // namespace perf
