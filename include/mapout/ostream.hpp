// mapout::ostream: a drop-in for std::ofstream that writes through mapout::streambuf.
#pragma once

#include <charconv>
#include <cstdint>
#include <filesystem>
#include <ios>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "mapout/detail/decimal.hpp"
#include "mapout/export.h"
#include "mapout/options.hpp"
#include "mapout/streambuf.hpp"

// Unoptimized too, the call into std::ostream's own path is folded into the member that makes it,
// as an optimizing build folds it: a debugger's backtrace from a write to write(2) stays short.
#if defined(__GNUC__) && !defined(__OPTIMIZE__)
#define MAPOUT_FOLDED __attribute__((always_inline))
#else
#define MAPOUT_FOLDED
#endif

namespace mapout {

class cursor;

namespace detail {
struct print_window;

// The types mapout::ostream inserts inline (char arrays and non-const strings decay or bind to
// them), kept out of its catch-all operator<< so that they reach the inline members.
template <typename T>
constexpr bool inline_insertable =
    std::is_same_v<T, char> || std::is_same_v<T, signed char> || std::is_same_v<T, unsigned char> ||
    std::is_same_v<T, char*> || std::is_same_v<T, const char*> || std::is_same_v<T, std::string> ||
    std::is_same_v<T, std::string_view> || std::is_same_v<T, short> ||
    std::is_same_v<T, unsigned short> || std::is_same_v<T, int> ||
    std::is_same_v<T, unsigned int> || std::is_same_v<T, long> ||
    std::is_same_v<T, unsigned long> || std::is_same_v<T, long long> ||
    std::is_same_v<T, unsigned long long> || std::is_same_v<T, float> ||
    std::is_same_v<T, double> || std::is_same_v<T, long double>;
}  // namespace detail

// std::ofstream's interface over a mapping of the file.
//
//   mapout::ostream out("gen/tables.cpp");   // out|trunc, as std::ofstream
//   out << "const int n = " << 42 << ";\n";
//   out.close();                             // failbit if anything failed, the final size included
//
// Errors follow iostream rules: failbit when open fails, badbit when a write fails, failbit when
// close finds any failure. With exceptions() set, the std::ios_base::failure thrown by
// mapout::ostream's own members (open, close, put, write, <<, flush) names the operation and the
// path and carries errno as its code(); through a std::ostream& the stream throws as std::ofstream
// does, the standard library's failure, and error() and error_message() keep the cause.
//
// Through the static type mapout::ostream, put, write and << of characters, strings and integers
// store straight into the window, without std::ostream's sentry or a virtual call, whenever that
// sentry would do nothing and the formatting is trivial: good state, no tie(), no unitbuf, width 0,
// and for integers decimal without showpos in a locale that punctuates as the classic one. Every
// other case, and every write that does not fit the window, takes std::ostream's own path, so the
// bytes and the state are always std::ostream's. Through a std::ostream& the stream is a
// std::ostream like any other.
//
// final, unlike std::ofstream: in a final class the std::ios base sits at an offset known when
// compiling, so each inline call reads the state directly instead of through the virtual-base
// offset in the vtable first (two dependent loads per call). Wrap it instead of deriving from it.
class MAPOUT_API ostream final : public std::ostream {
 public:
  ostream();
  explicit ostream(const std::filesystem::path& path,
                   std::ios_base::openmode mode = std::ios_base::out, const options& opts = {});
  ostream(ostream&& other);
  ostream& operator=(ostream&& other);
  void swap(ostream& other);

  void open(const std::filesystem::path& path, std::ios_base::openmode mode = std::ios_base::out,
            const options& opts = {});
  // Takes `file`, opened through output_file's own API, and writes on at its window; failbit,
  // as for a failed open, when this stream is open already or file is not open.
  void open(output_file&& file);
  bool is_open() const noexcept { return buf_.is_open(); }
  void close();
  // With options.atomic or write_if_changed, throws the bytes away and leaves the target as it
  // was; otherwise close(). failbit on failure. With atomic, destruction without a successful
  // close() discards too: unlike std::ofstream, an exception unwinding past the stream never
  // publishes half an output.
  void discard();

  // The file's size and bytes as close() would leave them, for a reader in another process, while
  // writing goes on. flush() and std::endl cost no system call on a mapped file; this costs one.
  ostream& publish();
  // publish(), then fsync: the bytes are on the disk.
  ostream& persist();

  streambuf* rdbuf() const noexcept { return const_cast<streambuf*>(&buf_); }
  // The first failure of the file's life, and "mapout: <operation> '<path>': <reason>" for it.
  std::error_code error() const noexcept { return buf_.error(); }
  std::string error_message() const { return buf_.error_message(); }
  // The descriptor, borrowed: mapout closes it (see output_file::native_handle). -1 when closed.
  int native_handle() const noexcept { return buf_.native_handle(); }

  ostream& put(char c) {
    if (!sentry_is_noop() || !buf_.store(c))
      through_standard([&]() MAPOUT_FOLDED { std::ostream::put(c); });
    return *this;
  }
  ostream& write(const char* data, std::streamsize size) {
    if (!sentry_is_noop() || !buf_.store(data, static_cast<std::size_t>(size))) {
      through_standard([&]() MAPOUT_FOLDED { std::ostream::write(data, size); });
    }
    return *this;
  }

  // seekp and tellp as std::ostream's, without its sentry and virtual calls whenever that sentry
  // would do nothing: a writer that fills an index laid out in a file seeks before each record.
  // Inside the bytes the mapping or the buffer holds, a seek is a compare and a move of the cursor.
  pos_type tellp() {
    if (!sentry_is_noop()) return std::ostream::tellp();
    const std::int64_t here = buf_.tell_inline();
    return here >= 0 ? pos_type(here) : buf_.seek_through(0, cur);
  }
  ostream& seekp(pos_type position) {
    if (!sentry_is_noop()) {
      std::ostream::seekp(position);
    } else if (!buf_.seek_inline(static_cast<std::uint64_t>(off_type(position))) &&
               buf_.seek_through(off_type(position), beg) == pos_type(off_type(-1))) {
      setstate(failbit);
    }
    return *this;
  }
  ostream& seekp(off_type offset, seekdir dir) {
    if (!sentry_is_noop()) {
      std::ostream::seekp(offset, dir);
    } else if (buf_.streambuf::seekoff(offset, dir, out) == pos_type(off_type(-1))) {
      setstate(failbit);
    }
    return *this;
  }

  ostream& operator<<(char c) {
    if (!unpadded() || !buf_.store(c))
      through_standard([&]() MAPOUT_FOLDED { static_cast<std::ostream&>(*this) << c; });
    return *this;
  }
  ostream& operator<<(signed char c) { return *this << static_cast<char>(c); }
  ostream& operator<<(unsigned char c) { return *this << static_cast<char>(c); }
  ostream& operator<<(const char* text) {
    // std::ostream sets badbit for a null pointer.
    if (text == nullptr || !unpadded() || !buf_.store(text, std::char_traits<char>::length(text))) {
      through_standard([&]() MAPOUT_FOLDED { static_cast<std::ostream&>(*this) << text; });
    }
    return *this;
  }
  ostream& operator<<(std::string_view text) {
    if (!unpadded() || !buf_.store(text.data(), text.size()))
      through_standard([&]() MAPOUT_FOLDED { static_cast<std::ostream&>(*this) << text; });
    return *this;
  }
  ostream& operator<<(const std::string& text) { return *this << std::string_view(text); }

  // bool is left to std::ostream: its spelling depends on boolalpha and the locale.
  ostream& operator<<(short value) { return insert_integer(value); }
  ostream& operator<<(unsigned short value) { return insert_integer(value); }
  ostream& operator<<(int value) { return insert_integer(value); }
  ostream& operator<<(unsigned int value) { return insert_integer(value); }
  ostream& operator<<(long value) { return insert_integer(value); }
  ostream& operator<<(unsigned long value) { return insert_integer(value); }
  ostream& operator<<(long long value) { return insert_integer(value); }
  ostream& operator<<(unsigned long long value) { return insert_integer(value); }

  // Floating point in the default floatfield without showpoint, showpos or uppercase is printf's
  // %.*g, which std::to_chars writes straight into the window; every other combination goes
  // through std::ostream to mapout::num_put, which knows the rest. So does a NaN, whose sign
  // only some C libraries' printf writes.
  ostream& operator<<(double value) { return insert_floating(value); }
  ostream& operator<<(float value) { return insert_floating(static_cast<double>(value)); }
  ostream& operator<<(long double value) { return insert_floating(value); }

  // Manipulators (std::endl, std::hex, ...) act on the stream as on any std::ostream.
  ostream& operator<<(std::ostream& (*manipulator)(std::ostream&)) {
    return through_standard([&]() MAPOUT_FOLDED { manipulator(*this); });
  }
  ostream& operator<<(std::ios& (*manipulator)(std::ios&)) {
    manipulator(*this);
    return *this;
  }
  ostream& operator<<(std::ios_base& (*manipulator)(std::ios_base&)) {
    manipulator(*this);
    return *this;
  }
  // As std::ostream::flush: badbit when the buffer's sync fails.
  ostream& flush() {
    return through_standard([this]() MAPOUT_FOLDED { std::ostream::flush(); });
  }

  // Everything else a std::ostream prints (double, bool, pointers, std::setw, enums and user types
  // with their own operator<<) is printed exactly as through a std::ostream&, and the chain stays
  // on mapout::ostream. A template, so that it never wins over a user's operator<< by a
  // conversion (as non-template members would: an enum with its own operator<< would be ambiguous
  // with operator<<(int)). The types above are left out of it.
  template <typename T,
            typename = std::enable_if_t<
                !detail::inline_insertable<std::decay_t<T>> &&
                std::is_same_v<decltype(std::declval<std::ostream&>() << std::declval<T>()),
                               std::ostream&>>>
  ostream& operator<<(T&& value) {
    return through_standard(
        [&]() MAPOUT_FOLDED { static_cast<std::ostream&>(*this) << std::forward<T>(value); });
  }

 private:
  friend class cursor;
  friend struct detail::print_window;

  // True when std::ostream's sentry would do nothing: good state, nothing tied to flush, no
  // unitbuf, and the buffer is still ours (std::ios::rdbuf(sb) can replace it through a base
  // reference). Each is read here rather than cached: base-class members change them unseen.
  // The tests are or-ed into one word, so the inline path takes one branch for all of them;
  // `extra_flags` adds the flags that formatted output must also find clear, and formatted output
  // passes width() as `field_width`.
  // `other_locale` is or-ed in as well, so that integers take the same single branch. The 32-bit
  // state and flags are widened unsigned, which costs no instruction (a signed widening does).
  bool sentry_is_noop(fmtflags extra_flags = fmtflags{}, std::streamsize field_width = 0,
                      bool other_locale = false) const noexcept {
    const auto tie_bits = reinterpret_cast<std::uintptr_t>(tie());
    const auto other_buffer = reinterpret_cast<std::uintptr_t>(std::ios::rdbuf()) ^
                              reinterpret_cast<std::uintptr_t>(&buf_);
    const auto state_bits = static_cast<std::uint32_t>(rdstate()) |
                            static_cast<std::uint32_t>(flags() & (unitbuf | extra_flags)) |
                            static_cast<std::uint32_t>(other_locale);
    return (std::uintptr_t{state_bits} | static_cast<std::uintptr_t>(field_width) | tie_bits |
            other_buffer) == 0;
  }
  // ... and formatted output pads nothing.
  bool unpadded() const noexcept { return sentry_is_noop(fmtflags{}, width()); }
  // ... and an integer prints as std::to_chars prints it: decimal (showbase and uppercase do not
  // change decimal output), no showpos, the classic locale's digits and no grouping.
  bool plain_decimal() const noexcept {
    return sentry_is_noop(oct | hex | showpos, width(), !classic_locale_);
  }

  template <typename Integer>
  ostream& insert_integer(Integer value) {
    // The longest integer, the sign included, is 20 characters: with more room the digits go
    // straight into the window, written as std::to_chars writes them.
    constexpr std::ptrdiff_t longest = 20;
    char* const put = buf_.pptr();
    if (plain_decimal() && buf_.epptr() - put > longest) {
      buf_.pbump(static_cast<int>(detail::write_decimal(put, value) - put));
    } else {
      through_standard([&]() MAPOUT_FOLDED {
        watch_locale();
        std::ostream::operator<<(value);
      });
    }
    return *this;
  }

  template <typename Floating>
  ostream& insert_floating(Floating value) {
    // The longest %.*g text: a sign, the digits, a point and an exponent of up to 5 characters.
    constexpr std::streamsize longest_beyond_digits = 8;
    constexpr std::streamsize most_digits = 40;
    const std::streamsize digits = precision();
    char* const put = buf_.pptr();
    if (sentry_is_noop(floatfield | showpoint | showpos | uppercase, width(), !classic_locale_) &&
        static_cast<std::make_unsigned_t<std::streamsize>>(digits) <= most_digits &&
        buf_.epptr() - put > digits + longest_beyond_digits && value == value) {
      const std::to_chars_result text = std::to_chars(
          put, buf_.epptr(), value, std::chars_format::general, static_cast<int>(digits));
      buf_.pbump(static_cast<int>(text.ptr - put));
    } else {
      through_standard([&]() MAPOUT_FOLDED {
        watch_locale();
        std::ostream::operator<<(value);
      });
    }
    return *this;
  }

  // classic_locale_ (a locale whose numbers are the classic locale's: its num_put the standard
  // facet or mapout's, '.' for the point, no grouping) follows the stream's locale through
  // an ios_base callback, which runs for imbue (through std::ios or std::ios_base alike) and
  // copyfmt. copyfmt replaces the callback list with the source's, so it may drop ours: the erase
  // event that precedes it clears locale_watched_, and the next integer on the standard path
  // registers the callback again.
  static void on_ios_event(std::ios_base::event event, std::ios_base& stream, int);
  void watch_locale() {
    if (!locale_watched_) watch_locale_again();
  }
  void watch_locale_again();

  // Sets `state`; with exceptions() asking for it, throws a failure that carries the buffer's
  // error message and code instead of the standard library's generic one.
  void fail_with(iostate state);

  // std::ostream's own path, for what the inline one does not take. The buffer reports a failure
  // of the file by return value, which std::ostream turns into badbit and, where exceptions()
  // ask, its generic failure: that one is replaced by the buffer's (errno, the operation, the
  // path).
  template <typename Call>
  MAPOUT_FOLDED ostream& through_standard(Call&& call) {
    try {
      call();
    } catch (const std::ios_base::failure&) {
      rethrow_with_cause();
    }
    return *this;
  }
  // Inside a handler: throws the buffer's failure once the stream is bad because of it, else
  // rethrows.
  [[noreturn]] void rethrow_with_cause() const;

  streambuf buf_;
  bool classic_locale_ = false;
  bool locale_watched_ = false;
};

inline void swap(ostream& a, ostream& b) {
  a.swap(b);
}

}  // namespace mapout

#undef MAPOUT_FOLDED
