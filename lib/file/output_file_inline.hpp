// output_file's two slow events, defined inline for output_file.cpp and mapout::streambuf alike.
#pragma once

#include <cstddef>
#include <system_error>

#include "file/output_file_state.hpp"

namespace mapout {

// The two slow events of a full window, inlined into output_file's public calls and
// mapout::streambuf's alike, so that neither costs a frame on the way to write(2).
[[gnu::always_inline]] inline std::error_code output_file::make_room(window& view,
                                                                     std::size_t wanted,
                                                                     seek_range& range) noexcept {
  range = {};
  if (std::error_code ec = unavailable("write")) return ec;
  state& s = *state_;
  s.note_stores(view);
  return detail::code_of(s.run(view, range, &detail::backend::make_room, wanted));
}

[[gnu::always_inline]] inline std::error_code output_file::write(window& view, const char* data,
                                                                 std::size_t size,
                                                                 seek_range& range) noexcept {
  range = {};
  if (std::error_code ec = unavailable("write")) return ec;
  state& s = *state_;
  s.note_stores(view);
  if (s.session) s.session->writes(data, size);
  return detail::code_of(s.run(view, range, &detail::backend::write, data, size));
}

}  // namespace mapout
