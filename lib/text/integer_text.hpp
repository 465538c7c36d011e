// Integers as text in the bases printf writes: the C API's integer conversions, over the same
// decimal loop as mapout::ostream's inline numbers.
#pragma once

#include "mapout/detail/decimal.hpp"

namespace mapout::detail {

// Writes the digits of `magnitude` so that they end at `end`, in hexadecimal for 'x' and 'X' (in
// that case), octal for 'o', decimal otherwise; returns where they begin. Room for 22 digits.
template <typename Unsigned>
char* write_integer_backward(char* end, Unsigned magnitude, char conversion) noexcept {
  char* digits = end;
  if (conversion == 'x' || conversion == 'X') {
    const char* const symbols = conversion == 'x' ? "0123456789abcdef" : "0123456789ABCDEF";
    for (Unsigned rest = magnitude;; rest = static_cast<Unsigned>(rest >> 4)) {
      *--digits = symbols[rest & 15u];
      if (rest < 16) break;
    }
  } else if (conversion == 'o') {
    for (Unsigned rest = magnitude;; rest = static_cast<Unsigned>(rest >> 3)) {
      *--digits = static_cast<char>('0' + (rest & 7u));
      if (rest < 8) break;
    }
  } else {
    digits = write_digits_backward(end, magnitude);
  }
  return digits;
}

}  // namespace mapout::detail
