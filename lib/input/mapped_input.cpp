// mapout::mapped_input: a read-only mapping of the whole file, guarded against truncation, or the
// bytes read into memory where the file cannot be mapped.
#include "mapout/input.hpp"

#include <sys/mman.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdint>
#include <new>

#include "base/error_text.hpp"
#include "input/input_access.hpp"
#include "input/read_all.hpp"
#include "mapping/mappable.hpp"
#include "mapping/sigbus_guard.hpp"
#include "platform/platform.hpp"
#include "platform/sys.hpp"

namespace mapout {

using detail::code_of;
using detail::error_cause;

namespace {

constexpr char no_bytes[] = "";
constexpr char read_truncated_by_another_process[] =
    "read from a file truncated by another process";
constexpr char larger_than_the_address_space[] =
    "map (the file is larger than the free address space)";

int advice_of(access advice) noexcept {
  switch (advice) {
    case access::sequential:
      return MADV_SEQUENTIAL;
    case access::random:
      return MADV_RANDOM;
    case access::normal:
      break;
  }
  return MADV_NORMAL;
}

}  // namespace

// Hidden: the shared library exports mapped_input's API, not the members of its pimpl.
struct __attribute__((visibility("hidden"))) mapped_input::state {
  std::filesystem::path path;
  error_cause error;      // of the last open or close
  detail::descriptor fd;  // kept open while mapped: the guard's handler asks it for the size
  // The bytes are one of: a mapping (map non-null, guard set), memory read in (memory set), or
  // nothing (closed, or an empty file).
  char* map = nullptr;
  std::unique_ptr<detail::sigbus_guard> guard;
  detail::heap_bytes memory;
  const char* data = no_bytes;
  std::size_t size = 0;
  bool open = false;
  // The first failure met reading since open: the mapped file became smaller than its mapping
  // (kept, since the bytes read meanwhile may have been the lost ones), or a read by istreambuf.
  // Atomic: error() is const and may be asked from any thread that reads the bytes.
  mutable std::atomic<int> reading_error{0};
  mutable std::atomic<const char*> reading_operation{nullptr};

  error_cause open_file(const char* file, access advice, bool read_unmappable) noexcept;
  error_cause map_file(std::size_t length, access advice) noexcept;
  error_cause read_file(std::size_t expected) noexcept;
  error_cause close_file() noexcept;
  // Opens `path` into `owned`, making the state first.
  static std::error_code open_into(std::unique_ptr<state>& owned, const std::filesystem::path& path,
                                   access advice, bool read_unmappable) noexcept;
  error_cause record_reading_failure(error_cause why) const noexcept;
  error_cause reading_failure() const noexcept;
  error_cause size_now(std::uint64_t& now) const noexcept;
  error_cause failure_now() const noexcept;
};

error_cause mapped_input::state::record_reading_failure(error_cause why) const noexcept {
  if (error_cause first = reading_failure()) return first;
  int none = 0;
  reading_operation.store(why.operation, std::memory_order_relaxed);
  reading_error.compare_exchange_strong(none, why.error, std::memory_order_release);
  return reading_failure();
}

error_cause mapped_input::state::reading_failure() const noexcept {
  const int error = reading_error.load(std::memory_order_acquire);
  return {error, error ? reading_operation.load(std::memory_order_relaxed) : nullptr};
}

error_cause mapped_input::state::size_now(std::uint64_t& now) const noexcept {
  if (guard) {
    if (error_cause faulted = guard->failed()) return faulted;
  }
  if (error_cause seen = reading_failure()) return seen;
  if (!map) return {};
  struct stat st;
  if (detail::sys().fstat(fd.get(), &st) != 0) {
    return record_reading_failure(detail::errno_failure("fstat"));
  }
  now = static_cast<std::uint64_t>(st.st_size);
  if (now < size) return record_reading_failure({EIO, read_truncated_by_another_process});
  return {};
}

// The last open's or close's failure, else the guard's (a read met a lost page), else the first
// failure of reading on, else a mapped file found smaller than its mapping, now or before.
error_cause mapped_input::state::failure_now() const noexcept {
  if (error) return error;
  std::uint64_t ignored = 0;
  return size_now(ignored);
}

error_cause mapped_input::state::open_file(const char* file, access advice,
                                           bool read_unmappable) noexcept {
  fd = detail::descriptor(
      detail::retry_on_eintr(detail::sys().open, file, O_RDONLY | O_CLOEXEC, mode_t{0}));
  if (!fd) return detail::errno_failure("open");
  struct stat st;
  if (detail::sys().fstat(fd.get(), &st) != 0) return detail::errno_failure("fstat");
  open = true;
  const bool regular = S_ISREG(st.st_mode);
  const auto length = static_cast<std::uint64_t>(regular ? st.st_size : 0);
  if (length > PTRDIFF_MAX) {
    return read_unmappable ? error_cause{EFBIG, larger_than_the_address_space} : error_cause{};
  }
  // An empty regular file may be a special file whose size says nothing; reading finds out. A
  // thread that blocks SIGBUS would die at a fault the guard cannot catch.
  if (length > 0 && detail::mappable(fd.get()) && !detail::sigbus_blocked()) {
    const error_cause why = map_file(static_cast<std::size_t>(length), advice);
    // sysfs and other special files that refuse mmap are read like a pipe; a file with no room
    // in the address space only by a caller that reads as it consumes.
    const bool no_room = why.operation == larger_than_the_address_space;
    if (why.error != ENODEV && (read_unmappable || !no_room)) return why;
  }
  // Left to the reader: a directory opens as for std::filebuf, and its first read fails.
  if (!read_unmappable) return {};
  return read_file(static_cast<std::size_t>(length));
}

error_cause mapped_input::state::map_file(std::size_t length, access advice) noexcept {
  void* const address = detail::sys().mmap(nullptr, length, PROT_READ, MAP_SHARED, fd.get(), 0);
  if (address == MAP_FAILED) {
    // Where the file cannot fit beside what the process has mapped already, ENOMEM means that
    // it is too large, not that memory is short.
    if (errno == ENOMEM && length > detail::platform::free_address_space()) {
      return {ENOMEM, larger_than_the_address_space};
    }
    return detail::errno_failure("map");
  }
  map = static_cast<char*>(address);
  data = map;
  size = length;
  guard.reset(new (std::nothrow) detail::sigbus_guard);
  if (!guard) return {ENOMEM, "map"};
  guard->set_extent(length);
  if (error_cause why = guard->arm_for_reading(fd.get())) return why;
  guard->cover(map, length, 0);
  if (advice != access::normal && detail::sys().madvise(map, length, advice_of(advice)) != 0) {
    return detail::errno_failure("madvise");
  }
  return {};
}

error_cause mapped_input::state::read_file(std::size_t expected) noexcept {
  std::size_t got = 0;
  if (error_cause why = detail::read_all(fd.get(), expected, memory, got)) return why;
  data = memory.get();
  size = got;
  return fd.close();
}

error_cause mapped_input::state::close_file() noexcept {
  error_cause why;
  if (map) {
    if (guard) guard->uncover();
    if (detail::sys().munmap(map, size) != 0) why = detail::errno_failure("munmap");
    map = nullptr;
  }
  guard.reset();
  memory.reset();
  data = no_bytes;
  size = 0;
  open = false;
  reading_error.store(0, std::memory_order_relaxed);
  const error_cause closed = fd.close();
  return why ? why : closed;
}

std::error_code mapped_input::state::open_into(std::unique_ptr<state>& owned,
                                               const std::filesystem::path& path, access advice,
                                               bool read_unmappable) noexcept {
  if (!owned) {
    owned.reset(new (std::nothrow) state);
    if (!owned) return std::make_error_code(std::errc::not_enough_memory);
  }
  state& s = *owned;
  s.close_file();
  std::string name;
  try {
    s.path = path;
    name = detail::platform::path_text(path);
  } catch (...) {
    return std::make_error_code(std::errc::not_enough_memory);
  }
  s.error = s.open_file(name.c_str(), advice, read_unmappable);
  if (s.error) s.close_file();
  return code_of(s.error);
}

mapped_input::mapped_input() noexcept = default;

mapped_input::mapped_input(const std::filesystem::path& path, access advice) {
  if (const std::error_code ec = open(path, advice)) {
    if (!state_) throw std::system_error(ec, detail::error_context("open", path));
    throw std::system_error(ec, detail::error_context(state_->error.operation, path));
  }
}

mapped_input::mapped_input(mapped_input&& other) noexcept = default;
mapped_input& mapped_input::operator=(mapped_input&& other) noexcept {
  mapped_input old(std::move(*this));
  state_ = std::move(other.state_);
  return *this;
}
mapped_input::~mapped_input() {
  if (state_) state_->close_file();
}
void mapped_input::swap(mapped_input& other) noexcept {
  state_.swap(other.state_);
}

std::error_code mapped_input::open(const std::filesystem::path& path, access advice) noexcept {
  return state::open_into(state_, path, advice, true);
}

std::error_code mapped_input::close() noexcept {
  if (!state_) return {};
  state_->error = state_->close_file();
  return code_of(state_->error);
}

bool mapped_input::is_open() const noexcept {
  return state_ && state_->open;
}

bool mapped_input::is_mapped() const noexcept {
  return state_ && state_->map;
}

const char* mapped_input::data() const noexcept {
  return state_ ? state_->data : no_bytes;
}

std::size_t mapped_input::size() const noexcept {
  return state_ ? state_->size : 0;
}

const std::filesystem::path& mapped_input::path() const noexcept {
  static const std::filesystem::path no_path;
  return state_ ? state_->path : no_path;
}

std::error_code mapped_input::error() const noexcept {
  return state_ ? code_of(state_->failure_now()) : std::error_code{};
}

std::string mapped_input::error_message() const {
  if (!error()) return {};
  return error_exception().what();
}

std::ios_base::failure mapped_input::error_exception() const {
  const error_cause why = state_ ? state_->failure_now() : error_cause{};
  if (!why) {
    return detail::not_open_failure(std::make_error_code(std::errc::bad_file_descriptor));
  }
  return std::ios_base::failure(detail::error_context(why.operation, state_->path), code_of(why));
}

namespace detail {

std::error_code input_access::open_unread(mapped_input& input, const std::filesystem::path& path,
                                          access advice) noexcept {
  return mapped_input::state::open_into(input.state_, path, advice, false);
}

void input_access::record_failure(const mapped_input& input, error_cause why) noexcept {
  if (input.state_) input.state_->record_reading_failure(why);
}

bool input_access::faulted(const mapped_input& input) noexcept {
  return input.state_ && input.state_->guard && input.state_->guard->failed();
}

int input_access::descriptor(const mapped_input& input) noexcept {
  return input.state_ ? input.state_->fd.get() : -1;
}

error_cause input_access::size_now(const mapped_input& input, std::uint64_t& size) noexcept {
  if (!input.state_) return {EBADF, "fstat"};
  return input.state_->size_now(size);
}

}  // namespace detail
}  // namespace mapout
