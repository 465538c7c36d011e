// mapout::mapped_input: a read-only mapping of the whole file, guarded against truncation, or the
// bytes read into memory where the file cannot be mapped.
#include "mapout/input.hpp"

#include <sys/mman.h>
#include <sys/stat.h>

#include <cstdint>
#include <new>

#include "read_all.hpp"
#include "sigbus_guard.hpp"
#include "sys.hpp"
#include "target.hpp"

namespace mapout {

using detail::failure;

namespace {

constexpr char no_bytes[] = "";

std::error_code code_of(const failure& why) noexcept {
  return why ? std::error_code(why.error, std::system_category()) : std::error_code{};
}

// "mapout: <operation> '<path>'", what std::system_error's what() puts before ": <reason>", as
// on the output side.
std::string context_of(const failure& why, const std::filesystem::path& path) {
  return "mapout: " + std::string(why.operation) + " '" + path.string() + "'";
}

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
  failure error;          // of the last open or close
  detail::descriptor fd;  // kept open while mapped: the guard's handler asks it for the size
  // The bytes are one of: a mapping (map non-null, guard set), memory read in (memory set), or
  // nothing (closed, or an empty file).
  char* map = nullptr;
  std::unique_ptr<detail::sigbus_guard> guard;
  detail::heap_bytes memory;
  const char* data = no_bytes;
  std::size_t size = 0;
  bool open = false;

  failure open_file(const char* file, access advice) noexcept;
  failure map_file(std::size_t length, access advice) noexcept;
  failure read_file(std::size_t expected) noexcept;
  failure close_file() noexcept;
};

failure mapped_input::state::open_file(const char* file, access advice) noexcept {
  fd = detail::descriptor(
      detail::retry_on_eintr(detail::sys().open, file, O_RDONLY | O_CLOEXEC, mode_t{0}));
  if (!fd) return detail::errno_failure("open");
  struct stat st;
  if (detail::sys().fstat(fd.get(), &st) != 0) return detail::errno_failure("fstat");
  open = true;
  const bool regular = S_ISREG(st.st_mode);
  const auto length = static_cast<std::uint64_t>(regular ? st.st_size : 0);
  if (length > PTRDIFF_MAX) return {EFBIG, "map"};
  // An empty regular file may be a /proc file whose size says nothing; reading finds out. A
  // thread that blocks SIGBUS would die at a fault the guard cannot catch.
  if (length > 0 && detail::kind_of(fd.get()) != detail::target_kind::unmappable &&
      !detail::sigbus_blocked()) {
    const failure why = map_file(static_cast<std::size_t>(length), advice);
    // sysfs and other special files that refuse mmap are read like a pipe.
    if (why.error != ENODEV) return why;
  }
  return read_file(static_cast<std::size_t>(length));
}

failure mapped_input::state::map_file(std::size_t length, access advice) noexcept {
  void* const address = detail::sys().mmap(nullptr, length, PROT_READ, MAP_SHARED, fd.get(), 0);
  if (address == MAP_FAILED) return detail::errno_failure("map");
  map = static_cast<char*>(address);
  data = map;
  size = length;
  guard.reset(new (std::nothrow) detail::sigbus_guard);
  if (!guard) return {ENOMEM, "map"};
  guard->set_extent(length);
  if (failure why = guard->arm_for_reading(fd.get())) return why;
  guard->cover(map, length, 0);
  if (advice != access::normal && detail::sys().madvise(map, length, advice_of(advice)) != 0) {
    return detail::errno_failure("madvise");
  }
  return {};
}

failure mapped_input::state::read_file(std::size_t expected) noexcept {
  std::size_t got = 0;
  if (failure why = detail::read_all(fd.get(), expected, memory, got)) return why;
  data = memory.get();
  size = got;
  return fd.close();
}

failure mapped_input::state::close_file() noexcept {
  failure why;
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
  const failure closed = fd.close();
  return why ? why : closed;
}

mapped_input::mapped_input() noexcept = default;

mapped_input::mapped_input(const std::filesystem::path& path, access advice) {
  if (const std::error_code ec = open(path, advice)) {
    if (!state_) throw std::system_error(ec, "mapout: open");
    throw std::system_error(ec, context_of(state_->error, path));
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
  if (!state_) {
    state_.reset(new (std::nothrow) state);
    if (!state_) return std::make_error_code(std::errc::not_enough_memory);
  }
  state& s = *state_;
  s.close_file();
  try {
    s.path = path;
  } catch (...) {
    return std::make_error_code(std::errc::not_enough_memory);
  }
  s.error = s.open_file(path.c_str(), advice);
  if (s.error) s.close_file();
  return code_of(s.error);
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

namespace {

// The failure error() reports: the last open's or close's, else the guard's.
failure failure_of(const failure& kept, const detail::sigbus_guard* guard) noexcept {
  if (kept || !guard) return kept;
  return guard->failed();
}

}  // namespace

std::error_code mapped_input::error() const noexcept {
  return state_ ? code_of(failure_of(state_->error, state_->guard.get())) : std::error_code{};
}

std::string mapped_input::error_message() const {
  if (!error()) return {};
  return error_exception().what();
}

std::ios_base::failure mapped_input::error_exception() const {
  const failure why = state_ ? failure_of(state_->error, state_->guard.get()) : failure{};
  if (!why) {
    return std::ios_base::failure("mapout: not open",
                                  std::make_error_code(std::errc::bad_file_descriptor));
  }
  return std::ios_base::failure(context_of(why, state_->path), code_of(why));
}

}  // namespace mapout
