// mapout::print: fmt's formatting straight into the window of a mapout::ostream or a
// mapout::cursor. Needs fmt (https://fmt.dev, Debian libfmt-dev); nothing else in mapout does.
#pragma once

#include <fmt/compile.h>
#include <fmt/format.h>

#include <climits>
#include <cstddef>
#include <iterator>
#include <type_traits>

#include "mapout/cursor.hpp"
#include "mapout/ostream.hpp"

namespace mapout {

namespace detail {

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
  // A compiled format is measured first: format_to_n takes it one checked character at a time,
  // many times slower than measuring and then formatting straight to a pointer.
  template <typename S, typename... T>
  static bool into_compiled(ostream& out, const S& format, const T&... args) {
    if (!out.sentry_is_noop()) return false;
    streambuf& buf = out.buf_;
    const std::size_t size = fmt::formatted_size(format, args...);
    if (size >= static_cast<std::size_t>(buf.epptr() - buf.pptr()) || size > INT_MAX) return false;
    fmt::format_to(buf.pptr(), format, args...);
    buf.pbump(static_cast<int>(size));
    return true;
  }
  template <typename S, typename... T>
  static bool into_compiled(cursor& out, const S& format, const T&... args) {
    const std::size_t size = fmt::formatted_size(format, args...);
    if (size >= static_cast<std::size_t>(out.end_ - out.put_)) return false;
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
