// mapout::cursor: the window's pointers held in a local variable, so that a loop of put() keeps
// them in registers: a compare, a store and an increment per byte.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "mapout/detail/copy_short.hpp"
#include "mapout/detail/decimal.hpp"
#include "mapout/export.h"
#include "mapout/output_file.hpp"

namespace mapout {

class ostream;
class streambuf;
namespace detail {
struct print_window;
}  // namespace detail

// Stores straight into the window of a mapout::ostream, mapout::streambuf or output_file.
//
//   mapout::ostream out("table.txt");
//   {
//     mapout::cursor put(out);
//     for (char c : text) put.put(c);   // in registers; the file is called when the window ends
//     put << ' ' << 42 << '\n';         // integers as std::to_chars writes them
//   }                                   // the position goes back to the stream here
//
// The rules:
// - While a cursor lives it holds the window: every call on its stream, buffer or file that
//   writes, seeks, flushes or closes fails (badbit on a stream, EBUSY on output_file) and changes
//   nothing. A second cursor on the same file throws std::logic_error.
// - Moving the stream, buffer or file it holds is refused, since a move cannot fail: the file
//   stays where the cursor writes, and the object moved to is left as after a failed open (not
//   open, failbit, error() EBUSY with a message that says why). Moving into it, or swapping it,
//   changes nothing and fails as any call does.
// - The destructor, and release(), hand the position back, also when an exception unwinds; every
//   byte stored before is written. After release() every call throws std::logic_error.
// - Errors go where the owner keeps them: badbit on a mapout::ostream (thrown as its exceptions()
//   ask), std::ios_base::failure from a mapout::streambuf's cursor, error() of an output_file.
//   A stream that is not good() when the cursor is made receives nothing, as under a sentry; its
//   tie() is flushed when the cursor is made, and unitbuf flushes when it is released.
// - Formatting is std::to_chars's, whatever the stream's flags, width and locale.
// - Keep it a local variable, and hand it only to code that is inlined: once its address escapes,
//   the compiler must reload it around every byte again. It must not outlive its owner.
//
// A writer that copies into memory it is handed, such as an adapter for Protocol Buffers'
// ZeroCopyOutputStream or Cap'n Proto's BufferedOutputStream, borrows the window of a stream the
// program has open through a cursor it keeps as a member (its address may escape: nothing goes a
// byte at a time), with next() and back_up() (the pattern in mapout/window.hpp):
//
//   bool Next(void** data, int* size) override {
//     const mapout::window memory = cursor_.next();  // all of it counted as written
//     ...
//   }
//   void BackUp(int count) override { cursor_.back_up(count); }  // the tail not written after all
class MAPOUT_API cursor {
 public:
  // Inline, as every member: a call made with `this` would let the cursor's address escape.
  explicit cursor(ostream& out) { adopt(take(out)); }
  explicit cursor(streambuf& buf) { adopt(take(buf)); }
  // Takes `view`, the caller's window on `file`, and hands the new one back in it.
  cursor(output_file& file, window& view) { adopt(take(file, view)); }
  cursor(const cursor&) = delete;
  cursor& operator=(const cursor&) = delete;
  // Always inline: an out-of-line destructor on the unwinding path would take the cursor's address,
  // and a store through any char* could then change its pointers.
#if defined(__GNUC__)
  [[gnu::always_inline]]
#endif
  inline ~cursor() {
    if (owner_.kind != owner_kind::released) hand_back(owner_, view_, put_, end_, false);
  }

  // Hands the position back now; the cursor is used up.
  void release() {
    const owner held = owner_;
    owner_.kind = owner_kind::released;
    hand_back(held, view_, put_, end_, true);
    put_ = end_ = handed_out_ = nullptr;
  }

  cursor& put(char c) {
    if (put_ == end_) return put_slowly(c);
    *put_++ = c;
    return *this;
  }
  cursor& write(const char* data, std::size_t size) {
    // Strictly less, so that an empty window never reaches memcpy with a null pointer.
    if (size >= static_cast<std::size_t>(end_ - put_)) return write_slowly(data, size);
    detail::copy_short(put_, data, size);
    put_ += size;
    return *this;
  }

  // The window from the cursor on, at least one byte (the file is called when it is used up), all
  // of it counted as written: the caller fills what it needs and gives the rest back with
  // back_up(). Empty when nothing more can be written, the failure reported as put() reports it.
  window next() {
    if (put_ == end_) take(make_room_through(owner_, put_));
    const window memory{put_, end_};
    handed_out_ = put_;
    put_ = end_;
    return memory;
  }
  // The last `size` bytes at the cursor are not written after all: the cursor moves back over
  // them. They must be of the memory the last next() handed out, with no store since; throws
  // std::logic_error for more than it handed out. The bytes given back must hold what they held:
  // on a mapping they may be the file's.
  void back_up(std::size_t size) {
    if (size > static_cast<std::size_t>(put_ - handed_out_)) throw_past_handed_out();
    put_ -= size;
  }

  cursor& operator<<(char c) {
    return put(c);
  }
  cursor& operator<<(signed char c) {
    return put(static_cast<char>(c));
  }
  cursor& operator<<(unsigned char c) {
    return put(static_cast<char>(c));
  }
  // A null pointer writes nothing.
  cursor& operator<<(const char* text) {
    return text == nullptr ? *this : write(text, std::char_traits<char>::length(text));
  }
  cursor& operator<<(std::string_view text) {
    return write(text.data(), text.size());
  }
  cursor& operator<<(const std::string& text) {
    return write(text.data(), text.size());
  }
  cursor& operator<<(short value) {
    return insert_integer(value);
  }
  cursor& operator<<(unsigned short value) {
    return insert_integer(value);
  }
  cursor& operator<<(int value) {
    return insert_integer(value);
  }
  cursor& operator<<(unsigned int value) {
    return insert_integer(value);
  }
  cursor& operator<<(long value) {
    return insert_integer(value);
  }
  cursor& operator<<(unsigned long value) {
    return insert_integer(value);
  }
  cursor& operator<<(long long value) {
    return insert_integer(value);
  }
  cursor& operator<<(unsigned long long value) {
    return insert_integer(value);
  }

 private:
  friend struct detail::print_window;

  enum class owner_kind : unsigned char { ostream, streambuf, output_file, dropping, released };
  // Who the window belongs to. Passed by value to the slow path, so that the cursor's own address
  // never escapes from inlined code; two words, so that it travels in registers.
  struct owner {
    void* holder = nullptr;  // the mapout::ostream, mapout::streambuf or output_file
    owner_kind kind = owner_kind::dropping;
  };
  // A new window from the slow path; `failed` when the owner's error must be reported.
  struct refilled {
    window view;
    bool failed;
  };

  // The window taken from its owner, and who that is.
  struct taken {
    window view;
    owner held;
    window* caller_view = nullptr;
  };
  static taken take(ostream& out);
  static taken take(streambuf& buf);
  static taken take(output_file& file, window& view);
  void adopt(const taken& from) noexcept {
    put_ = from.view.begin;
    end_ = from.view.end;
    owner_ = from.held;
    view_ = from.caller_view;
    handed_out_ = put_;
  }

  // Makes room at `put` and stores `c` there, or writes `size` bytes there. Storing the byte out
  // of line keeps it out of the inline loop's registers across the call.
  static refilled put_through(owner held, char* put, char c) noexcept;
  static refilled write_through(owner held, char* put, const char* data, std::size_t size) noexcept;
  // Makes room at `put`, for next().
  static refilled make_room_through(owner held, char* put) noexcept;
  // The owner's file called through `call` for a new window at `put`; cursor.cpp's alone.
  template <typename Call>
  static refilled refill(owner held, char* put, Call call) noexcept;
  [[noreturn]] static void throw_past_handed_out();
  static output_file& file_of(owner held) noexcept;
  static bool stream_is_bad(owner held) noexcept;
  // Reports the failure as the owner does: badbit, a thrown failure, or nothing (output_file).
  static void report(owner held);
  // Sets the owner's window (the caller's `view` for an output_file) to [put, end) and lets it be
  // called again; `loud` lets a failed unitbuf flush throw, as in release() but not a destructor.
  static void hand_back(owner held, window* view, char* put, char* end, bool loud);

  void take(const refilled& result) {
    put_ = result.view.begin;
    end_ = result.view.end;
    handed_out_ = put_;
    if (result.failed) report(owner_);
  }
  cursor& put_slowly(char c) {
    take(put_through(owner_, put_, c));
    return *this;
  }
  cursor& write_slowly(const char* data, std::size_t size) {
    if (size != 0) take(write_through(owner_, put_, data, size));
    return *this;
  }
  template <typename Integer>
  cursor& insert_integer(Integer value) {
    // The longest integer, the sign included, is 20 characters.
    constexpr std::ptrdiff_t longest = 20;
    if (end_ - put_ > longest) {
      put_ = detail::write_decimal(put_, value);
      return *this;
    }
    char text[longest];
    return write(text, static_cast<std::size_t>(detail::write_decimal(text, value) - text));
  }

  char* put_ = nullptr;
  char* end_ = nullptr;
  // Where the memory the last next() handed out begins: back_up() moves the cursor no further
  // back. At the cursor while nothing is handed out; set where the window changes, never per byte.
  char* handed_out_ = nullptr;
  owner owner_;
  window* view_ = nullptr;  // the caller's, on an output_file
};

}  // namespace mapout
