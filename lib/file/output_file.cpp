// mapout::output_file: forwarding each call to the backend in use. Opening is in
// output_file_open.cpp, the errors it reports and their messages in output_file_errors.cpp.
#include "mapout/output_file.hpp"

#include <string>

#include "file/output_file_inline.hpp"
#include "platform/platform.hpp"

namespace mapout {

using detail::code_of;
using detail::error_cause;

output_file::output_file() noexcept = default;
output_file::output_file(output_file&& other) noexcept {
  move_from_unless_held(other);
}
output_file& output_file::operator=(output_file&& other) noexcept {
  if (held_by_cursor()) {
    refuse("move");
    return *this;
  }
  output_file old(std::move(*this));
  move_from_unless_held(other);
  return *this;
}

void output_file::move_from_unless_held(output_file& other) noexcept {
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
  state_->file.error = {EBUSY, "move", "held by a mapout::cursor"};
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
  return open(path, -1, mode, opts);
}

std::error_code output_file::open(int fd, const options& opts) noexcept {
  if (fd < 0) return std::make_error_code(std::errc::bad_file_descriptor);
  try {
    // Messages name the descriptor by the path that reopens it.
    std::string name = "/dev/fd/";
    name += std::to_string(fd);
    return open(name, fd, std::ios_base::out, opts);
  } catch (...) {
    return std::make_error_code(std::errc::not_enough_memory);
  }
}

std::error_code output_file::open(const std::filesystem::path& path, int fd,
                                  std::ios_base::openmode mode, const options& opts) noexcept {
  if (is_open()) return std::make_error_code(std::errc::device_or_resource_busy);
  if (!state_) {
    state_.reset(new (std::nothrow) state);
    if (!state_) return std::make_error_code(std::errc::not_enough_memory);
  }
  std::string name;
  try {
    state_->path = path;
    if (fd < 0) name = detail::platform::path_text(path);
  } catch (...) {
    return std::make_error_code(std::errc::not_enough_memory);
  }
  state& s = *state_;
  s.file.error = {};
  s.opts = opts;
  // A successful open leaves errno as it was, as fopen does: the calls that probe may set it.
  const int saved_errno = errno;
  s.taken_over = fd >= 0;
  s.file.error = fd < 0 ? s.open(name.c_str(), mode, opts) : s.take_descriptor(fd, opts);
  if (!s.file.error) errno = saved_errno;
  if (s.file.error) {
    // Only the backend's own state goes with it; the descriptor has one owner, which closes it,
    // and a descriptor that was not taken over stays the caller's.
    s.backend.reset();
    if (fd >= 0) s.file.fd.release();
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
  return is_open() ? state_->seekable() : seek_range{};
}

std::error_code output_file::make_room(window& view, std::size_t wanted) noexcept {
  seek_range range;
  return make_room(view, wanted, range);
}

std::error_code output_file::write(window& view, const char* data, std::size_t size) noexcept {
  seek_range range;
  return write(view, data, size, range);
}

std::error_code output_file::write_from_cursor(window& view, const char* data,
                                               std::size_t size) noexcept {
  // A file never opened has no state that a cursor could hold.
  if (!state_) return not_open("write");
  state_->held_by_cursor = false;
  const std::error_code ec = write(view, data, size);
  state_->held_by_cursor = true;
  return ec;
}

std::error_code output_file::make_room_from_cursor(window& view) noexcept {
  if (!state_) return not_open("write");
  state_->held_by_cursor = false;
  const std::error_code ec = make_room(view, 1);
  state_->held_by_cursor = true;
  return ec;
}

std::int64_t output_file::tell(const window& view) const noexcept {
  if (!is_open() || held_by_cursor()) return -1;
  return state_->backend->tell(view.begin);
}

std::int64_t output_file::seek(window& view, std::int64_t offset, std::ios_base::seekdir dir,
                               std::error_code& ec) noexcept {
  seek_range range;
  return seek(view, offset, dir, ec, range);
}

std::int64_t output_file::seek(window& view, std::int64_t offset, std::ios_base::seekdir dir,
                               std::error_code& ec, seek_range& range) noexcept {
  range = {};
  if ((ec = unavailable("seek"))) return -1;
  state& s = *state_;
  s.note_stores(view);
  std::int64_t position = -1;
  ec = code_of(s.run(view, range, &detail::backend::seek, offset, dir, position));
  return position;
}

std::error_code output_file::flush(window& view) noexcept {
  seek_range range;
  return flush(view, range);
}

std::error_code output_file::flush(window& view, seek_range& range) noexcept {
  range = {};
  if (std::error_code ec = unavailable("flush")) return ec;
  state& s = *state_;
  if (s.opts.flush_publishes)
    return code_of(s.hand_back_after(view, range, &detail::backend::publish_at_flush));
  s.note_stores(view);
  return code_of(s.run(view, range, &detail::backend::flush));
}

std::error_code output_file::publish(window& view) noexcept {
  seek_range range;
  return publish(view, range);
}

std::error_code output_file::publish(window& view, seek_range& range) noexcept {
  range = {};
  if (std::error_code ec = unavailable("publish")) return ec;
  state& s = *state_;
  return code_of(s.hand_back_after(view, range, &detail::backend::publish));
}

std::error_code output_file::persist(window& view) noexcept {
  seek_range range;
  return persist(view, range);
}

std::error_code output_file::persist(window& view, seek_range& range) noexcept {
  range = {};
  if (std::error_code ec = unavailable("persist")) return ec;
  state& s = *state_;
  return code_of(s.hand_back_after(view, range, &detail::backend::persist));
}

std::error_code output_file::close(window& view) noexcept {
  if (std::error_code ec = unavailable("close")) return ec;
  state& s = *state_;
  s.note_stores(view);
  // The buffer's write(2) moved the offset already; a mapping moves none.
  const std::int64_t cursor =
      s.taken_over && s.backend->is_mapped() ? s.backend->tell(view.begin) : -1;
  s.backend->finish(view.begin);
  s.backend.reset();
  if (cursor >= 0 && !s.file.error && detail::sys().lseek(s.file.fd.get(), cursor, SEEK_SET) < 0) {
    s.file.fail("lseek");
  }
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
  const error_cause kept = s.file.error;
  s.file.error = {};
  s.drop_replacement();
  const error_cause why = s.file.error;
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

}  // namespace mapout
