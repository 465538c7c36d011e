// mapout::print: fmt's formatting straight into the window of a mapout::ostream or a
// mapout::cursor. Needs fmt (https://fmt.dev, Debian libfmt-dev); nothing else in mapout does.
#pragma once

#include <fmt/compile.h>
#include <fmt/format.h>

#include <climits>
#include <cstddef>
#include <cstring>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "mapout/cursor.hpp"
#include "mapout/decimal.hpp"
#include "mapout/ostream.hpp"

namespace mapout {

namespace detail {

// A format string known when compiling (FMT_STRING or FMT_COMPILE) cut into its literal pieces,
// "{{" and "}}" unescaped, around fields that are all a plain "{}"; `plain` is false when a field
// has an index or a format spec.
template <typename S>
struct plain_format {
  static constexpr fmt::string_view source = fmt::string_view(S());
  struct layout {
    bool plain = true;
    std::size_t fields = 0;
    char text[source.size() + 1] = {};
    // ends[k]: where the piece before field k ends in `text`; ends[fields], where the last ends.
    std::size_t ends[source.size() + 1] = {};
  };
  static constexpr layout cut() {
    layout result{};
    std::size_t size = 0;
    for (std::size_t i = 0; i < source.size(); ++i) {
      const char c = source[i];
      const bool doubled = i + 1 < source.size() && source[i + 1] == c;
      if ((c == '{' || c == '}') && doubled) {
        result.text[size++] = c;
        ++i;
      } else if (c == '{' && i + 1 < source.size() && source[i + 1] == '}') {
        result.ends[result.fields++] = size;
        ++i;
      } else if (c == '{' || c == '}') {
        result.plain = false;
        return result;
      } else {
        result.text[size++] = c;
      }
    }
    result.ends[result.fields] = size;
    return result;
  }
  static constexpr layout pieces = cut();
  // The literal text's size, or -1 when the format is not plain.
  static constexpr std::ptrdiff_t text_size =
      pieces.plain ? static_cast<std::ptrdiff_t>(pieces.ends[pieces.fields]) : -1;
};

// The types whose "{}" mapout writes itself, exactly as fmt does: integers in decimal as
// std::to_chars writes them, char, bool, strings, and double and float through fmt's own code.
template <typename T>
constexpr bool is_plain_integer =
    std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char> &&
    !std::is_same_v<T, wchar_t> && !std::is_same_v<T, char16_t> && !std::is_same_v<T, char32_t> &&
    sizeof(T) <= 8;
// A C string: a literal argument arrives as a char array, which fmt prints up to its NUL.
template <typename T>
constexpr bool is_c_string =
    std::is_same_v<std::decay_t<T>, const char*> || std::is_same_v<std::decay_t<T>, char*>;
// Floating point in "{}" is fmt's shortest round trip, fixed or exponent as fmt chooses them, so
// fmt's own code for a compiled "{}" writes it (std::to_chars' shortest chooses differently:
// "1e+06" where fmt writes "1000000").
template <typename T>
constexpr bool is_plain_floating = std::is_same_v<T, double> || std::is_same_v<T, float>;
// The longest such text: a sign, 17 digits, the point and "e-308"; fmt writes fixed notation only
// for exponents from -4 to 15, at most 23 characters.
constexpr std::size_t longest_floating_text = 24;
template <typename T>
constexpr bool is_plain_field =
    is_plain_integer<T> || std::is_same_v<T, bool> || std::is_same_v<T, char> ||
    std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view> || is_c_string<T> ||
    is_plain_floating<T>;

// Whether print writes `format` of `T...` itself: every field a plain "{}" of a plain type.
template <typename S, typename... T>
constexpr bool writes_plainly() {
  if constexpr (plain_format<S>::text_size < 0) {
    return false;
  } else {
    return plain_format<S>::pieces.fields == sizeof...(T) && (is_plain_field<T> && ...);
  }
}

// The longest text a plain field makes.
template <typename T>
std::size_t longest_field(const T& value) noexcept {
  if constexpr (is_plain_integer<T>) {
    return std::numeric_limits<T>::digits10 + 1 + std::is_signed_v<T>;
  } else if constexpr (std::is_same_v<T, bool>) {
    return 5;
  } else if constexpr (std::is_same_v<T, char>) {
    return 1;
  } else if constexpr (is_plain_floating<T>) {
    return longest_floating_text;
  } else if constexpr (is_c_string<T>) {
    // fmt reports a null pointer: longer than any window, so that fmt sees it.
    if constexpr (std::is_pointer_v<T>) {
      if (value == nullptr) return std::numeric_limits<std::size_t>::max() / 2;
    }
    return std::strlen(value);
  } else {
    return value.size();
  }
}

// Writes a plain field at `put`, which has room for its longest text; returns its end.
template <typename T>
char* put_field(char* put, const T& value) noexcept {
  if constexpr (is_plain_integer<T>) {
    return write_decimal(put, value);
  } else if constexpr (std::is_same_v<T, bool>) {
    const std::string_view text = value ? "true" : "false";
    copy_short(put, text.data(), text.size());
    return put + text.size();
  } else if constexpr (std::is_same_v<T, char>) {
    *put = value;
    return put + 1;
  } else if constexpr (is_plain_floating<T>) {
    return fmt::format_to(put, FMT_COMPILE("{}"), value);
  } else if constexpr (is_c_string<T>) {
    const std::size_t size = std::strlen(value);
    copy_short(put, value, size);
    return put + size;
  } else {
    copy_short(put, value.data(), value.size());
    return put + value.size();
  }
}

// Writes the literal piece `K` of `S` at `put`: a copy of known size from a constant.
template <typename S, std::size_t K>
char* put_piece(char* put) noexcept {
  constexpr const auto& pieces = plain_format<S>::pieces;
  constexpr std::size_t begin = K == 0 ? 0 : pieces.ends[K - 1];
  constexpr std::size_t size = pieces.ends[K] - begin;
  if constexpr (size != 0) std::memcpy(put, pieces.text + begin, size);
  return put + size;
}

template <typename S, std::size_t... K, typename... T>
char* put_pieces(char* put, std::index_sequence<K...>, const T&... args) noexcept {
  put = put_piece<S, 0>(put);
  ((put = put_piece<S, K + 1>(put_field(put, args))), ...);
  return put;
}

// Writes `format` of `args` into [put, end) when its longest text fits there; returns the end of
// the text, or nullptr when it may not fit. One check for the whole text, then stores.
template <typename S, typename... T>
char* put_plainly(char* put, const char* end, const T&... args) noexcept {
  const std::size_t longest = static_cast<std::size_t>(plain_format<S>::text_size) +
                              (std::size_t{0} + ... + longest_field(args));
  // Strictly less, as everywhere the window is stored into; pbump takes an int.
  if (longest >= static_cast<std::size_t>(end - put) || longest > INT_MAX) return nullptr;
  return put_pieces<S>(put, std::index_sequence_for<T...>(), args...);
}

// Stores in place only text that no user code makes and nothing can interrupt: plain fields of
// plain types, whose longest text is known before a byte is stored. Anything else is formatted
// into a buffer first, since the window past the cursor may hold the file's bytes (after a seek
// back) that a formatter throwing halfway would overwrite.
struct formatted_store {
  // put_literally's text when it fits the window.
  template <typename Put>
  static bool into_window(ostream& out, Put put_text) {
    if (!out.sentry_is_noop()) return false;
    streambuf& buf = out.buf_;
    char* const put = buf.pptr();
    char* const end = put_text(put, buf.epptr());
    if (end == nullptr) return false;
    buf.pbump(static_cast<int>(end - put));
    return true;
  }
  template <typename Put>
  static bool into_window(cursor& out, Put put_text) {
    char* const end = put_text(out.put_, out.end_);
    if (end == nullptr) return false;
    out.put_ = end;
    return true;
  }
  template <typename S, typename... T>
  static bool into_plainly(ostream& out, const T&... args) {
    if (!out.sentry_is_noop()) return false;
    streambuf& buf = out.buf_;
    char* const put = buf.pptr();
    char* const end = put_plainly<S>(put, buf.epptr(), args...);
    if (end == nullptr) return false;
    buf.pbump(static_cast<int>(end - put));
    return true;
  }
  template <typename S, typename... T>
  static bool into_plainly(cursor& out, const T&... args) {
    char* const end = put_plainly<S>(out.put_, out.end_, args...);
    if (end == nullptr) return false;
    out.put_ = end;
    return true;
  }
};

// A format string known when compiling, FMT_STRING or FMT_COMPILE: in every fmt an empty class
// whose constexpr conversion gives the text.
template <typename S>
constexpr bool is_known_format =
    std::is_class_v<S>&& std::is_empty_v<S>&& std::is_constructible_v<fmt::string_view, S>;
// FMT_COMPILE: fmt::compiled_string is public from fmt 11; before, its conversion is the only one
// of the two that is explicit.
#if FMT_VERSION >= 110000
template <typename S>
constexpr bool is_compiled_format = std::is_base_of_v<fmt::compiled_string, S>;
#else
template <typename S>
constexpr bool is_compiled_format =
    is_known_format<S> && !std::is_convertible_v<S, fmt::string_view>;
#endif

// A checked format string's text: get() from fmt 10, where the conversion starts its way out.
template <typename Checked>
fmt::string_view text_of(const Checked& format) noexcept {
#if FMT_VERSION >= 100000
  return format.get();
#else
  return format;
#endif
}

inline void write_text(ostream& out, const char* data, std::size_t size) {
  out.write(data, static_cast<std::streamsize>(size));
}
inline void write_text(cursor& out, const char* data, std::size_t size) {
  out.write(data, size);
}
inline void write_text(ostream& out, const fmt::memory_buffer& text) {
  write_text(out, text.data(), text.size());
}
inline void write_text(cursor& out, const fmt::memory_buffer& text) {
  write_text(out, text.data(), text.size());
}

// A format parsed at run time, as fmt parses it, into a buffer first: a field may fail after
// others were formatted, and the window may hold the file's bytes (after a seek back) that
// std::ofstream << fmt::format(...) would leave as they were.
// fmt::appender, not std::back_inserter: with the latter fmt formats into a scratch array of its
// own and copies each full one into the buffer, a fifth of print's instructions on short lines.
template <typename Out>
void print_parsed(Out& out, fmt::string_view format, fmt::format_args args) {
  fmt::memory_buffer text;
  fmt::vformat_to(fmt::appender(text), format, args);
  write_text(out, text);
}

// A format known when compiling: written by mapout when every field is a plain "{}" of a plain
// type and the longest text fits; otherwise FMT_COMPILE's code, or FMT_STRING's check and then
// fmt's parsing at run time.
template <typename Out, typename S, typename... T>
void print_known(Out& out, const S& format, const T&... args) {
  if constexpr (writes_plainly<S, T...>()) {
    if (formatted_store::into_plainly<S>(out, args...)) return;
  }
  if constexpr (is_compiled_format<S>) {
    // Formatted once, into a buffer on the stack up to 500 bytes: a user formatter runs once as
    // in fmt::format, so no second run can make a longer text than a first one measured, or throw
    // after part of the text was stored. Not fmt::appender: with it GCC 12 warns falsely under
    // C++20 (-Wstringop-overflow in fmt's format_decimal).
    fmt::memory_buffer text;
    fmt::format_to(std::back_inserter(text), format, args...);
    write_text(out, text);
  } else {
    // Checked by fmt when compiling; the text itself is a constant, and so usable under C++20,
    // where the check is a consteval constructor.
    static_cast<void>(format);
    [[maybe_unused]] const fmt::format_string<T...> checked{S()};
    print_parsed(out, fmt::string_view(S()), fmt::make_format_args(args...));
  }
}

#if __cplusplus >= 202002L && defined(__cpp_consteval)
// Under C++20 a literal format is a constant argument: this constructor, consteval as fmt's own
// check, cuts it once when compiling, as plain_format does for FMT_STRING, so that print writes
// plain "{}" fields of plain types itself. Literals of more than `capacity` bytes or `most_fields`
// fields, fields with a spec, and fmt::runtime formats keep fmt's parsing.
template <typename... T>
class literal_format {
 public:
  static constexpr std::size_t capacity = 256;
  static constexpr std::size_t most_fields = 16;

  template <typename S,
            typename = std::enable_if_t<std::is_convertible_v<const S&, fmt::string_view>>>
  consteval literal_format(const S& source) : checked_(source), source_(source) {
    cut();
  }
  // fmt::runtime(text): parsed by fmt on every call.
  template <typename R,
            typename = std::enable_if_t<!std::is_convertible_v<const R&, fmt::string_view> &&
                                        std::is_constructible_v<fmt::format_string<T...>, R>>>
  literal_format(R runtime) : checked_(runtime), source_(text_of(checked_)) {}

  fmt::string_view source() const noexcept { return source_; }
  bool plain() const noexcept { return plain_; }
  // The literal text between fields, "{{" and "}}" unescaped: piece k ends at ends_[k].
  const char* text() const noexcept { return text_; }
  std::size_t piece_begin(std::size_t k) const noexcept { return k == 0 ? 0 : ends_[k - 1]; }
  std::size_t piece_end(std::size_t k) const noexcept { return ends_[k]; }
  std::size_t fields() const noexcept { return fields_; }

 private:
  consteval void cut() {
    std::size_t size = 0;
    plain_ = false;
    for (std::size_t i = 0; i < source_.size(); ++i) {
      if (size == capacity) return;
      const char c = source_[i];
      const bool doubled = i + 1 < source_.size() && source_[i + 1] == c;
      if ((c == '{' || c == '}') && doubled) {
        text_[size++] = c;
        ++i;
      } else if (c == '{' && i + 1 < source_.size() && source_[i + 1] == '}') {
        if (fields_ == most_fields) return;
        ends_[fields_++] = size;
        ++i;
      } else if (c == '{' || c == '}') {
        return;
      } else {
        text_[size++] = c;
      }
    }
    ends_[fields_] = size;
    plain_ = fields_ == sizeof...(T);
  }

  fmt::format_string<T...> checked_;
  fmt::string_view source_;
  bool plain_ = false;
  std::size_t fields_ = 0;
  char text_[capacity] = {};
  std::size_t ends_[most_fields + 1] = {};
};

template <typename... T>
using literal_format_for = literal_format<std::type_identity_t<T>...>;

// Writes a plain literal format of plain fields when its longest text fits [put, end); returns
// the end of the text, or nullptr.
template <typename F, std::size_t... K, typename... T>
char* put_literally(char* put, const char* end, const F& format, std::index_sequence<K...>,
                    const T&... args) noexcept {
  const std::size_t longest =
      format.piece_end(format.fields()) + (std::size_t{0} + ... + longest_field(args));
  if (longest >= static_cast<std::size_t>(end - put) || longest > INT_MAX) return nullptr;
  auto piece = [&](std::size_t k) {
    const std::size_t size = format.piece_end(k) - format.piece_begin(k);
    std::memcpy(put, format.text() + format.piece_begin(k), size);
    put += size;
  };
  piece(0);
  ((put = put_field(put, args), piece(K + 1)), ...);
  return put;
}

template <typename Out, typename F, typename... T>
void print_literal(Out& out, const F& format, const T&... args) {
  if constexpr ((is_plain_field<std::remove_cv_t<T>> && ...)) {
    if (format.plain() && formatted_store::into_window(out, [&](char* put, const char* end) {
          return put_literally(put, end, format, std::index_sequence_for<T...>(), args...);
        })) {
      return;
    }
  }
  print_parsed(out, format.source(), fmt::make_format_args(args...));
}
#endif

}  // namespace detail
// Formats `args` with `format` as fmt::format does and writes the text as by write(data, size).
// On a stream it is one unformatted output operation: the stream's flags, width and locale do not
// apply.
//
//   mapout::ostream out("gen/table.cpp");
//   mapout::print(out, FMT_STRING("{} = {};\n"), name, value);
//
// The format string is checked when compiling through FMT_STRING or FMT_COMPILE, and for every
// literal under C++20; a string known only at run time goes through fmt::runtime and may throw
// fmt::format_error. A format known when compiling whose fields are all a plain "{}" of integers,
// char, bool, C strings, std::string, std::string_view, double or float is written by mapout
// itself, one room check and then stores (a double as fmt's shortest round trip, byte for byte
// fmt::format's), at the cost of std::to_chars by hand; FMT_COMPILE compiles any other into
// formatting code, a third of the instructions of parsing it on every call (docs/decisions.md,
// "print").
//
// Each field is formatted once, as by fmt::format: a user's formatter runs once per field, and
// the text it makes is the text written, whatever it made before. Only plain fields of plain
// types, whose longest text is checked against the room before a byte is stored, go straight into
// the window; anything else is formatted into a buffer (on the stack up to 500 bytes) and then
// written. So a print that throws (fmt::format_error, a formatter's own exception,
// std::bad_alloc) changes no byte of the file, past its end neither, and leaves the position where
// it was. A formatter may write to the stream or cursor it formats for: its bytes come first, as
// with std::ofstream << fmt::format(...).
#if __cplusplus >= 202002L && defined(__cpp_consteval)
// The cut literal by reference: it is some 440 bytes, which a parameter by value copied on every
// call (60 of the 376 instructions of a short generated line).
template <typename... T>
ostream& print(ostream& out, const detail::literal_format_for<T...>& format, T&&... args) {
  detail::print_literal(out, format, args...);
  return out;
}

template <typename... T>
cursor& print(cursor& out, const detail::literal_format_for<T...>& format, T&&... args) {
  detail::print_literal(out, format, args...);
  return out;
}
#else
template <typename... T>
ostream& print(ostream& out, fmt::format_string<T...> format, T&&... args) {
  detail::print_parsed(out, detail::text_of(format), fmt::make_format_args(args...));
  return out;
}

template <typename... T>
cursor& print(cursor& out, fmt::format_string<T...> format, T&&... args) {
  detail::print_parsed(out, detail::text_of(format), fmt::make_format_args(args...));
  return out;
}
#endif

template <typename S, typename... T, typename = std::enable_if_t<detail::is_known_format<S>>>
ostream& print(ostream& out, const S& format, T&&... args) {
  detail::print_known(out, format, args...);
  return out;
}

template <typename S, typename... T, typename = std::enable_if_t<detail::is_known_format<S>>>
cursor& print(cursor& out, const S& format, T&&... args) {
  detail::print_known(out, format, args...);
  return out;
}

}  // namespace mapout
