// mapout::print: fmt's formatting straight into the window of a mapout::ostream or a
// mapout::cursor. Needs fmt (https://fmt.dev, Debian libfmt-dev); nothing else in mapout does.
#pragma once

#include <fmt/compile.h>
#include <fmt/format.h>

#include <climits>
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <string_view>
#include <type_traits>

#include "mapout/cursor.hpp"
#include "mapout/ostream.hpp"

namespace mapout {

namespace detail {

// What a compiled format writes besides its fields when every field is a plain "{}" ("{{" and "}}"
// count one character each), or -1 when a field has an index or a format spec: then nothing but
// formatting tells how long the text is.
template <typename S>
constexpr std::ptrdiff_t plain_format_text_size() {
  constexpr auto text = fmt::string_view(S());
  std::ptrdiff_t size = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool doubled = i + 1 < text.size() && text[i + 1] == c;
    if ((c == '{' || c == '}') && doubled) {
      ++i;
    } else if (c == '{') {
      if (i + 1 >= text.size() || text[i + 1] != '}') return -1;
      ++i;
      continue;
    }
    ++size;
  }
  return size;
}

// The longest text "{}" makes of `value`, or -1 when only formatting can tell.
template <typename T>
std::ptrdiff_t longest_plain_text(const T& value) noexcept {
  using type = std::remove_cv_t<std::remove_reference_t<T>>;
  if constexpr (std::is_same_v<type, bool>) {
    return 5;
  } else if constexpr (std::is_same_v<type, char>) {
    return 1;
  } else if constexpr (std::is_integral_v<type>) {
    return sizeof(type) <= 8 ? 20 : 40;
  } else if constexpr (std::is_convertible_v<const type&, std::string_view> &&
                       !std::is_pointer_v<std::decay_t<type>>) {
    return static_cast<std::ptrdiff_t>(std::string_view(value).size());
  } else {
    return -1;
  }
}

// Whether [put, end) certainly holds what `format` makes of `args`, told without formatting.
template <typename S, typename... T>
bool certainly_fits(const char* put, const char* end, const T&... args) noexcept {
  constexpr std::ptrdiff_t text = plain_format_text_size<S>();
  if constexpr (text < 0) {
    return false;
  } else {
    std::ptrdiff_t size = text;
    for (const std::ptrdiff_t field : {std::ptrdiff_t{0}, longest_plain_text(args)...}) {
      if (field < 0) return false;
      size += field;
    }
    return size < end - put && size <= INT_MAX;
  }
}

// Formats in place when the text fits the window. format_to_n may fill the window up to its end
// before finding the text too long; the slow path then writes the same text from the same place,
// so those bytes were going to be written anyway.
struct formatted_store {
  static bool into(ostream& out, fmt::string_view format, fmt::format_args args) {
    if (!out.sentry_is_noop()) return false;
    streambuf& buf = out.buf_;
    char* const put = buf.pptr();
    const auto room = static_cast<std::size_t>(buf.epptr() - put);
    const std::size_t size = fmt::vformat_to_n(put, room, format, args).size;
    // Strictly less, as everywhere the window is stored into; pbump takes an int.
    if (size >= room || size > INT_MAX) return false;
    buf.pbump(static_cast<int>(size));
    return true;
  }
  // A compiled format goes straight to the pointer when its longest text certainly fits (plain
  // "{}" fields of integers and strings), and is measured first otherwise: format_to_n takes it
  // one checked character at a time, many times slower than either.
  template <typename S, typename... T>
  static bool into_compiled(ostream& out, const S& format, const T&... args) {
    if (!out.sentry_is_noop()) return false;
    streambuf& buf = out.buf_;
    char* const put = buf.pptr();
    if (!certainly_fits<S>(put, buf.epptr(), args...)) {
      const std::size_t size = fmt::formatted_size(format, args...);
      if (size >= static_cast<std::size_t>(buf.epptr() - put) || size > INT_MAX) return false;
    }
    buf.pbump(static_cast<int>(fmt::format_to(put, format, args...) - put));
    return true;
  }
  template <typename S, typename... T>
  static bool into_compiled(cursor& out, const S& format, const T&... args) {
    if (!certainly_fits<S>(out.put_, out.end_, args...) &&
        fmt::formatted_size(format, args...) >= static_cast<std::size_t>(out.end_ - out.put_)) {
      return false;
    }
    out.put_ = fmt::format_to(out.put_, format, args...);
    return true;
  }
  static bool into(cursor& out, fmt::string_view format, fmt::format_args args) {
    const auto room = static_cast<std::size_t>(out.end_ - out.put_);
    const std::size_t size = fmt::vformat_to_n(out.put_, room, format, args).size;
    if (size >= room) return false;
    out.put_ += size;
    return true;
  }
};

template <typename S>
constexpr bool is_compiled_format = fmt::detail::is_compiled_string<S>::value;

}  // namespace detail

// Formats `args` with `format` as fmt::format does and writes the text: into the window when it
// fits, otherwise formatted into a buffer and written as by write(data, size). On a stream it is
// one unformatted output operation: the stream's flags, width and locale do not apply.
//
//   mapout::ostream out("gen/table.cpp");
//   mapout::print(out, FMT_STRING("{} = {};\n"), name, value);
//
// The format string is checked when compiling through FMT_STRING, and for every literal under
// C++20; a string known only at run time goes through fmt::runtime and may throw fmt::format_error.
// FMT_COMPILE("...") compiles it into formatting code as well: about a third of the instructions
// of parsing it on every call (docs/decisions.md, "print").
template <typename... T>
ostream& print(ostream& out, fmt::format_string<T...> format, T&&... args) {
  const auto arguments = fmt::make_format_args(args...);
  if (!detail::formatted_store::into(out, format, arguments)) {
    fmt::memory_buffer text;
    fmt::vformat_to(std::back_inserter(text), format, arguments);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  return out;
}

template <typename... T>
cursor& print(cursor& out, fmt::format_string<T...> format, T&&... args) {
  const auto arguments = fmt::make_format_args(args...);
  if (!detail::formatted_store::into(out, format, arguments)) {
    fmt::memory_buffer text;
    fmt::vformat_to(std::back_inserter(text), format, arguments);
    out.write(text.data(), text.size());
  }
  return out;
}

template <typename S, typename... T, typename = std::enable_if_t<detail::is_compiled_format<S>>>
ostream& print(ostream& out, const S& format, const T&... args) {
  if (!detail::formatted_store::into_compiled(out, format, args...)) {
    fmt::memory_buffer text;
    fmt::format_to(std::back_inserter(text), format, args...);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  return out;
}

template <typename S, typename... T, typename = std::enable_if_t<detail::is_compiled_format<S>>>
cursor& print(cursor& out, const S& format, const T&... args) {
  if (!detail::formatted_store::into_compiled(out, format, args...)) {
    fmt::memory_buffer text;
    fmt::format_to(std::back_inserter(text), format, args...);
    out.write(text.data(), text.size());
  }
  return out;
}

}  // namespace mapout
