// The one shape of mapout's error messages, "mapout: <operation> '<path>': <reason>", and the
// failure a stream throws when its exceptions() ask for one.
#pragma once

#include <filesystem>
#include <ios>
#include <optional>
#include <string>
#include <system_error>

namespace mapout::detail {

// "mapout: <operation> '<path>'", and ": <detail>" when there is one: what std::system_error's
// what() puts before ": <reason>".
std::string error_context(const char* operation, const std::filesystem::path& path,
                          const char* detail = nullptr);
// The whole message, for a failure that is no std::system_error.
std::string error_text(const char* operation, const std::filesystem::path& path,
                       const std::string& reason);
// "mapout: not open", with `code`.
std::ios_base::failure not_open_failure(std::error_code code);
// What a stream throws for a call made while it is not open, or an open while it is.
std::ios_base::failure stream_state_failure(bool is_open);

// Sets `state` on `stream`. Where its exceptions() ask for a throw, throws what `explain` returns
// (the file's own failure), or, when it returns nothing, the stream's state failure instead of the
// standard library's generic one.
template <class Explain>
void fail_with(std::ios& stream, std::ios_base::iostate state, bool is_open, Explain explain) {
  try {
    stream.setstate(state);
  } catch (const std::ios_base::failure&) {
    if (std::optional<std::ios_base::failure> why = explain()) throw *why;
    throw stream_state_failure(is_open);
  }
}

}  // namespace mapout::detail
