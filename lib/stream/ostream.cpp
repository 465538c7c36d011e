// mapout::ostream: std::ofstream's members over mapout::streambuf.
#include "mapout/ostream.hpp"

#include <locale>
#include <utility>

#include "base/error_text.hpp"
#include "mapout/num_put.hpp"
#include "text/punctuation.hpp"

namespace mapout {

ostream::ostream() : std::ostream(nullptr) {
  init(&buf_);
  // Where std::ofstream would print in the classic locale, print the same through mapout's
  // num_put; under any other global locale, exactly as std::ofstream.
  if (getloc() == std::locale::classic()) imbue(numbers_locale());
  watch_locale_again();
}

ostream::ostream(const std::filesystem::path& path, std::ios_base::openmode mode,
                 const options& opts)
    : ostream() {
  open(path, mode, opts);
}

// Moving and swapping a std::ostream moves and swaps its locale and callback list, so the locale
// flags go along.
ostream::ostream(ostream&& other)
    : std::ostream(std::move(other)),
      buf_(std::move(other.buf_)),
      classic_locale_(std::exchange(other.classic_locale_, false)),
      locale_watched_(std::exchange(other.locale_watched_, false)) {
  set_rdbuf(&buf_);
  if (other.buf_.file().held_by_cursor()) {
    // The file stayed with other, whose cursor writes on: other gets back what the base's move
    // took (callbacks, tie), and this stream is left as after a failed open.
#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 with -fsanitize=address takes basic_ios::swap's bool swap for an overflow.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
    std::ostream::swap(other);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
    std::swap(classic_locale_, other.classic_locale_);
    std::swap(locale_watched_, other.locale_watched_);
    watch_locale_again();
    fail_with(failbit);
  }
}

ostream& ostream::operator=(ostream&& other) {
  // Neither stream's state changes hands while a cursor writes into one of them: as any call, a
  // move into a stream a cursor holds fails; one from it leaves this one as after a failed open.
  if (buf_.file().held_by_cursor()) {
    fail_with(badbit);
    return *this;
  }
  if (other.buf_.file().held_by_cursor()) {
    buf_ = std::move(other.buf_);
    fail_with(failbit);
    return *this;
  }
  std::ostream::operator=(std::move(other));
  buf_ = std::move(other.buf_);
  std::swap(classic_locale_, other.classic_locale_);
  std::swap(locale_watched_, other.locale_watched_);
  return *this;
}

void ostream::swap(ostream& other) {
  if (buf_.file().held_by_cursor() || other.buf_.file().held_by_cursor()) return fail_with(badbit);
  std::ostream::swap(other);
  buf_.swap(other.buf_);
  std::swap(classic_locale_, other.classic_locale_);
  std::swap(locale_watched_, other.locale_watched_);
}

void ostream::open(const std::filesystem::path& path, std::ios_base::openmode mode,
                   const options& opts) {
  if (buf_.open(path, mode | std::ios_base::out, opts)) {
    clear();
  } else {
    fail_with(failbit);
  }
}

void ostream::open(output_file&& file) {
  if (buf_.open(std::move(file))) {
    clear();
  } else {
    fail_with(failbit);
  }
}

void ostream::close() {
  if (!buf_.close()) fail_with(failbit);
}

void ostream::discard() {
  if (!buf_.discard()) fail_with(failbit);
}

ostream& ostream::publish() {
  if (!buf_.publish()) fail_with(badbit);
  return *this;
}

ostream& ostream::persist() {
  if (!buf_.persist()) fail_with(badbit);
  return *this;
}

void ostream::on_ios_event(std::ios_base::event event, std::ios_base& stream, int) {
  // copyfmt copies the callback list to plain streams too, and the erase event of a stream being
  // destroyed comes when it is an ios_base no more: act only on a live mapout::ostream.
  auto* self = dynamic_cast<ostream*>(&stream);
  if (self == nullptr) return;
  if (event == std::ios_base::erase_event) {
    self->locale_watched_ = false;
    self->classic_locale_ = false;
  } else {
    self->locale_watched_ = true;
    self->classic_locale_ = detail::formats_numbers_classically(stream.getloc());
  }
}

void ostream::watch_locale_again() {
  register_callback(&ostream::on_ios_event, 0);
  locale_watched_ = true;
  classic_locale_ = detail::formats_numbers_classically(getloc());
}

void ostream::rethrow_with_cause() const {
  if ((rdstate() & badbit) && (buf_.error() || buf_.file().held_by_cursor())) {
    throw buf_.file().exception_for(std::make_error_code(std::errc::device_or_resource_busy));
  }
  throw;
}

void ostream::fail_with(iostate state) {
  detail::fail_with(*this, state, buf_.is_open(), [this]() -> std::optional<failure> {
    if (!buf_.error() && !buf_.file().held_by_cursor()) return std::nullopt;
    return buf_.file().exception_for(std::make_error_code(std::errc::device_or_resource_busy));
  });
}

}  // namespace mapout
