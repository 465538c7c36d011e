// mapout::print: fmt's formatting straight into the window of a mapout::ostream or a
// mapout::cursor. Needs fmt (https://fmt.dev, Debian libfmt-dev); nothing else in mapout does.
#pragma once

#include <fmt/compile.h>
#include <fmt/format.h>

#include <type_traits>

#include "mapout/cursor.hpp"
#include "mapout/detail/print_paths.hpp"
#include "mapout/ostream.hpp"

namespace mapout {

// Formats `args` with `format` as fmt::format does and writes the text as by write(data, size).
// On a stream it is one unformatted output operation: the stream's flags, width and locale do not
// apply.
//
//   mapout::ostream out("gen/table.cpp");
//   mapout::print(out, FMT_STRING("{} = {};\n"), name, value);
//
// `format` is checked when compiling through FMT_STRING or FMT_COMPILE, and for every literal
// under C++20; a string known only at run time goes through fmt::runtime and may throw
// fmt::format_error. Fields that are all a plain "{}" of integers, char, bool, strings, double or
// float in such a format are written by mapout itself, one room check and then stores; anything
// else is formatted once by fmt into a buffer and then written. So a print that throws (a format
// error, a formatter's own exception, std::bad_alloc) changes no byte of the file and leaves the
// position where it was. A formatter may write to the stream or cursor it formats for: its bytes
// come first, as with std::ofstream << fmt::format(...).
template <typename... T>
ostream& print(ostream& out, detail::checked_format<T...> format, T&&... args) {
  detail::print_checked(out, format, args...);
  return out;
}

template <typename... T>
cursor& print(cursor& out, detail::checked_format<T...> format, T&&... args) {
  detail::print_checked(out, format, args...);
  return out;
}

// FMT_STRING or FMT_COMPILE.
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
