// Integers in decimal, as std::to_chars writes them, always inline: called from a large function
// GCC may leave std::to_chars out of line, where its base is no longer known to be 10.
#pragma once

#include <type_traits>

#if defined(__GNUC__)
#define MAPOUT_DECIMAL_INLINE [[gnu::always_inline]] inline
#else
#define MAPOUT_DECIMAL_INLINE inline
#endif

namespace mapout::detail {

// "00", "01", ..., "99": two digits a step, as std::to_chars makes them.
inline constexpr char decimal_pairs[201] =
    "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546"
    "4748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293"
    "949596979899";

// Writes the decimal digits of `magnitude` so that they end at `end`, two a step, and returns where
// they begin: the loop behind write_decimal and the C API's printf.
template <typename Unsigned>
MAPOUT_DECIMAL_INLINE char* write_digits_backward(char* end, Unsigned magnitude) noexcept {
  char* digits = end;
  while (magnitude >= 100) {
    const auto pair = static_cast<unsigned>(magnitude % 100u) * 2;
    magnitude = static_cast<Unsigned>(magnitude / 100u);
    digits -= 2;
    digits[0] = decimal_pairs[pair];
    digits[1] = decimal_pairs[pair + 1];
  }
  if (magnitude >= 10) {
    const auto pair = static_cast<unsigned>(magnitude) * 2;
    digits -= 2;
    digits[0] = decimal_pairs[pair];
    digits[1] = decimal_pairs[pair + 1];
  } else {
    *--digits = static_cast<char>('0' + magnitude);
  }
  return digits;
}

// Writes `value` in decimal at `put`, which has room for its longest text (20 characters for 64
// bits, the sign included); returns the end.
template <typename Integer>
MAPOUT_DECIMAL_INLINE char* write_decimal(char* put, Integer value) noexcept {
  using unsigned_type = std::make_unsigned_t<Integer>;
  auto magnitude = static_cast<unsigned_type>(value);
  if constexpr (std::is_signed_v<Integer>) {
    if (value < 0) {
      *put++ = '-';
      magnitude = static_cast<unsigned_type>(unsigned_type{0} - magnitude);
    }
  }
  int size = 1;
  for (unsigned_type rest = magnitude;; rest = static_cast<unsigned_type>(rest / 10000u)) {
    if (rest < 10) break;
    if (rest < 100) {
      size += 1;
      break;
    }
    if (rest < 1000) {
      size += 2;
      break;
    }
    if (rest < 10000) {
      size += 3;
      break;
    }
    size += 4;
  }
  char* const end = put + size;
  write_digits_backward(end, magnitude);
  return end;
}

}  // namespace mapout::detail

#undef MAPOUT_DECIMAL_INLINE
