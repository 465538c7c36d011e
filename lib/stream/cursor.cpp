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

output_file& cursor::file_of(owner held) noexcept {
  switch (held.kind) {
    case owner_kind::ostream:
      return static_cast<ostream*>(held.holder)->buf_.file_;
    case owner_kind::streambuf:
      return static_cast<streambuf*>(held.holder)->file_;
    default:
      return *static_cast<output_file*>(held.holder);
  }
}

// Nothing more reaches the file once the stream is bad, as under a sentry.
bool cursor::stream_is_bad(owner held) noexcept {
  return held.kind == owner_kind::ostream && !static_cast<ostream*>(held.holder)->good();
}

cursor::taken cursor::take(ostream& out) {
  // One sentry for the cursor's whole life: a stream that is not good receives nothing.
  if (!out.good()) return {};
  if (out.buf_.file_.held_by_cursor()) throw_second_cursor();
  if (out.tie() != nullptr) out.tie()->flush();
  const taken result{out.buf_.put_area(), {&out, owner_kind::ostream}};
  out.buf_.setp(nullptr, nullptr);
  out.buf_.file_.set_held_by_cursor(true, result.view);
  return result;
}

cursor::taken cursor::take(streambuf& buf) {
  if (buf.file_.held_by_cursor()) throw_second_cursor();
  const taken result{buf.put_area(), {&buf, owner_kind::streambuf}};
  buf.setp(nullptr, nullptr);
  buf.file_.set_held_by_cursor(true, result.view);
  return result;
}

cursor::taken cursor::take(output_file& file, window& view) {
  if (file.held_by_cursor()) throw_second_cursor();
  const taken result{view, {&file, owner_kind::output_file}, &view};
  view = {};
  file.set_held_by_cursor(true, result.view);
  return result;
}

template <typename Call>
cursor::refilled cursor::refill(owner held, char* put, Call call) noexcept {
  if (held.kind == owner_kind::dropping) return {{put, put}, false};
  if (held.kind == owner_kind::released) return {{put, put}, true};
  if (stream_is_bad(held)) return {{put, put}, false};
  window view{put, put};
  const std::error_code ec = call(file_of(held), view);
  // After a failure the window is empty at the cursor, so that every later call comes back here.
  if (ec) return {{view.begin, view.begin}, true};
  return {view, false};
}

cursor::refilled cursor::put_through(owner held, char* put, char c) noexcept {
  return write_through(held, put, &c, 1);
}

cursor::refilled cursor::write_through(owner held, char* put, const char* data,
                                       std::size_t size) noexcept {
  return refill(held, put, [data, size](output_file& file, window& view) {
    return file.write_from_cursor(view, data, size);
  });
}

cursor::refilled cursor::make_room_through(owner held, char* put) noexcept {
  return refill(held, put,
                [](output_file& file, window& view) { return file.make_room_from_cursor(view); });
}

void cursor::throw_past_handed_out() {
  throw std::logic_error("mapout::cursor: back_up() past the memory next() handed out");
}

void cursor::report(owner held) {
  switch (held.kind) {
    case owner_kind::ostream: {
      static_cast<ostream*>(held.holder)->fail_with(std::ios_base::badbit);
      break;
    }
    case owner_kind::streambuf:
      throw file_of(held).error_exception();
    case owner_kind::output_file:
    case owner_kind::dropping:
      break;
    case owner_kind::released:
      throw std::logic_error("mapout::cursor: used after release()");
  }
}

void cursor::hand_back(owner held, window* view, char* put, char* end, bool loud) {
  switch (held.kind) {
    case owner_kind::ostream: {
      auto& out = *static_cast<ostream*>(held.holder);
      out.buf_.file_.set_held_by_cursor(false);
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
    case owner_kind::streambuf: {
      auto& buf = *static_cast<streambuf*>(held.holder);
      buf.file_.set_held_by_cursor(false);
      buf.set_put_area({put, end});
      break;
    }
    case owner_kind::output_file:
      static_cast<output_file*>(held.holder)->set_held_by_cursor(false);
      *view = {put, end};
      break;
    case owner_kind::dropping:
    case owner_kind::released:
      break;
  }
}

}  // namespace mapout
