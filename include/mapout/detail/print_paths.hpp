// The ways of mapout::print: plain fields stored straight into the window, FMT_COMPILE's code and
// fmt's parsing into a buffer that is then written, and the C++20 literal cut when compiling.
#pragma once

#include <fmt/compile.h>
#include <fmt/format.h>

#include <cstddef>
#include <iterator>
#include <type_traits>

#include "mapout/cursor.hpp"
#include "mapout/detail/format_pieces.hpp"
#include "mapout/ostream.hpp"

namespace mapout::detail {

// Stores in place only text that no user code makes and nothing can interrupt: plain fields of
// plain types, whose longest text is known before a byte is stored. Anything else is formatted
// into a buffer first, since the window past the cursor may hold the file's bytes (after a seek
// back) that a formatter throwing halfway would overwrite.
struct print_window {
  // Writes the plain `format` of `args` when it fits the window; false, having stored nothing,
  // when it may not.
  template <typename Format, typename... T>
  static bool put_plainly(ostream& out, const Format& format, const T&... args) {
    if (!out.sentry_is_noop()) return false;
    streambuf& buf = out.buf_;
    char* const put = buf.pptr();
    char* const end = detail::put_plainly(put, buf.epptr(), format, args...);
    if (end == nullptr) return false;
    buf.pbump(static_cast<int>(end - put));
    return true;
  }
  template <typename Format, typename... T>
  static bool put_plainly(cursor& out, const Format& format, const T&... args) {
    char* const end = detail::put_plainly(out.put_, out.end_, format, args...);
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

inline void write_text(ostream& out, const fmt::memory_buffer& text) {
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}
inline void write_text(cursor& out, const fmt::memory_buffer& text) {
  out.write(text.data(), text.size());
}

// A format parsed at run time, as fmt parses it, into a buffer first: a field may fail after
// others were formatted, and the window may hold the file's bytes (after a seek back) that
// std::ofstream << fmt::format(...) would leave as they were.
// fmt::appender, not std::back_inserter: with the latter fmt formats into a scratch array of its
// own and copies each full one into the buffer (docs/decisions.md, "print: one header to read").
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
    if (print_window::put_plainly(out, known_format<S>(), args...)) return;
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
// check, cuts it once when compiling, as known_format cuts FMT_STRING, so that print writes plain
// "{}" fields of plain types itself. Literals of more than `capacity` bytes or `most_fields`
// fields, fields with a spec, and fmt::runtime formats keep fmt's parsing.
template <typename... T>
class literal_format {
 public:
  static constexpr std::size_t capacity = 256;
  static constexpr std::size_t most_fields = 16;

  template <typename S,
            typename = std::enable_if_t<std::is_convertible_v<const S&, fmt::string_view>>>
  consteval literal_format(const S& source)
      : checked_(source), source_(source), pieces_(cut_format<capacity, most_fields>(source_)) {
    pieces_.plain = pieces_.plain && pieces_.fields == sizeof...(T);
  }
  // fmt::runtime(text): parsed by fmt on every call.
  template <typename R,
            typename = std::enable_if_t<!std::is_convertible_v<const R&, fmt::string_view> &&
                                        std::is_constructible_v<fmt::format_string<T...>, R>>>
  literal_format(R runtime) : checked_(runtime), source_(text_of(checked_)) {}

  fmt::string_view source() const noexcept { return source_; }
  // Plain, with a field for each argument.
  bool plain() const noexcept { return pieces_.plain; }
  const format_pieces<capacity, most_fields>& pieces() const noexcept { return pieces_; }

 private:
  fmt::format_string<T...> checked_;
  fmt::string_view source_;
  format_pieces<capacity, most_fields> pieces_{};
};

// The format parameter of print for a string that is not known as a type: a literal, cut when
// compiling, taken by reference since by value it was copied on every call (docs/decisions.md,
// "print: one header to read"), or fmt::runtime.
template <typename... T>
using checked_format = const literal_format<std::type_identity_t<T>...>&;

template <typename Out, typename F, typename... T>
void print_checked(Out& out, const F& format, const T&... args) {
  // More arguments than fields a literal is cut with: never plain, and no piece to write after.
  if constexpr (sizeof...(T) <= F::most_fields && (is_plain_field<T> && ...)) {
    if (format.plain() && print_window::put_plainly(out, format, args...)) return;
  }
  print_parsed(out, format.source(), fmt::make_format_args(args...));
}
#else
template <typename... T>
using checked_format = fmt::format_string<T...>;

template <typename Out, typename F, typename... T>
void print_checked(Out& out, const F& format, T&... args) {
  print_parsed(out, text_of(format), fmt::make_format_args(args...));
}
#endif

}  // namespace mapout::detail
