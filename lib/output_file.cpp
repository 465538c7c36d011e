// mapout::output_file: opening (mode, target, strategy) and forwarding each call to the backend
// in use; the one place a failure becomes a std::error_code and a message.
#include "mapout/output_file.hpp"

#include <sys/stat.h>

#include "backend.hpp"
#include "buffered_backend.hpp"
#include "error_text.hpp"
#include "mapped_backend.hpp"
#include "replace_session.hpp"
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
  options opts;  // as opened: the mapping that takes over from the first buffer is made with them
  // With options.atomic or write_if_changed: file.fd is a temporary that replaces the target
  // when close() succeeds.
  std::unique_ptr<detail::replace_session> session;
  // A mapout::cursor holds the window: the caller's view is stale until it hands it back.
  bool held_by_cursor = false;
  // The last call refused while the cursor holds the window, for error_message(); not sticky.
  const char* refused = nullptr;

  failure open(const char* path, std::ios_base::openmode mode, const options& opts) noexcept;

  // What every call that takes the caller's window does first: its stores up to `put` are
  // compared.
  void take_view(const window& view) noexcept {
    if (session) session->stored_up_to(view.begin);
  }
  // And last: the backend's window goes back to the caller, nothing stored in it yet.
  void give_view(window& view) noexcept {
    view = backend->current();
    if (session) session->window_handed_out(*backend);
  }
  // The buffer offered the mapping (backend::offers_mapping): the mapping takes over at the
  // cursor. Where the file cannot be mapped after all, writing goes on through the buffer.
  // Returns the caller's cursor in the window now in use.
  char* map_instead_of_buffer(char* put) noexcept;
  void drop_replacement() noexcept {
    if (session) {
      session->drop(file);
      session.reset();
    } else {
      file.fd.close();
    }
  }
};

char* output_file::state::map_instead_of_buffer(char* put) noexcept {
  if (backend->publish(put)) return backend->current().begin;
  const std::int64_t position = backend->tell(backend->current().begin);
  struct stat st;
  std::unique_ptr<detail::backend> mapped;
  if (position >= 0 && detail::sys().fstat(file.fd.get(), &st) == 0 &&
      !detail::mapped_backend::create(file, static_cast<std::uint64_t>(st.st_size),
                                      static_cast<std::uint64_t>(position), opts, mapped)) {
    backend = std::move(mapped);
  }
  if (session) session->window_handed_out(*backend);
  return backend->current().begin;
}

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
    if (failure why = detail::replace_session::open(path, opts, file, session)) return why;
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
  detail::mapping_offer offer;
  offer.when_full =
      kind == detail::target_kind::mapping_wins && opts.strategy == strategy::automatic;
  offer.when_scattered =
      kind != detail::target_kind::unmappable && opts.strategy == strategy::automatic;
  // A flush that shows the bytes costs a write(2) in the buffer, two size changes on the mapping.
  if (opts.flush_publishes) offer = {};
  if (flags.at_end && detail::sys().lseek(file.fd.get(), 0, SEEK_END) < 0 && errno != ESPIPE) {
    return detail::errno_failure("lseek");
  }
  // A shared log opened for appending keeps std::ofstream's flush, like a pipe or a terminal.
  const bool write_on_flush = !S_ISREG(st.st_mode) || flags.append;
  const auto size = static_cast<std::uint64_t>(st.st_size);
  return detail::buffered_backend::create(file, opts.buffer_size, write_on_flush, !write_on_flush,
                                          size, flags.at_end ? size : 0, offer, backend);
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
  s.opts = opts;
  // A successful open leaves errno as it was, as fopen does: the calls that probe may set it.
  const int saved_errno = errno;
  s.file.error = s.open(path.c_str(), mode, opts);
  if (!s.file.error) errno = saved_errno;
  if (s.file.error) {
    // Only the backend's own state goes with it; the descriptor has one owner, which closes it.
    s.backend.reset();
    s.drop_replacement();
  } else if (s.session) {
    s.session->window_handed_out(*s.backend);
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
  if (!is_open() || state_->held_by_cursor) return {};
  if (state_->session && state_->session->compares()) return {};
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

std::error_code output_file::unavailable(const char* operation) noexcept {
  if (held_by_cursor()) return refuse(operation);
  if (!is_open()) return not_open(operation);
  return {};
}

std::error_code output_file::make_room(window& view, std::size_t wanted) noexcept {
  if (std::error_code ec = unavailable("write")) return ec;
  state& s = *state_;
  s.take_view(view);
  failure why = s.backend->make_room(view.begin, wanted);
  if (s.backend->offers_mapping()) {
    // First, apart: the call must reach the backend that takes over, not the one it replaces.
    char* const put = s.map_instead_of_buffer(view.begin);
    why = s.backend->make_room(put, wanted);
  }
  s.give_view(view);
  return code_of(why);
}

std::error_code output_file::write(window& view, const char* data, std::size_t size) noexcept {
  if (std::error_code ec = unavailable("write")) return ec;
  state& s = *state_;
  s.take_view(view);
  if (s.session) s.session->writes(data, size);
  failure why = s.backend->write(view.begin, data, size);
  if (s.backend->offers_mapping()) {
    char* const put = s.map_instead_of_buffer(view.begin);
    why = s.backend->write(put, data, size);
  }
  s.give_view(view);
  return code_of(why);
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
  if ((ec = unavailable("seek"))) return -1;
  state& s = *state_;
  s.take_view(view);
  failure why;
  const std::int64_t position = s.backend->seek(view.begin, offset, dir, why);
  // A seek that found the writer storing small records at scattered offsets is done; the
  // mapping takes over after it.
  if (!why && s.backend->offers_mapping()) s.map_instead_of_buffer(s.backend->current().begin);
  s.give_view(view);
  ec = code_of(why);
  return position;
}

std::error_code output_file::flush(window& view) noexcept {
  if (std::error_code ec = unavailable("flush")) return ec;
  state& s = *state_;
  s.take_view(view);
  const failure why =
      s.opts.flush_publishes ? s.backend->publish(view.begin) : s.backend->flush(view.begin);
  s.give_view(view);
  return code_of(why);
}

std::error_code output_file::publish(window& view) noexcept {
  if (std::error_code ec = unavailable("publish")) return ec;
  state& s = *state_;
  s.take_view(view);
  const failure why = s.backend->publish(view.begin);
  s.give_view(view);
  return code_of(why);
}

std::error_code output_file::persist(window& view) noexcept {
  if (std::error_code ec = unavailable("persist")) return ec;
  state& s = *state_;
  s.take_view(view);
  const failure why = s.backend->persist(view.begin);
  s.give_view(view);
  return code_of(why);
}

std::error_code output_file::close(window& view) noexcept {
  if (std::error_code ec = unavailable("close")) return ec;
  state& s = *state_;
  s.take_view(view);
  s.backend->finish(view.begin);
  s.backend.reset();
  if (s.session) {
    s.session->commit(s.file, s.opts.durable);
    s.session.reset();
  } else if (s.opts.durable && !s.file.error &&
             detail::retry_on_eintr(detail::sys().fdatasync, s.file.fd.get()) != 0) {
    s.file.fail("fdatasync");
  }
  s.file.fail(s.file.fd.close());
  view = {};
  return code_of(s.file.error);
}

std::error_code output_file::discard(window& view) noexcept {
  if (std::error_code ec = unavailable("discard")) return ec;
  state& s = *state_;
  if (!s.session) return close(view);
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
  if (is_open() && state_->opts.atomic) {
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
