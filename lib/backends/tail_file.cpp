// The tail file's making by its writer, its removal at a clean close, and the copy a forked child
// makes its own.
#include "backends/tail_file.hpp"

#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <mutex>
#include <new>

#include "mapping/mappable.hpp"
#include "mapping/pages.hpp"

namespace mapout::detail {
namespace {

constexpr char tail_suffix[] = ".mapout-tail";

// The tails mapped in this process, locked around a fork so that the child finds the list whole.
std::mutex tails_lock;
tail_file* tails = nullptr;

bool same_inode(const struct stat& a, const struct stat& b) noexcept {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

}  // namespace

bool tail_location(const char* path, std::string& directory, std::string& name) {
  const std::string whole = path;
  const std::size_t slash = whole.rfind('/');
  directory = slash == std::string::npos ? "." : whole.substr(0, slash == 0 ? 1 : slash);
  const std::string base = slash == std::string::npos ? whole : whole.substr(slash + 1);
  name = "." + base + tail_suffix;
  return !base.empty() && name.size() <= NAME_MAX;
}

tail_file::tail_file(descriptor directory, std::string name, descriptor fd) noexcept
    : directory_(std::move(directory)),
      name_(std::move(name)),
      fd_(std::move(fd)),
      creator_(::getpid()) {}

std::unique_ptr<tail_file> tail_file::create(const char* path, int output, std::size_t capacity,
                                             std::uint32_t flags, std::uint64_t offset,
                                             std::uint64_t size) noexcept {
  struct stat target;
  if (sys().fstat(output, &target) != 0) return nullptr;
  std::unique_ptr<tail_file> tail;
  try {
    std::string directory;
    std::string name;
    if (!tail_location(path, directory, name)) return nullptr;
    descriptor opened_directory(retry_on_eintr(sys().open, directory.c_str(),
                                               O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode_t{0}));
    if (!opened_directory) return nullptr;
    // O_EXCL never follows a link, and fails where the name is taken: by a live writer's tail,
    // or one a recovery left.
    descriptor fd(retry_on_eintr(sys().openat, opened_directory.get(), name.c_str(),
                                 O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC,
                                 mode_t{0600}));
    if (!fd) return nullptr;
    tail.reset(new tail_file(std::move(opened_directory), std::move(name), std::move(fd)));
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
  const int fd = tail->fd_.get();
  if (platform::lock_range(fd, platform::lock_kind::exclusive, writer_alive, false) != 0) {
    // A recovery that opened the name first removes the file, which holds no magic yet.
    if (errno != EAGAIN && errno != EACCES) tail->unlink_name();
    return nullptr;
  }
  // Or removed it already: a tail without a name would keep nothing.
  if (!tail->named()) return nullptr;
  // Whatever the umask took: a recovery as this user opens it for reading and writing.
  if (sys().fchmod(fd, 0600) != 0) {
    tail->unlink_name();
    return nullptr;
  }
  const std::uint64_t buffer_at = page_size();
  const std::uint64_t length = buffer_at + page_ceiling(capacity);
  // A store into a page the disk has no room for would be a SIGBUS, and pages reach a network
  // file system late.
  const error_cause reserved = platform::reserve(fd, 0, length);
  if (!mappable(fd) ||
      (reserved && (reserved.error != ENOTSUP ||
                    retry_on_eintr(sys().ftruncate, fd, static_cast<off_t>(length)) != 0))) {
    tail->unlink_name();
    return nullptr;
  }
  void* map = sys().mmap(nullptr, static_cast<std::size_t>(length), PROT_READ | PROT_WRITE,
                         MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) {
    tail->unlink_name();
    return nullptr;
  }
  tail->map_ = static_cast<char*>(map);
  tail->map_length_ = static_cast<std::size_t>(length);
  if (!tail->enlist()) {
    tail->unlink_name();
    return nullptr;
  }
  platform::populate_for_writing(map, tail->map_length_);
  tail->header_ = static_cast<tail_header*>(map);
  tail->buffer_ = tail->map_ + buffer_at;
  tail_header& header = *tail->header_;
  header.version = tail_header::current_version;
  header.flags = flags;
  header.device = static_cast<std::uint64_t>(target.st_dev);
  header.inode = static_cast<std::uint64_t>(target.st_ino);
  header.buffer_at = buffer_at;
  header.capacity = capacity;
  header.offset = offset;
  header.size = size;
  header.magic = tail_header::magic_value;
  return tail;
}

tail_file::~tail_file() {
  unmap();
}

void tail_file::unmap() noexcept {
  if (!map_) return;
  delist();
  sys().munmap(map_, map_length_);
  map_ = nullptr;
}

bool tail_file::enlist() noexcept {
  static const bool installed =
      platform::at_fork([] { tails_lock.lock(); }, [] { tails_lock.unlock(); },
                        [] {
                          make_copies_private();
                          tails_lock.unlock();
                        });
  if (!installed) return false;
  const std::lock_guard<std::mutex> hold(tails_lock);
  next_ = tails;
  if (tails) tails->previous_ = this;
  tails = this;
  return true;
}

void tail_file::delist() noexcept {
  const std::lock_guard<std::mutex> hold(tails_lock);
  (previous_ ? previous_->next_ : tails) = next_;
  if (next_) next_->previous_ = previous_;
  previous_ = next_ = nullptr;
}

void tail_file::make_copies_private() noexcept {
  for (tail_file* tail = tails; tail; tail = tail->next_) {
    const std::size_t length = tail->map_length_;
    void* copy =
        sys().mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (copy == MAP_FAILED) continue;
    std::memcpy(copy, tail->map_, length);
    if (sys().mmap(tail->map_, length, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
      std::memcpy(tail->map_, copy, length);
    }
    sys().munmap(copy, length);
  }
}

void tail_file::start_over(std::uint64_t offset, std::uint64_t size, std::size_t used) noexcept {
  if (header_->flags & tail_header::whole_buffer) std::memset(buffer_, 0, used);
  header_->offset = offset;
  header_->size = size;
  header_->committed = 0;
  header_->writing = 0;
}

void tail_file::remove() noexcept {
  unlink_name();
  unmap();
  fd_.close();
}

bool tail_file::named() const noexcept {
  struct stat named;
  struct stat own;
  return sys().fstatat(directory_.get(), name_.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
         sys().fstat(fd_.get(), &own) == 0 && same_inode(named, own);
}

void tail_file::unlink_name() noexcept {
  if (::getpid() == creator_ && named()) sys().unlinkat(directory_.get(), name_.c_str(), 0);
}

}  // namespace mapout::detail
