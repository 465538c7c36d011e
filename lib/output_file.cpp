// mapout::output_file: opening (mode, target, strategy), forwarding to the backend in use, and
// the one place a failure becomes a std::error_code and a message.
#include "mapout/output_file.hpp"

#include <sys/stat.h>

#include "backend.hpp"
#include "buffered_backend.hpp"
#include "comparison.hpp"
#include "error_text.hpp"
#include "mapped_backend.hpp"
#include "replacement.hpp"
#include "target.hpp"

namespace mapout {

using detail::failure;

namespace {

std::error_code code_of(const failure& why) noexcept {
  return why ? std::error_code(why.error, std::system_category()) : std::error_code{};
}

// Opens the descriptor. Mapping needs it readable as well as writable; a file we may write but
// not read still opens, for the buffered strategy, as std::ofstream would open it.
failure open_descriptor(const char* path, const detail::open_flags& flags, bool want_map,
                        detail::descriptor& fd, bool& readable) noexcept {
  const int common = flags.creation | O_CLOEXEC;
  if (want_map || flags.read) {
    fd = detail::descriptor(
        detail::retry_on_eintr(detail::sys().open, path, O_RDWR | common, mode_t{0666}));
    readable = static_cast<bool>(fd);
    if (fd || flags.read || errno != EACCES) return fd ? failure{} : detail::errno_failure("open");
  }
  fd = detail::descriptor(
      detail::retry_on_eintr(detail::sys().open, path, O_WRONLY | common, mode_t{0666}));
  readable = false;
  return fd ? failure{} : detail::errno_failure("open");
}

}  // namespace

// Hidden: the shared library exports output_file's API, not the members of its pimpl.
struct __attribute__((visibility("hidden"))) output_file::state {
  std::filesystem::path path;
  detail::open_file file;
  std::unique_ptr<detail::backend> backend;
  // On strategy::automatic, a mappable file is written through a buffer until the buffer first
  // runs out, so that small files never pay for a mapping (docs/decisions.md, "first buffer").
  bool map_when_full = false;
  // On strategy::automatic, a mappable file whose writer keeps seeking to store small records
  // goes to the mapping at such a seek (docs/decisions.md, "random"); tried once.
  bool map_when_scattered = false;
  options map_options;
  // With options.atomic or write_if_changed, file.fd is a temporary that replaces the target when
  // close() succeeds.
  std::unique_ptr<detail::replacement> replacement;
  // With write_if_changed and an old file to compare with. The caller's stores since the window
  // was handed out, from compared_from (at compared_offset in the file), are compared when the
  // window comes back: the one cost on the caller's path is a tell() per window.
  std::unique_ptr<detail::comparison> comparison;
  char* compared_from = nullptr;
  std::uint64_t compared_offset = 0;
  // A mapout::cursor holds the window: the caller's view is stale until it hands it back.
  bool held_by_cursor = false;
  // The last call refused while the cursor holds the window, for error_message(); not sticky.
  const char* refused = nullptr;

  failure open(const char* path, std::ios_base::openmode mode, const options& opts) noexcept;
  // Opens a temporary for the target at `path`, and the old file to compare with.
  failure open_replacement(const char* path, const options& opts) noexcept;

  // The bytes the caller stored in the window, up to its cursor `put`, go to the comparison.
  void compare_stored(char* put) noexcept {
    if (!comparison || !comparison->comparing() || put <= compared_from) return;
    const auto size = static_cast<std::size_t>(put - compared_from);
    comparison->written(compared_offset, compared_from, size);
    compared_offset += size;
    compared_from = put;
  }
  // The window was handed out anew: nothing in it is stored yet.
  void restart_comparison() noexcept {
    if (!comparison || !comparison->comparing()) return;
    compared_from = backend->current().begin;
    compared_offset = static_cast<std::uint64_t>(backend->tell(compared_from));
  }
  // What every call that takes the caller's window does first; returns the cursor in the window
  // now in use.
  char* before_call(char* put, bool may_map) noexcept {
    compare_stored(put);
    if (!may_map || !map_when_full) return put;
    put = map_instead_of_buffer(put);
    restart_comparison();
    return put;
  }
  // Renames the temporary over the target, unless anything failed or the bytes are the old ones.
  // The temporary is gone afterwards, either way.
  void replace_target() noexcept;
  void drop_replacement() noexcept {
    file.fd.close();
    if (replacement) file.fail(replacement->discard());
    replacement.reset();
    comparison.reset();
  }

  // The first buffer is used up: the mapping takes over at the cursor. Where the file
  // cannot be mapped after all, writing goes on through the buffer. Returns the caller's cursor in
  // the window now in use.
  char* map_instead_of_buffer(char* put) noexcept {
    map_when_full = false;
    if (backend->publish(put)) return backend->current().begin;
    const std::int64_t position = backend->tell(backend->current().begin);
    struct stat st;
    std::unique_ptr<detail::backend> mapped;
    if (position >= 0 && detail::sys().fstat(file.fd.get(), &st) == 0 &&
        !detail::mapped_backend::create(file, static_cast<std::uint64_t>(st.st_size),
                                        static_cast<std::uint64_t>(position), map_options,
                                        mapped)) {
      backend = std::move(mapped);
    }
    return backend->current().begin;
  }
};

failure output_file::state::open(const char* path, std::ios_base::openmode mode,
                                 const options& opts) noexcept {
  detail::open_flags flags;
  if (!detail::to_open_flags(mode, flags)) return {EINVAL, "open mode"};
  // Only what is, or will be, a regular file is opened for mapping: a FIFO opened for reading and
  // writing would not wait for its reader as std::ofstream does. Appending never maps: every
  // write must land at the end, wherever other writers left it.
  bool want_map = opts.strategy != strategy::buffered && !flags.append;
  bool replace = opts.atomic || opts.write_if_changed;
  // Replacing would have to copy the bytes a mode keeps; and a device or FIFO is no file to
  // replace, so it is written as it would be without the options.
  if (replace && !(flags.creation & O_TRUNC)) {
    return {EINVAL, "open", detail::replacement_refusal(opts, flags)};
  }
  struct stat st;
  if ((want_map || replace) && detail::sys().stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    if (replace && S_ISDIR(st.st_mode)) return {EISDIR, "open"};
    want_map = false;
    replace = false;
  }
  bool readable = replace;
  if (replace) {
    if (failure why = open_replacement(path, opts)) return why;
  } else if (failure why = open_descriptor(path, flags, want_map, file.fd, readable)) {
    return why;
  }
  if (detail::sys().fstat(file.fd.get(), &st) != 0) return detail::errno_failure("fstat");
  const detail::target_kind kind =
      want_map && readable ? detail::kind_of(file.fd.get()) : detail::target_kind::unmappable;
  if (opts.strategy == strategy::mapped && !flags.append) {
    if (kind == detail::target_kind::unmappable) return {ENODEV, "map"};
    const auto size = static_cast<std::uint64_t>(st.st_size);
    return detail::mapped_backend::create(file, size, flags.at_end ? size : 0, opts, backend);
  }
  map_when_full = kind == detail::target_kind::mapping_wins && opts.strategy == strategy::automatic;
  map_when_scattered =
      kind != detail::target_kind::unmappable && opts.strategy == strategy::automatic;
  // A flush that shows the bytes costs a write(2) in the buffer, two size changes on the mapping.
  if (opts.flush_publishes) map_when_full = map_when_scattered = false;
  if (flags.at_end && detail::sys().lseek(file.fd.get(), 0, SEEK_END) < 0 && errno != ESPIPE) {
    return detail::errno_failure("lseek");
  }
  // A shared log opened for appending keeps std::ofstream's flush, like a pipe or a terminal.
  const bool write_on_flush = !S_ISREG(st.st_mode) || flags.append;
  const auto size = static_cast<std::uint64_t>(st.st_size);
  return detail::buffered_backend::create(file, opts.buffer_size, write_on_flush, !write_on_flush,
                                          size, flags.at_end ? size : 0, backend);
}

failure output_file::state::open_replacement(const char* path, const options& opts) noexcept {
  if (failure why = detail::replacement::create(path, replacement, file.fd)) return why;
  if (opts.write_if_changed && replacement->target_exists()) {
    detail::comparison::create(replacement->target_path(), replacement->target(), comparison);
  }
  return {};
}

void output_file::state::replace_target() noexcept {
  struct stat st;
  // Kept only when the name still holds the old file as it was: another process may have removed,
  // renamed or written it since open.
  if (!file.error && comparison && replacement->target_untouched() &&
      detail::sys().fstat(file.fd.get(), &st) == 0 &&
      comparison->unchanged(static_cast<std::uint64_t>(st.st_size))) {
    return drop_replacement();
  }
  // Owner and bits first, so that fdatasync finds them with the bytes.
  if (!file.error) file.fail(replacement->settle(file.fd.get()));
  if (!file.error && map_options.durable &&
      detail::retry_on_eintr(detail::sys().fdatasync, file.fd.get()) != 0) {
    file.fail("fdatasync");
  }
  if (!file.error) file.fail(replacement->link(file.fd.get()));
  // Closed before the rename: a file system that reports write-back errors at close (NFS) must
  // not have the target replaced first.
  if (!file.error) file.fail(file.fd.close());
  if (!file.error) file.fail(replacement->rename(map_options.durable));
  drop_replacement();
}

output_file::output_file() noexcept = default;
output_file::output_file(output_file&& other) noexcept {
  take_unless_held(other);
}
output_file& output_file::operator=(output_file&& other) noexcept {
  if (held_by_cursor()) {
    refuse("move");
    return *this;
  }
  output_file old(std::move(*this));
  take_unless_held(other);
  return *this;
}

void output_file::take_unless_held(output_file& other) noexcept {
  if (!other.held_by_cursor()) {
    state_ = std::move(other.state_);
    return;
  }
  // The cursor writes on into other's window, and other keeps the file it belongs to.
  state_.reset(new (std::nothrow) state);
  if (!state_) return;
  try {
    state_->path = other.path();
  } catch (...) {
    // The message goes without the path.
  }
  state_->file.error = {EBUSY, "move (a mapout::cursor holds the window)"};
}
output_file::~output_file() {
  if (!is_open()) return;
  // A cursor that outlives its file cannot hand the window back: close where the file stands.
  set_held_by_cursor(false);
  window view = current();
  close_at_destruction(view);
}
void output_file::swap(output_file& other) noexcept {
  if (held_by_cursor()) refuse("swap");
  if (other.held_by_cursor()) other.refuse("swap");
  if (!held_by_cursor() && !other.held_by_cursor()) state_.swap(other.state_);
}

std::error_code output_file::open(const std::filesystem::path& path, std::ios_base::openmode mode,
                                  const options& opts) noexcept {
  if (is_open()) return std::make_error_code(std::errc::device_or_resource_busy);
  if (!state_) {
    state_.reset(new (std::nothrow) state);
    if (!state_) return std::make_error_code(std::errc::not_enough_memory);
  }
  try {
    state_->path = path;
  } catch (...) {
    return std::make_error_code(std::errc::not_enough_memory);
  }
  state& s = *state_;
  s.file.error = {};
  s.map_when_full = false;
  s.map_when_scattered = false;
  s.map_options = opts;
  // A successful open leaves errno as it was, as fopen does: the calls that probe may set it.
  const int saved_errno = errno;
  s.file.error = s.open(path.c_str(), mode, opts);
  if (!s.file.error) errno = saved_errno;
  if (s.file.error) {
    // Only the backend's own state goes with it; the descriptor has one owner, which closes it.
    s.backend.reset();
    s.drop_replacement();
  } else {
    s.restart_comparison();
  }
  return code_of(s.file.error);
}

bool output_file::is_open() const noexcept {
  return state_ && state_->backend;
}

bool output_file::is_mapped() const noexcept {
  return is_open() && state_->backend->is_mapped();
}

window output_file::current() const noexcept {
  return is_open() ? state_->backend->current() : window{};
}

seek_range output_file::seekable() const noexcept {
  if (!is_open() || state_->held_by_cursor || state_->comparison) return {};
  return state_->backend->seekable();
}

std::error_code output_file::not_open(const char* operation) noexcept {
  if (state_ && !state_->file.error) state_->file.error = {EBADF, operation};
  return std::make_error_code(std::errc::bad_file_descriptor);
}

bool output_file::held_by_cursor() const noexcept {
  return state_ && state_->held_by_cursor;
}

void output_file::set_held_by_cursor(bool held) noexcept {
  if (!state_) return;
  state_->held_by_cursor = held;
  state_->refused = nullptr;
}

std::error_code output_file::refuse(const char* operation) noexcept {
  state_->refused = operation;
  return std::make_error_code(std::errc::device_or_resource_busy);
}

std::string output_file::held_message() const {
  const char* operation = state_->refused != nullptr ? state_->refused : "use";
  return detail::error_context(operation, state_->path, "held by a mapout::cursor");
}

template <class Call>
std::error_code output_file::forward(window& view, const char* operation, bool may_map,
                                     Call call) noexcept {
  if (held_by_cursor()) return refuse(operation);
  if (!is_open()) return not_open(operation);
  view.begin = state_->before_call(view.begin, may_map);
  const failure why = call(*state_->backend, view.begin);
  view = state_->backend->current();
  state_->restart_comparison();
  return code_of(why);
}

std::error_code output_file::make_room(window& view, std::size_t wanted) noexcept {
  return forward(view, "write", true,
                 [&](detail::backend& b, char* put) { return b.make_room(put, wanted); });
}

std::error_code output_file::write(window& view, const char* data, std::size_t size) noexcept {
  return forward(view, "write", true, [&](detail::backend& b, char* put) {
    // The bytes go in at the cursor, past the window perhaps: they are compared from here.
    state& s = *state_;
    if (s.comparison && s.comparison->comparing()) {
      s.comparison->written(s.compared_offset, data, size);
    }
    return b.write(put, data, size);
  });
}

std::error_code output_file::write_from_cursor(window& view, const char* data,
                                               std::size_t size) noexcept {
  state_->held_by_cursor = false;
  const std::error_code ec = write(view, data, size);
  state_->held_by_cursor = true;
  return ec;
}

std::int64_t output_file::tell(const window& view) const noexcept {
  return is_open() && !held_by_cursor() ? state_->backend->tell(view.begin) : -1;
}

std::int64_t output_file::seek(window& view, std::int64_t offset, std::ios_base::seekdir dir,
                               std::error_code& ec) noexcept {
  std::int64_t position = -1;
  ec = forward(view, "seek", false, [&](detail::backend& b, char* put) {
    failure why;
    position = b.seek(put, offset, dir, why);
    return why;
  });
  if (ec) return position;
  state& s = *state_;
  if (s.map_when_scattered && s.backend->writes_scattered_records()) {
    s.map_when_scattered = false;
    view.begin = s.map_instead_of_buffer(view.begin);
    view = s.backend->current();
    s.restart_comparison();
  }
  return position;
}

std::error_code output_file::flush(window& view) noexcept {
  const bool publishes = state_ && state_->map_options.flush_publishes;
  return forward(view, "flush", false, [publishes](detail::backend& b, char* put) {
    return publishes ? b.publish(put) : b.flush(put);
  });
}

std::error_code output_file::publish(window& view) noexcept {
  return forward(view, "publish", false,
                 [](detail::backend& b, char* put) { return b.publish(put); });
}

std::error_code output_file::persist(window& view) noexcept {
  return forward(view, "persist", false,
                 [](detail::backend& b, char* put) { return b.persist(put); });
}

std::error_code output_file::close(window& view) noexcept {
  if (held_by_cursor()) return refuse("close");
  if (!is_open()) return not_open("close");
  state& s = *state_;
  s.compare_stored(view.begin);
  s.backend->finish(view.begin);
  s.backend.reset();
  if (s.replacement) {
    s.replace_target();
  } else if (s.map_options.durable && !s.file.error &&
             detail::retry_on_eintr(detail::sys().fdatasync, s.file.fd.get()) != 0) {
    s.file.fail("fdatasync");
  }
  s.file.fail(s.file.fd.close());
  view = {};
  return code_of(s.file.error);
}

std::error_code output_file::discard(window& view) noexcept {
  if (held_by_cursor()) return refuse("discard");
  if (!is_open()) return not_open("discard");
  state& s = *state_;
  if (!s.replacement) return close(view);
  s.backend.reset();
  const failure kept = s.file.error;
  s.file.error = {};
  s.drop_replacement();
  const failure why = s.file.error;
  s.file.error = kept ? kept : why;
  view = {};
  return code_of(why);
}

void output_file::close_at_destruction(window& view) noexcept {
  if (is_open() && state_->map_options.atomic) {
    discard(view);
  } else if (is_open()) {
    close(view);
  }
}

int output_file::native_handle() const noexcept {
  return is_open() ? state_->file.fd.get() : -1;
}

const std::filesystem::path& output_file::path() const noexcept {
  static const std::filesystem::path no_path;
  return state_ ? state_->path : no_path;
}

std::error_code output_file::error() const noexcept {
  return state_ ? code_of(state_->file.error) : std::error_code{};
}

std::string output_file::error_message() const {
  if (state_ && !state_->file.error && state_->held_by_cursor && state_->refused)
    return held_message();
  if (!state_ || !state_->file.error) return {};
  return error_exception().what();
}

std::ios_base::failure output_file::error_exception() const {
  if (!state_ || !state_->file.error) {
    return detail::not_open_failure(std::make_error_code(std::errc::bad_file_descriptor));
  }
  const failure& why = state_->file.error;
  return std::ios_base::failure(detail::error_context(why.operation, state_->path, why.detail),
                                code_of(why));
}

std::ios_base::failure output_file::exception_for(std::error_code ec) const {
  if (error() || ec != std::errc::device_or_resource_busy || !held_by_cursor())
    return error_exception();
  return std::ios_base::failure(held_message(), ec);
}

}  // namespace mapout
