// Floating point as std::num_put writes it, through std::to_chars: printf's conversions in the
// classic locale are to_chars' formats, with '#', '+' and uppercase applied here.
#include "text/floating_text.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <system_error>

namespace mapout::detail {
namespace {

using fmtflags = std::ios_base::fmtflags;

// Makes room for one character at `at` by moving [at, end) up; returns the new end.
char* insert_at(char* at, char* end, char c) noexcept {
  std::memmove(at + 1, at, static_cast<std::size_t>(end - at));
  *at = c;
  return end + 1;
}

// %#.*g: %e or %f by the exponent of the value rounded to `digits` significant digits, as
// printf chooses, keeping trailing zeros and the decimal point.
template <typename T>
std::to_chars_result general_with_point(char* first, char* last, T value, int digits) noexcept {
  const std::to_chars_result exponential =
      std::to_chars(first, last, value, std::chars_format::scientific, digits - 1);
  if (exponential.ec != std::errc{}) return exponential;
  const char* e = exponential.ptr - 1;
  while (*e != 'e') --e;
  int exponent = 0;
  std::from_chars(e + (e[1] == '+' ? 2 : 1), exponential.ptr, exponent);
  // Where rounding carried into a new decade (9.96 to 1.0e+01), glibc keeps the digit count of
  // the decade below: leave those to num_put.
  const char* const mantissa = first + (*first == '-');
  if (mantissa[0] == '1' &&
      (e == mantissa + 1 || std::all_of(mantissa + 2, e, [](char c) { return c == '0'; })) &&
      (exponent == -4 || exponent == digits)) {
    return {last, std::errc::not_supported};
  }
  if (exponent < -4 || exponent >= digits) {
    if (digits != 1) return exponential;
    char* const digit = first + (*first == '-');
    return {insert_at(digit + 1, exponential.ptr, '.'), std::errc{}};
  }
  const std::to_chars_result fixed =
      std::to_chars(first, last, value, std::chars_format::fixed, digits - 1 - exponent);
  if (fixed.ec != std::errc{} || digits - 1 - exponent != 0) return fixed;
  if (fixed.ptr == last) return {last, std::errc::value_too_large};
  *fixed.ptr = '.';
  return {fixed.ptr + 1, std::errc{}};
}

template <typename T>
char* format(char* first, char* last, T value, fmtflags flags, std::streamsize precision) noexcept {
  // The sign, the "0x" of hexfloat and a decimal point are added in place: keep room for them.
  constexpr std::ptrdiff_t added = 4;
  if (last - first <= added) return nullptr;
  // libstdc++'s num_put takes a negative precision as 6, and any other as an int.
  if (precision > std::numeric_limits<int>::max()) return nullptr;
  const int digits = precision < 0 ? 6 : static_cast<int>(precision);
  const fmtflags field = flags & std::ios_base::floatfield;
  const bool point = (flags & std::ios_base::showpoint) != 0;
  // A NaN's sign is the C library's to write or leave out, as its printf does (mingw-w64's
  // leaves it out): the standard facet writes it.
  if (value != value) return nullptr;
  const bool finite = value - value == 0;
  char* const begin = first + 1;
  char* const end_of_room = last - (added - 1);
  std::to_chars_result text{};
  if (field == std::ios_base::fixed) {
    text = std::to_chars(begin, end_of_room, value, std::chars_format::fixed, digits);
    if (text.ec == std::errc{} && point && digits == 0 && finite) *text.ptr++ = '.';
  } else if (field == std::ios_base::scientific) {
    text = std::to_chars(begin, end_of_room, value, std::chars_format::scientific, digits);
    if (text.ec == std::errc{} && point && digits == 0 && finite) {
      text.ptr = insert_at(begin + (*begin == '-') + 1, text.ptr, '.');
    }
  } else if (field == (std::ios_base::fixed | std::ios_base::scientific)) {
    // glibc writes a long double's leading hex digit from its explicit integer bit; to_chars does
    // not.
    if constexpr (!std::is_same_v<T, double>) return nullptr;
    text = std::to_chars(begin, end_of_room, value, std::chars_format::hex);
    if (text.ec == std::errc{} && finite) {
      char* const digit = begin + (*begin == '-');
      text.ptr = insert_at(digit, text.ptr, '0');
      text.ptr = insert_at(digit + 1, text.ptr, 'x');
      if (point && std::memchr(digit, '.', static_cast<std::size_t>(text.ptr - digit)) == nullptr)
        text.ptr = insert_at(digit + 3, text.ptr, '.');
    }
  } else if (point && finite) {
    text = general_with_point(begin, end_of_room, value, digits == 0 ? 1 : digits);
  } else {
    text = std::to_chars(begin, end_of_room, value, std::chars_format::general, digits);
  }
  if (text.ec != std::errc{}) return nullptr;
  char* put = begin;
  if ((flags & std::ios_base::showpos) && *begin != '-') *--put = '+';
  if ((flags & std::ios_base::uppercase) && field != std::ios_base::fixed) {
    for (char* c = begin; c != text.ptr; ++c) {
      if (*c >= 'a' && *c <= 'z') *c = static_cast<char>(*c - 'a' + 'A');
    }
  }
  if (put != first) std::memmove(first, put, static_cast<std::size_t>(text.ptr - put));
  return first + (text.ptr - put);
}

}  // namespace

char* floating_text(char* first, char* last, double value, fmtflags flags,
                    std::streamsize precision) noexcept {
  return format(first, last, value, flags, precision);
}

char* floating_text(char* first, char* last, long double value, fmtflags flags,
                    std::streamsize precision) noexcept {
  return format(first, last, value, flags, precision);
}

}  // namespace mapout::detail
