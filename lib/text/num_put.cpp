// mapout::num_put: the text of a number made by std::to_chars, padded as std::num_put pads it.
#include "mapout/num_put.hpp"

#include <algorithm>
#include <type_traits>

#include "mapout/detail/decimal.hpp"
#include "text/floating_text.hpp"
#include "text/punctuation.hpp"

namespace mapout {
namespace {

// Writes `text` to `out` in a field of io.width(), filled as std::num_put fills it: after the
// sign (or a "0x") for internal, before the text for right and by default, after it for left.
// Resets the width, as every formatted output does.
std::ostreambuf_iterator<char> put_padded(std::ostreambuf_iterator<char> out, std::ios_base& io,
                                          char fill, const char* text, const char* end) {
  const std::streamsize width = io.width();
  io.width(0);
  const std::streamsize size = end - text;
  if (width <= size) return std::copy(text, end, out);
  const std::streamsize padding = width - size;
  const std::ios_base::fmtflags adjust = io.flags() & std::ios_base::adjustfield;
  if (adjust == std::ios_base::left) return std::fill_n(std::copy(text, end, out), padding, fill);
  const char* split = text;
  if (adjust == std::ios_base::internal) {
    if (*text == '-' || *text == '+') {
      split = text + 1;
    } else if (*text == '0' && size > 1 && (text[1] == 'x' || text[1] == 'X')) {
      split = text + 2;
    }
  }
  out = std::copy(text, split, out);
  return std::copy(split, end, std::fill_n(out, padding, fill));
}

// A stream's answer to punctuates_classically, kept in its iword from its first number until an
// imbue or copyfmt clears it: per number one compare, whatever facets the locale adds or replaces.
enum : long { unwatched = 0, undecided, classic, other };

int decision_index() {
  static const int index = std::ios_base::xalloc();
  return index;
}

// copyfmt copies the iword with the callback list, so a stream's word is watched iff our callback
// is registered on it.
void forget_decision(std::ios_base::event event, std::ios_base& io, int index) {
  if (event != std::ios_base::erase_event) io.iword(index) = undecided;
}

bool decide(std::ios_base& io, long& decision, int index) {
  if (decision == unwatched) io.register_callback(forget_decision, index);
  decision = detail::punctuates_classically(io.getloc()) ? classic : other;
  return decision == classic;
}

bool prints_classically(std::ios_base& io) {
  const int index = decision_index();
  long& decision = io.iword(index);
  if (decision == classic) return true;
  if (decision == other) return false;
  return decide(io, decision, index);
}

}  // namespace

template <typename Integer>
num_put::iter_type num_put::put_integer(iter_type out, std::ios_base& io, char_type fill,
                                        Integer value) const {
  // Decimal without showpos: oct, hex and '+' stay with the standard facet.
  const std::ios_base::fmtflags basefield = io.flags() & std::ios_base::basefield;
  if (basefield == std::ios_base::oct || basefield == std::ios_base::hex ||
      (std::is_signed_v<Integer> && (io.flags() & std::ios_base::showpos)) ||
      !prints_classically(io)) {
    return std::num_put<char>::do_put(out, io, fill, value);
  }
  char text[24];
  return put_padded(out, io, fill, text, detail::write_decimal(text, value));
}

template <typename Floating>
num_put::iter_type num_put::put_floating(iter_type out, std::ios_base& io, char_type fill,
                                         Floating value) const {
  // Room for every double with a precision up to 40 in any format; longer texts (a huge value in
  // fixed with a long precision) are left to the standard facet.
  char text[400];
  const char* const end =
      prints_classically(io)
          ? detail::floating_text(text, text + sizeof text, value, io.flags(), io.precision())
          : nullptr;
  if (end == nullptr) return std::num_put<char>::do_put(out, io, fill, value);
  return put_padded(out, io, fill, text, end);
}

num_put::iter_type num_put::do_put(iter_type out, std::ios_base& io, char_type fill,
                                   long value) const {
  return put_integer(out, io, fill, value);
}
num_put::iter_type num_put::do_put(iter_type out, std::ios_base& io, char_type fill,
                                   unsigned long value) const {
  return put_integer(out, io, fill, value);
}
num_put::iter_type num_put::do_put(iter_type out, std::ios_base& io, char_type fill,
                                   long long value) const {
  return put_integer(out, io, fill, value);
}
num_put::iter_type num_put::do_put(iter_type out, std::ios_base& io, char_type fill,
                                   unsigned long long value) const {
  return put_integer(out, io, fill, value);
}
num_put::iter_type num_put::do_put(iter_type out, std::ios_base& io, char_type fill,
                                   double value) const {
  return put_floating(out, io, fill, value);
}
num_put::iter_type num_put::do_put(iter_type out, std::ios_base& io, char_type fill,
                                   long double value) const {
  return put_floating(out, io, fill, value);
}

const std::locale& numbers_locale() {
  // Never destroyed: streams destroyed at exit may still hold it.
  static const std::locale* const locale =
      new std::locale(std::locale::classic(), new mapout::num_put);
  return *locale;
}

}  // namespace mapout
