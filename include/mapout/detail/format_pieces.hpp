// What mapout::print writes itself: a format string cut into its literal pieces around plain "{}"
// fields, and those fields of plain types, stored after one check of the room for the longest text.
#pragma once

#include <fmt/compile.h>
#include <fmt/format.h>

#include <climits>
#include <cstddef>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "mapout/detail/copy_short.hpp"
#include "mapout/detail/decimal.hpp"

namespace mapout::detail {

// A format string cut into its literal text, "{{" and "}}" unescaped, around fields that are all a
// plain "{}": piece k of `text` ends at ends[k], the last piece at ends[fields].
template <std::size_t Capacity, std::size_t MostFields>
struct format_pieces {
  // False when a field has an index or a spec, or the text or the fields pass the limits.
  bool plain = false;
  std::size_t fields = 0;
  char text[Capacity] = {};
  std::size_t ends[MostFields + 1] = {};

  constexpr std::size_t size() const noexcept { return ends[fields]; }
};

// Cuts `source` into at most Capacity bytes of text and MostFields fields, as fmt reads it.
template <std::size_t Capacity, std::size_t MostFields>
constexpr format_pieces<Capacity, MostFields> cut_format(fmt::string_view source) noexcept {
  format_pieces<Capacity, MostFields> cut{};
  std::size_t size = 0;
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (size == Capacity) return cut;
    const char c = source[i];
    const bool doubled = i + 1 < source.size() && source[i + 1] == c;
    if ((c == '{' || c == '}') && doubled) {
      cut.text[size++] = c;
      ++i;
    } else if (c == '{' && i + 1 < source.size() && source[i + 1] == '}') {
      if (cut.fields == MostFields) return cut;
      cut.ends[cut.fields++] = size;
      ++i;
    } else if (c == '{' || c == '}') {
      return cut;
    } else {
      cut.text[size++] = c;
    }
  }
  cut.ends[cut.fields] = size;
  cut.plain = true;
  return cut;
}

// A format string known when compiling (FMT_STRING or FMT_COMPILE), cut when compiling: its text
// is never longer than the string, nor its fields more. The pieces belong to the type, so that
// they are constants in every function the writer below is instantiated in, inlined or not.
template <typename S>
struct known_format {
  static constexpr std::size_t source_size = fmt::string_view(S()).size();
  static constexpr format_pieces<source_size + 1, source_size> cut =
      cut_format<source_size + 1, source_size>(fmt::string_view(S()));
  constexpr const format_pieces<source_size + 1, source_size>& pieces() const noexcept {
    return cut;
  }
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

// Whether print writes the known format S of `T...` itself: every field a plain "{}" of a plain
// type.
template <typename S, typename... T>
constexpr bool writes_plainly() {
  return known_format<S>::cut.plain && known_format<S>::cut.fields == sizeof...(T) &&
         (is_plain_field<T> && ...);
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

// Writes piece K of `format`'s pieces at `put`: of known size when they are constants.
template <std::size_t K, typename Format>
char* put_piece(char* put, const Format& format) noexcept {
  const auto& cut = format.pieces();
  const std::size_t begin = K == 0 ? 0 : cut.ends[K - 1];
  const std::size_t size = cut.ends[K] - begin;
  std::memcpy(put, cut.text + begin, size);
  return put + size;
}

template <typename Format, std::size_t... K, typename... T>
char* put_pieces(char* put, const Format& format, std::index_sequence<K...>,
                 const T&... args) noexcept {
  put = put_piece<0>(put, format);
  ((put = put_piece<K + 1>(put_field(put, args), format)), ...);
  return put;
}

// Writes `format` of `args`, a plain cut format (one with pieces()), into [put, end) when its
// longest text fits there; returns the end of the text, or nullptr when it may not fit. One check
// for the whole text, then stores.
template <typename Format, typename... T>
char* put_plainly(char* put, const char* end, const Format& format, const T&... args) noexcept {
  const std::size_t longest = format.pieces().size() + (std::size_t{0} + ... + longest_field(args));
  // Strictly less, as everywhere the window is stored into; pbump takes an int.
  if (longest >= static_cast<std::size_t>(end - put) || longest > INT_MAX) return nullptr;
  return put_pieces(put, format, std::index_sequence_for<T...>(), args...);
}

}  // namespace mapout::detail
