// mapout_printf and mapout_vprintf: the format parsed once per call, the common conversions
// written into the window here as glibc's vfprintf writes them, the others handed to snprintf.
#include <langinfo.h>
#include <sys/types.h>

#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cwchar>
#include <ios>
#include <memory>
#include <new>

#include "c/c_handle.hpp"
#include "mapout/detail/copy_short.hpp"
#include "platform/platform.hpp"
#include "text/floating_text.hpp"
#include "text/integer_text.hpp"

namespace mapout::detail {
namespace {

// The bytes of one call, stored at the file's cursor, and their count for the return value.
class printf_output {
 public:
  explicit printf_output(c_handle& h) noexcept : h_(h) {}

  void append(const char* data, std::size_t size) noexcept {
    count_ += size;
    if (size <= room()) {
      copy_short(h_.put, data, size);
      h_.put += size;
      return;
    }
    append_through_file(data, size);
  }

  void fill(char c, std::size_t size) noexcept {
    count_ += size;
    while (size > 0 && !failed_) {
      if (room() == 0 && !make_room(size)) return;
      const std::size_t part = size < room() ? size : room();
      std::memset(h_.put, c, part);
      h_.put += part;
      size -= part;
    }
  }

  std::uint64_t count() const noexcept { return count_; }
  bool failed() const noexcept { return failed_; }

 private:
  std::size_t room() const noexcept { return static_cast<std::size_t>(h_.end - h_.put); }

  bool make_room(std::size_t wanted) noexcept {
    mapout::window view = view_of(h_);
    const std::error_code ec = h_.file.make_room(view, wanted);
    show_window(h_, view);
    if (ec) {
      fail(h_, ec, "write");
      failed_ = true;
    }
    return !ec;
  }

  void append_through_file(const char* data, std::size_t size) noexcept {
    if (failed_) return;
    mapout::window view = view_of(h_);
    const std::error_code ec = h_.file.write(view, data, size);
    show_window(h_, view);
    if (ec) {
      fail(h_, ec, "write");
      failed_ = true;
    }
  }

  c_handle& h_;
  std::uint64_t count_ = 0;
  bool failed_ = false;
};

// The argument a length modifier names, for the conversions written here.
enum class length { none, hh, h, l, ll, j, z, t, big_l };

// One conversion specification, as parsed before any of its arguments is taken.
struct spec {
  bool left = false;           // '-'
  bool plus = false;           // '+'
  bool space = false;          // ' '
  bool alternate = false;      // '#'
  bool zero = false;           // '0'
  bool grouping = false;       // '\'': the locale's thousands separator
  bool locale_digits = false;  // 'I': the locale's digits
  bool width_star = false;
  bool precision_star = false;
  bool positional = false;  // "%1$d" or "*1$": numbered arguments
  bool overflow = false;    // a width or precision past INT_MAX
  int width = 0;
  int precision = -1;      // -1: none
  int width_argument = 0;  // what the stars took, as given, for snprintf
  int precision_argument = 0;
  length size = length::none;
  char length_letter = '\0';  // the modifier's first letter as written ('q', 'L', ...)
  int length_chars = 0;
  char conversion = '\0';
  const char* text = nullptr;  // from '%' to the conversion, as written, for snprintf
  std::size_t text_size = 0;
};

// Digits as glibc's read_int takes them: -1 past INT_MAX.
int read_number(const char*& at) noexcept {
  int value = 0;
  for (; *at >= '0' && *at <= '9'; ++at) {
    const int digit = *at - '0';
    if (value < 0 || value > (INT_MAX - digit) / 10) {
      value = -1;
    } else {
      value = value * 10 + digit;
    }
  }
  return value;
}

// A '$' after digits makes the specification positional.
bool numbered(const char* at) noexcept {
  while (*at >= '0' && *at <= '9') ++at;
  return *at == '$';
}

// Parses the specification after the '%' at `at_percent`; returns where the text after it begins.
const char* parse(const char* at_percent, spec& s) noexcept {
  const char* at = at_percent + 1;
  if (*at >= '1' && *at <= '9' && numbered(at)) s.positional = true;
  for (;; ++at) {
    switch (*at) {
      case '-':
        s.left = true;
        continue;
      case '+':
        s.plus = true;
        continue;
      case ' ':
        s.space = true;
        continue;
      case '#':
        s.alternate = true;
        continue;
      case '0':
        s.zero = true;
        continue;
      case '\'':
        s.grouping = true;
        continue;
      case 'I':
        s.locale_digits = true;
        continue;
      default:
        break;
    }
    break;
  }
  if (*at == '*') {
    s.width_star = true;
    if (numbered(++at)) s.positional = true;
  } else if (*at >= '1' && *at <= '9') {
    s.width = read_number(at);
    if (s.width < 0) s.overflow = true;
  }
  if (*at == '.') {
    if (*++at == '*') {
      s.precision_star = true;
      if (numbered(++at)) s.positional = true;
    } else {
      s.precision = read_number(at);
      if (s.precision < 0) s.overflow = true;
    }
  }
  s.length_letter = *at;
  switch (*at) {
    case 'h':
      s.size = at[1] == 'h' ? length::hh : length::h;
      break;
    case 'l':
      s.size = at[1] == 'l' ? length::ll : length::l;
      break;
    case 'q':
    case 'L':
      s.size = length::big_l;
      break;
    case 'j':
      s.size = length::j;
      break;
    case 'z':
    case 'Z':
      s.size = length::z;
      break;
    case 't':
      s.size = length::t;
      break;
    default:
      break;
  }
  s.length_chars = s.size == length::hh || s.size == length::ll ? 2
                   : s.size == length::none                     ? 0
                                                                : 1;
  at += s.length_chars;
  s.conversion = *at;
  const char* const next = *at == '\0' ? at : at + 1;
  s.text = at_percent;
  s.text_size = static_cast<std::size_t>(next - at_percent);
  return next;
}

// How a specification is written.
enum class route {
  here,       // by this file
  snprintf,   // by snprintf, with the argument its type names
  remaining,  // with the rest of the format, by vsnprintf: its arguments are not known here
};

// The specification as written, which snprintf is given: longer ones go with the rest.
constexpr std::size_t longest_delegated = 63;

// How the C library's printf differs from glibc's, which this file writes; asked once, at the
// first call, so that a call from another file's static initializer finds it.
const platform::printf_dialect& dialect() noexcept {
  static const platform::printf_dialect answer = platform::c_printf_dialect();
  return answer;
}

// Whether the C library reads the length as glibc does: glibc's own letters are not every
// library's ("%qd" and "%Zd" are text to mingw-w64, "%Ld" an int, and 'I' a length).
bool length_is_glibcs(const spec& s) noexcept {
  if (dialect().glibc_lengths) return true;
  const bool integer = s.conversion != 'e' && s.conversion != 'E' && s.conversion != 'f' &&
                       s.conversion != 'F' && s.conversion != 'g' && s.conversion != 'G' &&
                       s.conversion != 'a' && s.conversion != 'A';
  return !s.locale_digits && s.length_letter != 'q' && s.length_letter != 'Z' &&
         !(s.length_letter == 'L' && integer);
}

route route_of(const spec& s) noexcept {
  if (s.positional || s.text_size > longest_delegated || !length_is_glibcs(s)) {
    return route::remaining;
  }
  const bool by_locale = s.grouping || s.locale_digits;
  switch (s.conversion) {
    case 'd':
    case 'i':
    case 'o':
    case 'u':
    case 'x':
    case 'X':
      return by_locale ? route::snprintf : route::here;
    case 'e':
    case 'E':
    case 'f':
    case 'F':
    case 'g':
    case 'G':
    case 'a':
    case 'A':
      if (s.size != length::none && s.size != length::l && s.size != length::big_l) {
        return route::remaining;
      }
      return s.conversion == 'a' || s.conversion == 'A' || by_locale ? route::snprintf
                                                                     : route::here;
    case 'c':
    case 's':
      if (s.size == length::l) return route::snprintf;
      return s.size == length::none ? route::here : route::remaining;
    case 'C':
    case 'S':
    case 'p':
    case 'm':
      return s.size == length::none ? route::snprintf : route::remaining;
    case 'n':
      return route::here;
    default:
      return route::remaining;
  }
}

// snprintf of the specification as written, with what its stars took: a library may read "%20p"
// and "%*p" apart (mingw-w64 pads only the second with zeros).
template <typename Value>
int print_one(char* text, std::size_t size, const spec& s, Value value) noexcept {
  char format[longest_delegated + 1];
  std::memcpy(format, s.text, s.text_size);
  format[s.text_size] = '\0';
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  if (s.width_star && s.precision_star) {
    return std::snprintf(text, size, format, s.width_argument, s.precision_argument, value);
  }
  if (s.width_star) return std::snprintf(text, size, format, s.width_argument, value);
  if (s.precision_star) return std::snprintf(text, size, format, s.precision_argument, value);
  return std::snprintf(text, size, format, value);
#pragma GCC diagnostic pop
}

// Writes what snprintf writes for one conversion; false, with its errno, where it fails.
template <typename Value>
bool delegate(printf_output& out, const spec& s, Value value) noexcept {
  char text[512];
  const int size = print_one(text, sizeof text, s, value);
  if (size < 0) return false;
  if (static_cast<std::size_t>(size) < sizeof text) {
    out.append(text, static_cast<std::size_t>(size));
    return true;
  }
  std::unique_ptr<char[]> large(new (std::nothrow) char[static_cast<std::size_t>(size) + 1]);
  if (!large) {
    errno = ENOMEM;
    return false;
  }
  print_one(large.get(), static_cast<std::size_t>(size) + 1, s, value);
  out.append(large.get(), static_cast<std::size_t>(size));
  return true;
}

// A field of `width`: spaces before the text, or after it with '-'.
void padded(printf_output& out, const spec& s, const char* text, std::size_t size) noexcept {
  const std::size_t width = static_cast<std::size_t>(s.width);
  const std::size_t padding = width > size ? width - size : 0;
  if (!s.left) out.fill(' ', padding);
  out.append(text, size);
  if (s.left) out.fill(' ', padding);
}

// A number: `head` (its sign or "0x") then zeros to the precision, or to the width with '0',
// then its digits.
void number(printf_output& out, const spec& s, const char* head, std::size_t head_size,
            const char* digits, std::size_t digit_count, std::size_t zeros) noexcept {
  const std::size_t size = head_size + zeros + digit_count;
  const std::size_t width = static_cast<std::size_t>(s.width);
  std::size_t padding = width > size ? width - size : 0;
  if (padding == 0 && zeros == 0 && head + head_size == digits) {
    out.append(head, size);
    return;
  }
  const bool zero_fill = s.zero && !s.left && s.precision < 0;
  if (!s.left && !zero_fill) out.fill(' ', padding);
  out.append(head, head_size);
  if (zero_fill) {
    zeros += padding;
    padding = 0;
  }
  out.fill('0', zeros);
  out.append(digits, digit_count);
  if (s.left) out.fill(' ', padding);
}

// %d %i %u %o %x %X: the digits in their base, right to left, then the sign or the prefix that
// '#' asks for, as glibc places them.
template <typename Unsigned>
void integer(printf_output& out, const spec& s, Unsigned magnitude, bool negative) noexcept {
  char text[32];
  char* const end = text + sizeof text;
  char* digits = end;
  if (s.precision == 0 && magnitude == 0) {
    // No digits, but "%#.0o" keeps its "0".
  } else {
    digits = write_integer_backward(end, magnitude, s.conversion);
  }
  const auto digit_count = static_cast<std::size_t>(end - digits);
  std::size_t zeros = s.precision > 0 && static_cast<std::size_t>(s.precision) > digit_count
                          ? static_cast<std::size_t>(s.precision) - digit_count
                          : 0;
  char* head = digits;
  if (s.conversion == 'o') {
    const bool shows_zero = magnitude != 0 || !dialect().empty_alternate_octal_zero;
    if (s.alternate && zeros == 0 && (digit_count == 0 || *digits != '0') && shows_zero) zeros = 1;
  } else if (s.conversion == 'x' || s.conversion == 'X') {
    if (s.alternate && magnitude != 0) {
      *--head = s.conversion;
      *--head = '0';
    }
  } else if (s.conversion == 'u') {
    if (s.space && dialect().space_before_unsigned) *--head = ' ';
  } else {
    if (negative) {
      *--head = '-';
    } else if (s.plus) {
      *--head = '+';
    } else if (s.space) {
      *--head = ' ';
    }
  }
  number(out, s, head, static_cast<std::size_t>(digits - head), digits, digit_count, zeros);
}

template <typename Signed>
void signed_integer(printf_output& out, const spec& s, Signed value) noexcept {
  using magnitude_type = std::make_unsigned_t<Signed>;
  auto magnitude = static_cast<magnitude_type>(value);
  if (value < 0) magnitude = static_cast<magnitude_type>(magnitude_type{0} - magnitude);
  integer(out, s, magnitude, value < 0);
}

// Whether the thread's locale writes a decimal point as the C locale does.
bool classic_point() noexcept {
  const char* const point = nl_langinfo(RADIXCHAR);
  return point[0] == '.' && point[1] == '\0';
}

// %e %f %g and their capitals through std::to_chars, which gives printf's digits; false where
// floating_text declines, for snprintf to write it.
template <typename Floating>
bool floating(printf_output& out, const spec& s, Floating value) noexcept {
  std::ios_base::fmtflags flags{};
  switch (s.conversion) {
    case 'f':
    case 'F':
      flags = std::ios_base::fixed;
      break;
    case 'e':
    case 'E':
      flags = std::ios_base::scientific;
      break;
    default:
      break;
  }
  if (s.conversion == 'E' || s.conversion == 'G') flags |= std::ios_base::uppercase;
  if (s.alternate) flags |= std::ios_base::showpoint;
  if (s.plus) flags |= std::ios_base::showpos;
  char text[400];
  char* const begin = text + 1;
  const char* const end = floating_text(begin, text + sizeof text, value, flags, s.precision);
  if (end == nullptr) return false;
  char* head = begin;
  if (s.space && *begin != '-' && *begin != '+') *--head = ' ';
  const bool finite = value - value == 0;
  if (!finite && s.conversion == 'F') {
    for (char* c = begin; c != end; ++c) {
      if (*c >= 'a' && *c <= 'z') *c = static_cast<char>(*c - 'a' + 'A');
    }
  }
  const std::size_t sign = *head == '-' || *head == '+' || *head == ' ' ? 1 : 0;
  spec field = s;
  // Zeros fill the field of a number only; inf and nan are padded with spaces.
  field.precision = finite ? -1 : 0;
  number(out, field, head, sign, head + sign, static_cast<std::size_t>(end - head) - sign, 0);
  return true;
}

// %n: the count so far, stored through the pointer its length names.
void store_count(const spec& s, std::va_list* args, std::uint64_t count) noexcept {
  const auto done = static_cast<int>(count);
  switch (s.size) {
    case length::hh:
      *va_arg(*args, signed char*) = static_cast<signed char>(done);
      break;
    case length::h:
      *va_arg(*args, short*) = static_cast<short>(done);
      break;
    case length::l:
      *va_arg(*args, long*) = done;
      break;
    case length::ll:
    case length::big_l:
      *va_arg(*args, long long*) = done;
      break;
    case length::j:
      *va_arg(*args, intmax_t*) = done;
      break;
    case length::z:
      *va_arg(*args, ssize_t*) = done;
      break;
    case length::t:
      *va_arg(*args, ptrdiff_t*) = done;
      break;
    case length::none:
      *va_arg(*args, int*) = done;
      break;
  }
}

template <typename Signed, typename Unsigned>
void integer_argument(printf_output& out, const spec& s, std::va_list* args) noexcept {
  if (s.conversion == 'd' || s.conversion == 'i') {
    signed_integer(out, s, static_cast<Signed>(va_arg(*args, Signed)));
  } else {
    integer(out, s, static_cast<Unsigned>(va_arg(*args, Unsigned)), false);
  }
}

// A conversion of route::here or route::snprintf, its argument taken: false with errno set when
// snprintf failed.
bool convert(printf_output& out, const spec& s, std::va_list* args, int caller_errno) noexcept {
  switch (s.conversion) {
    case 'd':
    case 'i':
    case 'o':
    case 'u':
    case 'x':
    case 'X':
      if (s.grouping || s.locale_digits) break;
      switch (s.size) {
        case length::hh:
          if (s.conversion == 'd' || s.conversion == 'i') {
            signed_integer(out, s, static_cast<signed char>(va_arg(*args, int)));
          } else {
            integer(out, s, static_cast<unsigned char>(va_arg(*args, unsigned)), false);
          }
          return true;
        case length::h:
          if (s.conversion == 'd' || s.conversion == 'i') {
            signed_integer(out, s, static_cast<short>(va_arg(*args, int)));
          } else {
            integer(out, s, static_cast<unsigned short>(va_arg(*args, unsigned)), false);
          }
          return true;
        case length::none:
          integer_argument<int, unsigned>(out, s, args);
          return true;
        case length::l:
          integer_argument<long, unsigned long>(out, s, args);
          return true;
        case length::ll:
        case length::big_l:
          integer_argument<long long, unsigned long long>(out, s, args);
          return true;
        case length::j:
          integer_argument<intmax_t, uintmax_t>(out, s, args);
          return true;
        case length::z:
          integer_argument<ssize_t, size_t>(out, s, args);
          return true;
        case length::t:
          integer_argument<ptrdiff_t, std::make_unsigned_t<ptrdiff_t>>(out, s, args);
          return true;
      }
      return true;
    case 'c':
      // wint_t as it reaches `...`: promoted where it is narrower than int (Windows).
      if (s.size == length::l) {
        return delegate(out, s, static_cast<wint_t>(va_arg(*args, decltype(+wint_t{}))));
      }
      {
        const char c = static_cast<char>(va_arg(*args, int));
        padded(out, s, &c, 1);
      }
      return true;
    case 's':
      if (s.size == length::l) return delegate(out, s, va_arg(*args, const wchar_t*));
      {
        const char* const text = va_arg(*args, const char*);
        // glibc's "(null)", which it writes only where the precision leaves room for it.
        if (text == nullptr) return delegate(out, s, text);
        const std::size_t size = s.precision < 0
                                     ? std::strlen(text)
                                     : strnlen(text, static_cast<std::size_t>(s.precision));
        padded(out, s, text, size);
      }
      return true;
    case 'C':
      return delegate(out, s, static_cast<wint_t>(va_arg(*args, decltype(+wint_t{}))));
    case 'S':
      return delegate(out, s, va_arg(*args, const wchar_t*));
    case 'p':
      return delegate(out, s, va_arg(*args, void*));
    case 'm':
      // strerror of errno as the caller left it, not as the calls made here left it.
      errno = caller_errno;
      return delegate(out, s, 0);
    case 'n':
      store_count(s, args, out.count());
      return true;
    default:
      break;
  }
  // The floating conversions, and the integers in the locale's own digits or grouping.
  if (s.conversion == 'd' || s.conversion == 'i') {
    return s.size == length::hh || s.size == length::h || s.size == length::none
               ? delegate(out, s, va_arg(*args, int))
           : s.size == length::l ? delegate(out, s, va_arg(*args, long))
           : s.size == length::j ? delegate(out, s, va_arg(*args, intmax_t))
           : s.size == length::z ? delegate(out, s, va_arg(*args, ssize_t))
           : s.size == length::t ? delegate(out, s, va_arg(*args, ptrdiff_t))
                                 : delegate(out, s, va_arg(*args, long long));
  }
  if (s.conversion == 'o' || s.conversion == 'u' || s.conversion == 'x' || s.conversion == 'X') {
    return s.size == length::hh || s.size == length::h || s.size == length::none
               ? delegate(out, s, va_arg(*args, unsigned))
           : s.size == length::l ? delegate(out, s, va_arg(*args, unsigned long))
           : s.size == length::j ? delegate(out, s, va_arg(*args, uintmax_t))
           : s.size == length::z ? delegate(out, s, va_arg(*args, size_t))
           : s.size == length::t ? delegate(out, s, va_arg(*args, std::make_unsigned_t<ptrdiff_t>))
                                 : delegate(out, s, va_arg(*args, unsigned long long));
  }
  const bool by_to_chars = !s.grouping && !s.locale_digits && s.conversion != 'a' &&
                           s.conversion != 'A' && classic_point();
  if (s.size == length::big_l) {
    const long double value = va_arg(*args, long double);
    return (by_to_chars && floating(out, s, value)) || delegate(out, s, value);
  }
  const double value = va_arg(*args, double);
  return (by_to_chars && floating(out, s, value)) || delegate(out, s, value);
}

// What vsnprintf writes for `format`, appended; false, with its errno, where it fails.
bool write_formatted(printf_output& out, const char* format, std::va_list* args) noexcept {
  char text[512];
  std::va_list again;
  va_copy(again, *args);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  const int size = std::vsnprintf(text, sizeof text, format, *args);
  bool done = size >= 0;
  if (done && static_cast<std::size_t>(size) < sizeof text) {
    out.append(text, static_cast<std::size_t>(size));
  } else if (done) {
    std::unique_ptr<char[]> large(new (std::nothrow) char[static_cast<std::size_t>(size) + 1]);
    if (large) {
      std::vsnprintf(large.get(), static_cast<std::size_t>(size) + 1, format, again);
      out.append(large.get(), static_cast<std::size_t>(size));
    } else {
      errno = ENOMEM;
      done = false;
    }
  }
#pragma GCC diagnostic pop
  va_end(again);
  return done;
}

// The '%' of a specification that `format` ends inside ("abc%", "x%5"), or null.
const char* unfinished_specification(const char* format) noexcept {
  for (const char* at = format;;) {
    const char* const percent = std::strchr(at, '%');
    if (percent == nullptr) return nullptr;
    if (percent[1] == '%') {
      at = percent + 2;
      continue;
    }
    spec s;
    at = parse(percent, s);
    if (s.conversion == '\0') return percent;
  }
}

// The rest of the format, from `from`, by vsnprintf with the arguments not yet taken. Where it
// fails on a specification the format ends inside, the bytes before it are written, as glibc's
// vfprintf writes them before it fails with EINVAL.
bool remaining(printf_output& out, const char* from, std::va_list* args) noexcept {
  std::va_list again;
  va_copy(again, *args);
  const int caller_errno = errno;  // for a %m
  const bool done = write_formatted(out, from, args);
  const char* const unfinished = done ? nullptr : unfinished_specification(from);
  if (unfinished != nullptr) {
    int failure = errno;
    const auto size = static_cast<std::size_t>(unfinished - from);
    std::unique_ptr<char[]> before(new (std::nothrow) char[size + 1]);
    // Without the memory the call fails as the format does, with none of the bytes before; a
    // conversion before that fails in turn (EILSEQ) is the failure glibc meets first.
    if (before) {
      std::memcpy(before.get(), from, size);
      before[size] = '\0';
      errno = caller_errno;
      if (!write_formatted(out, before.get(), &again)) failure = errno;
    }
    errno = failure;
  }
  va_end(again);
  return done;
}

// The call's result: its count, or -1 with errno set.
int result_of(const printf_output& out) noexcept {
  if (out.failed()) return -1;
  if (out.count() > static_cast<std::uint64_t>(INT_MAX)) {
    errno = EOVERFLOW;
    return -1;
  }
  return static_cast<int>(out.count());
}

int print(c_handle& h, const char* format, std::va_list* args) noexcept {
  const int caller_errno = errno;
  printf_output out(h);
  // The text up to here is written with the next conversion made here, or handed on with it.
  const char* literal = format;
  for (;;) {
    const char* const percent = std::strchr(literal, '%');
    if (percent == nullptr) {
      out.append(literal, std::strlen(literal));
      return result_of(out);
    }
    if (percent[1] == '%') {
      out.append(literal, static_cast<std::size_t>(percent + 1 - literal));
      literal = percent + 2;
      continue;
    }
    spec s;
    const char* const next = parse(percent, s);
    const route how = route_of(s);
    if (how == route::remaining) {
      if (!remaining(out, literal, args)) return -1;
      return result_of(out);
    }
    out.append(literal, static_cast<std::size_t>(percent - literal));
    literal = next;
    if (s.overflow) {
      errno = EOVERFLOW;
      return -1;
    }
    if (s.width_star) {
      s.width = s.width_argument = va_arg(*args, int);
      // No field of 2^31 bytes, which glibc writes before it fails (docs/c-api.md).
      if (s.width == INT_MIN) {
        errno = EOVERFLOW;
        return -1;
      }
      if (s.width < 0) {
        s.left = true;
        s.width = -s.width;
      }
    }
    if (s.precision_star) {
      s.precision = s.precision_argument = va_arg(*args, int);
      if (s.precision < 0) s.precision = -1;
    }
    if (!convert(out, s, args, caller_errno)) return -1;
    if (out.failed() || out.count() > static_cast<std::uint64_t>(INT_MAX)) return result_of(out);
  }
}

}  // namespace
}  // namespace mapout::detail

extern "C" {

int mapout_vprintf(mapout_file* file, const char* format, va_list args) {
  if (file == nullptr || format == nullptr) {
    errno = EINVAL;
    return -1;
  }
  std::va_list taken;
  va_copy(taken, args);
  const int result = mapout::detail::print(mapout::detail::handle_of(file), format, &taken);
  va_end(taken);
  return result;
}

int mapout_printf(mapout_file* file, const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  const int result = mapout_vprintf(file, format, args);
  va_end(args);
  return result;
}

}  // extern "C"
