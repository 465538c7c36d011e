// mapout's C API (include/mapout/mapout.h) over mapout::output_file.
#include "mapout/mapout.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <new>
#include <string>
#include <system_error>

#include "base/error_text.hpp"
#include "c/c_handle.hpp"
#include "mapout/output_file.hpp"
#include "platform/platform.hpp"
#include "platform/sys.hpp"

namespace mapout::detail {
namespace {

// An empty window points both ends at the handle itself rather than at null: end - put is then
// defined in C, and memcpy never sees a null pointer.
char* empty_window(c_handle& h) noexcept {
  return reinterpret_cast<char*>(static_cast<mapout_file*>(&h));
}

// Keeps the first failure's message. The file describes its own sticky failures; a failed seek
// or tell, which is not sticky, is described here.
void remember(c_handle& h, std::error_code ec, const char* operation) noexcept {
  if (!h.first_error.empty()) return;
  try {
    h.first_error = h.file.error() == ec
                        ? h.file.error_message()
                        : mapout::detail::error_text(operation, h.file.path(), ec.message());
  } catch (const std::bad_alloc&) {
    // The message is lost; errno still says what failed.
  }
}

}  // namespace

// The cursor, or the file's own window when the inline functions were shown an empty one.
mapout::window view_of(c_handle& h) noexcept {
  return h.put == empty_window(h) ? h.file.current() : mapout::window{h.put, h.end};
}

// An empty window once writing has failed, so that every later write reaches the library and
// fails there too.
void show_window(c_handle& h, const mapout::window& window) noexcept {
  if (h.file.error() || window.begin == nullptr) {
    h.put = h.end = empty_window(h);
  } else {
    h.put = window.begin;
    h.end = window.end;
  }
}

int errno_of(std::error_code ec) noexcept {
  const bool is_errno = ec.category() == std::generic_category() ||
                        ec.category() == std::system_category() ||
                        ec.category() == mapout::detail::errno_category();
  return is_errno ? ec.value() : EIO;
}

int fail(c_handle& h, std::error_code ec, const char* operation) noexcept {
  remember(h, ec, operation);
  errno = errno_of(ec);
  return -1;
}

int fail(c_handle& h, std::errc code, const char* operation) noexcept {
  return fail(h, std::make_error_code(code), operation);
}

bool to_options(const mapout_options& from, mapout::options& to) noexcept {
  if (from.strategy < MAPOUT_AUTOMATIC || from.strategy > MAPOUT_BUFFERED) return false;
  if (from.extension < MAPOUT_EXTEND_AHEAD || from.extension > MAPOUT_EXTEND_ON_SIGBUS) {
    return false;
  }
  if (from.publish_every_ms < 0) return false;
  to.mapping_size = from.mapping_size;
  to.buffer_size = from.buffer_size;
  to.strategy = static_cast<mapout::strategy>(from.strategy);
  to.extension = static_cast<mapout::extension>(from.extension);
  to.guard_faults = from.guard_truncation != 0;
  to.atomic = from.atomic != 0;
  to.write_if_changed = from.write_if_changed != 0;
  to.durable = from.durable != 0;
  to.flush_publishes = from.flush_publishes != 0;
  to.crash_safe = from.crash_safe != 0;
  to.publish_every = std::chrono::milliseconds(from.publish_every_ms);
  return true;
}

mapout_file* hand_out(c_handle* h) noexcept {
  show_window(*h, h->file.current());
  list_open(*h);
  return h;
}

namespace {

// Makes one of output_file's calls that take only the window: 0, or -1 with errno set.
int with_window(c_handle& h, const char* operation,
                std::error_code (mapout::output_file::*call)(mapout::window&)) {
  mapout::window view = view_of(h);
  const std::error_code ec = (h.file.*call)(view);
  show_window(h, view);
  return ec ? fail(h, ec, operation) : 0;
}

// A call given no file: stdio's calls crash there; mapout's, off the inline path, refuse.
int no_file() noexcept {
  errno = EINVAL;
  return -1;
}

// Closes or discards, and frees, even on failure.
int end_with(c_handle& h, std::error_code (mapout::output_file::*call)(mapout::window&)) {
  unlist_open(h);
  mapout::window view = view_of(h);
  const std::error_code ec = (h.file.*call)(view);
  delete &h;
  if (!ec) return 0;
  errno = errno_of(ec);
  return -1;
}

struct open_request {
  std::ios_base::openmode mode{};
  bool exclusive = false;  // "x" after "w" or "a": the file must not exist
  bool replace = false;    // atomic or write_if_changed: nothing is truncated before close
};

// The mode as the C library's fopen reads it (platform.hpp), false where that fails; and false
// for reading only ("r", or glibc's "rw", which it reads as "r"): mapout only writes; and for a
// character set other than UTF-8, which mapout would have to convert to.
bool parse_mode(const char* mode, open_request& request) noexcept {
  using std::ios_base;
  platform::open_mode_letters letters;
  if (!platform::read_open_mode(mode, false, letters) || !letters.bytes) return false;
  // O_EXCL without O_CREAT, as "r+x" gives, is ignored by the kernel.
  request.exclusive = letters.exclusive && letters.access != 'r';
  const ios_base::openmode read = letters.update ? ios_base::in : ios_base::openmode{};
  switch (letters.access) {
    case 'w':
      request.mode = ios_base::out | ios_base::trunc | read;
      return true;
    case 'a':
      request.mode = ios_base::out | ios_base::app | read;
      return true;
    default:
      request.mode = ios_base::out | ios_base::in;
      return letters.update;
  }
}

// "x": creates the file with O_EXCL, then opens it without truncating it (a file another process
// put there in between must keep its bytes; a replacement truncates nothing before close), and
// checks that it is still the file created, since output_file has no exclusive mode of its own.
// A failed open removes the file it created.
std::error_code open_exclusive(c_handle& h, const char* path, const open_request& request,
                               const mapout::options& opts) {
  using mapout::detail::sys;
  const int fd = sys().open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return {errno, std::generic_category()};
  struct stat created;
  const bool known = sys().fstat(fd, &created) == 0;
  const int saved_errno = errno;
  sys().close(fd);
  if (!known) return {saved_errno, std::generic_category()};
  const bool truncates = (request.mode & std::ios_base::trunc) != 0;
  const std::ios_base::openmode mode =
      truncates && !request.replace ? std::ios_base::out | std::ios_base::in : request.mode;
  std::error_code ec = h.file.open(path, mode, opts);
  struct stat opened;
  // A replacement's descriptor is its temporary: the path tells what it replaces.
  const int found =
      request.replace ? sys().stat(path, &opened) : sys().fstat(h.file.native_handle(), &opened);
  if (!ec && (found != 0 || opened.st_dev != created.st_dev || opened.st_ino != created.st_ino)) {
    // Replaced in between by another process: leave its file as it is.
    mapout::window view = h.file.current();
    h.file.discard(view);
    return std::make_error_code(std::errc::file_exists);
  }
  struct stat now;
  if (ec && sys().stat(path, &now) == 0 && now.st_dev == created.st_dev &&
      now.st_ino == created.st_ino) {
    sys().unlinkat(AT_FDCWD, path, 0);
  }
  return ec;
}

}  // namespace
}  // namespace mapout::detail

using mapout::detail::c_handle;
using mapout::detail::fail;
using mapout::detail::handle_of;
using mapout::detail::show_window;
using mapout::detail::view_of;
using mapout::detail::with_window;

extern "C" {

void mapout_options_init(mapout_options* options) {
  if (options == nullptr) return;
  const mapout::options defaults;
  options->mapping_size = defaults.mapping_size;
  options->buffer_size = defaults.buffer_size;
  options->strategy = static_cast<int>(defaults.strategy);
  options->extension = static_cast<int>(defaults.extension);
  options->guard_truncation = defaults.guard_faults ? 1 : 0;
  options->atomic = defaults.atomic ? 1 : 0;
  options->write_if_changed = defaults.write_if_changed ? 1 : 0;
  options->durable = defaults.durable ? 1 : 0;
  options->flush_publishes = defaults.flush_publishes ? 1 : 0;
  options->crash_safe = defaults.crash_safe ? 1 : 0;
  options->publish_every_ms = static_cast<long>(defaults.publish_every.count());
}

mapout_file* mapout_open(const char* path, const char* mode, const mapout_options* options) {
  mapout::detail::open_request request;
  mapout::options opts;
  if (path == nullptr || mode == nullptr || !mapout::detail::parse_mode(mode, request) ||
      (options != nullptr && !mapout::detail::to_options(*options, opts))) {
    errno = EINVAL;
    return nullptr;
  }
  auto* h = new (std::nothrow) c_handle;
  if (h == nullptr) {
    errno = ENOMEM;
    return nullptr;
  }
  request.replace = opts.atomic || opts.write_if_changed;
  // A successful open leaves errno as it was, as fopen does.
  const int saved_errno = errno;
  std::error_code ec;
  try {
    ec = request.exclusive ? mapout::detail::open_exclusive(*h, path, request, opts)
                           : h->file.open(path, request.mode, opts);
  } catch (const std::bad_alloc&) {
    ec = std::make_error_code(std::errc::not_enough_memory);
  }
  if (ec) {
    delete h;
    errno = mapout::detail::errno_of(ec);
    return nullptr;
  }
  errno = saved_errno;
  return mapout::detail::hand_out(h);
}

int mapout_putc_slow(int c, mapout_file* file) {
  c_handle& h = handle_of(file);
  mapout::window view = view_of(h);
  const std::error_code ec = h.file.make_room(view, 1);
  show_window(h, view);
  if (ec) return fail(h, ec, "write");
  *h.put++ = static_cast<char>(c);
  return static_cast<unsigned char>(c);
}

size_t mapout_write_slow(const void* data, size_t size, size_t count, mapout_file* file) {
  c_handle& h = handle_of(file);
  size_t bytes = 0;
  if (__builtin_mul_overflow(size, count, &bytes)) {
    fail(h, std::errc::value_too_large, "write");
    return 0;
  }
  if (bytes == 0) return 0;
  mapout::window view = view_of(h);
  const std::error_code ec = h.file.write(view, static_cast<const char*>(data), bytes);
  show_window(h, view);
  if (ec) {
    fail(h, ec, "write");
    return 0;
  }
  return count;
}

int mapout_seek(mapout_file* file, int64_t offset, int whence) {
  if (file == nullptr) return mapout::detail::no_file();
  c_handle& h = handle_of(file);
  std::ios_base::seekdir dir;
  switch (whence) {
    case SEEK_SET:
      dir = std::ios_base::beg;
      break;
    case SEEK_CUR:
      dir = std::ios_base::cur;
      break;
    case SEEK_END:
      dir = std::ios_base::end;
      break;
    default:
      return fail(h, std::errc::invalid_argument, "seek");
  }
  std::error_code ec;
  mapout::window view = view_of(h);
  h.file.seek(view, offset, dir, ec);
  show_window(h, view);
  return ec ? fail(h, ec, "seek") : 0;
}

int64_t mapout_tell(mapout_file* file) {
  if (file == nullptr) return mapout::detail::no_file();
  c_handle& h = handle_of(file);
  const std::int64_t position = h.file.tell(view_of(h));
  return position >= 0 ? position : fail(h, std::errc::invalid_seek, "tell");
}

int mapout_flush(mapout_file* file) {
  if (file == nullptr) return mapout::detail::flush_every_open_file();
  return with_window(handle_of(file), "flush", &mapout::output_file::flush);
}

int mapout_publish(mapout_file* file) {
  if (file == nullptr) return mapout::detail::no_file();
  return with_window(handle_of(file), "publish", &mapout::output_file::publish);
}

int mapout_persist(mapout_file* file) {
  if (file == nullptr) return mapout::detail::no_file();
  return with_window(handle_of(file), "persist", &mapout::output_file::persist);
}

int mapout_close(mapout_file* file) {
  if (file == nullptr) return mapout::detail::no_file();
  return mapout::detail::end_with(handle_of(file), &mapout::output_file::close);
}

int mapout_discard(mapout_file* file) {
  if (file == nullptr) return mapout::detail::no_file();
  return mapout::detail::end_with(handle_of(file), &mapout::output_file::discard);
}

int mapout_recover(const char* path) {
  if (path == nullptr) return mapout::detail::no_file();
  if (const std::error_code ec = mapout::recover(path)) {
    errno = ec.value();
    return -1;
  }
  return 0;
}

const char* mapout_error(mapout_file* file) {
  if (file == nullptr) return "";
  c_handle& h = handle_of(file);
  // A failure the file found on its own (a fault the SIGBUS handler turned into an error).
  if (h.file.error()) mapout::detail::remember(h, h.file.error(), "write");
  return h.first_error.c_str();
}

int mapout_fileno(mapout_file* file) {
  const int fd = file == nullptr ? -1 : handle_of(file).file.native_handle();
  if (fd < 0) errno = EBADF;
  return fd;
}

}  // extern "C"
