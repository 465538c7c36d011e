// mapout::cursor's slow path: taking the window from its owner, refilling it, handing it back.
#include "mapout/cursor.hpp"

#include <stdexcept>

#include "mapout/ostream.hpp"
#include "mapout/streambuf.hpp"

namespace mapout {

namespace {

[[noreturn]] void throw_second_cursor() {
  throw std::logic_error("mapout::cursor: the file already has a cursor");
}

}  // namespace

// Nothing more reaches the file once the stream is bad, as under a sentry.
bool cursor::stream_is_bad(owner held) noexcept {
  return held.kind == owner_kind::ostream && !static_cast<ostream*>(held.holder)->good();
}

cursor::cursor(ostream& out) {
  // One sentry for the cursor's whole life: a stream that is not good receives nothing.
  if (!out.good()) return;
  if (out.buf_.file_.lent()) throw_second_cursor();
  if (out.tie() != nullptr) out.tie()->flush();
  owner_ = {&out.buf_.file_, &out, owner_kind::ostream};
  put_ = out.buf_.pptr();
  end_ = out.buf_.epptr();
  out.buf_.setp(nullptr, nullptr);
  owner_.file->set_lent(true);
}

cursor::cursor(streambuf& buf) : owner_{&buf.file_, &buf, owner_kind::streambuf} {
  if (buf.file_.lent()) throw_second_cursor();
  put_ = buf.pptr();
  end_ = buf.epptr();
  buf.setp(nullptr, nullptr);
  owner_.file->set_lent(true);
}

cursor::cursor(output_file& file, output_file::window& view)
    : owner_{&file, &view, owner_kind::output_file} {
  if (file.lent()) throw_second_cursor();
  put_ = view.begin;
  end_ = view.end;
  view = {};
  file.set_lent(true);
}

cursor::refilled cursor::refill(owner held, char* put, std::size_t wanted) noexcept {
  if (held.kind == owner_kind::dropping) return {{put, put}, false};
  if (held.kind == owner_kind::released) return {{put, put}, true};
  if (stream_is_bad(held)) return {{put, put}, false};
  output_file::window view{put, put};
  held.file->set_lent(false);
  const std::error_code ec = held.file->make_room(view, wanted);
  held.file->set_lent(true);
  // After a failure the window is empty at the cursor, so that every later call comes back here.
  if (ec) return {{view.begin, view.begin}, true};
  return {view, false};
}

cursor::refilled cursor::write_through(owner held, char* put, const char* data,
                                       std::size_t size) noexcept {
  if (held.kind == owner_kind::dropping) return {{put, put}, false};
  if (held.kind == owner_kind::released) return {{put, put}, true};
  if (stream_is_bad(held)) return {{put, put}, false};
  output_file::window view{put, put};
  held.file->set_lent(false);
  const std::error_code ec = held.file->write(view, data, size);
  held.file->set_lent(true);
  if (ec) return {{view.begin, view.begin}, true};
  return {view, false};
}

void cursor::report(owner held) {
  switch (held.kind) {
    case owner_kind::ostream: {
      static_cast<ostream*>(held.holder)->fail_with(std::ios_base::badbit);
      break;
    }
    case owner_kind::streambuf:
      throw held.file->error_exception();
    case owner_kind::output_file:
    case owner_kind::dropping:
      break;
    case owner_kind::released:
      throw std::logic_error("mapout::cursor: used after release()");
  }
}

void cursor::hand_back(owner held, char* put, char* end, bool loud) {
  switch (held.kind) {
    case owner_kind::ostream: {
      auto& out = *static_cast<ostream*>(held.holder);
      held.file->set_lent(false);
      out.buf_.set_put_area({put, end});
      if (!(out.flags() & std::ios_base::unitbuf) || !out.good()) break;
      if (out.buf_.pubsync() == 0) break;
      if (loud) {
        out.fail_with(std::ios_base::badbit);
      } else {
        try {
          out.fail_with(std::ios_base::badbit);
        } catch (const std::ios_base::failure&) {
          // Recorded in the stream's state; a destructor cannot throw it.
        }
      }
      break;
    }
    case owner_kind::streambuf:
      held.file->set_lent(false);
      static_cast<streambuf*>(held.holder)->set_put_area({put, end});
      break;
    case owner_kind::output_file:
      held.file->set_lent(false);
      *static_cast<output_file::window*>(held.holder) = {put, end};
      break;
    case owner_kind::dropping:
    case owner_kind::released:
      break;
  }
}

}  // namespace mapout
