// The limit for random: one MAP_SHARED mapping of the whole file, plain stores, munmap, the ten
// lines a user writes by hand for an index or a hash table laid out in a file.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "writers.hpp"

namespace perf {
namespace {

class whole_mapping_sink {
 public:
  explicit whole_mapping_sink(const std::string& path)
      : path_(path), fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) {
    if (fd_ < 0) throw_errno("open", path);
  }
  whole_mapping_sink(const whole_mapping_sink&) = delete;
  whole_mapping_sink& operator=(const whole_mapping_sink&) = delete;
  ~whole_mapping_sink() {
    if (map_) ::munmap(map_, length_);
    if (fd_ >= 0) ::close(fd_);
  }

  // Only random runs here; the stream calls exist because emit() names them all.
  void byte(char c) { block(&c, 1); }
  void token(std::string_view text) { block(text.data(), text.size()); }
  void line(std::uint32_t i, std::uint32_t) {
    char text[max_line_size];
    block(text, static_cast<std::size_t>(format_line(text, i) - text));
  }
  void block(const char* data, std::size_t size) {
    if (at_ + size > length_) grow(at_ + size);
    copy_bytes(map_ + at_, data, size);
    at_ += size;
  }
  std::uint64_t tell() const { return at_; }
  void seek(std::uint64_t offset) { at_ = offset; }
  void write_at(std::uint64_t offset, const char* data, std::size_t size) {
    const std::uint64_t end = at_;
    at_ = offset;
    block(data, size);
    at_ = end;
  }
  void close() {
    if (::munmap(map_, length_) != 0) throw_errno("munmap", path_);
    map_ = nullptr;
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throw_errno("close", path_);
  }

 private:
  // The layout's one store past the end sizes the file and maps all of it.
  void grow(std::uint64_t length) {
    if (map_ && ::munmap(map_, length_) != 0) throw_errno("munmap", path_);
    map_ = nullptr;
    if (::ftruncate(fd_, static_cast<off_t>(length)) != 0) throw_errno("ftruncate", path_);
    void* const map = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    if (map == MAP_FAILED) throw_errno("mmap", path_);
    map_ = static_cast<char*>(map);
    length_ = length;
  }

  std::string path_;
  int fd_;
  char* map_ = nullptr;
  std::size_t length_ = 0;
  std::uint64_t at_ = 0;
};

}  // namespace

void add_mmap_writers(std::vector<writer>& list) {
  writer whole;
  whole.id = "mmap";
  whole.label = "mmap of the whole file";
  whole.apis = apis_for({workload_kind::random_16, workload_kind::random_64}, "store");
  whole.run = run_sink<whole_mapping_sink>;
  list.push_back(whole);
}

}  // namespace perf
