// How the library's own faces reach under a mapout::output_file: open it under a name of their
// choosing or over a backend they make, and put a wrapper over the backend that writes.
#pragma once

#include <filesystem>
#include <ios>
#include <memory>
#include <new>
#include <system_error>
#include <utility>

#include "file/output_file_state.hpp"

namespace mapout::detail {

struct file_access {
  // Takes over `fd` as output_file::open(int, ...) does, but with messages naming `name`.
  static std::error_code open(output_file& file, const std::filesystem::path& name, int fd,
                              const options& opts) noexcept {
    return file.open(name, fd, std::ios_base::out, opts);
  }

  // Opens `file` over the backend `make(open_file&, std::unique_ptr<backend>&)` makes, with no
  // descriptor; messages name `name`. A failure is kept in file.error().
  template <class Make>
  static std::error_code open_over(output_file& file, const std::filesystem::path& name,
                                   const options& opts, Make make) noexcept {
    if (file.is_open()) return std::make_error_code(std::errc::device_or_resource_busy);
    file.state_.reset(new (std::nothrow) output_file::state);
    output_file::state* const s = file.state_.get();
    if (s == nullptr) return std::make_error_code(std::errc::not_enough_memory);
    try {
      s->path = name;
    } catch (...) {
      return std::make_error_code(std::errc::not_enough_memory);
    }
    s->opts = opts;
    if (error_cause why = make(s->file, s->backend)) s->file.error = why;
    return code_of(s->file.error);
  }

  // Puts `Wrapper(open_file&, std::unique_ptr<backend> inner, arguments...)` over the open
  // file's backend; false, with the backend as it was, where it cannot be allocated.
  template <class Wrapper, class... Arguments>
  static bool wrap(output_file& file, Arguments&&... arguments) noexcept {
    output_file::state& s = *file.state_;
    // The allocation comes first: the inner backend moves only into a wrapper that exists.
    auto* wrapper = new (std::nothrow)
        Wrapper(s.file, std::move(s.backend), std::forward<Arguments>(arguments)...);
    if (wrapper == nullptr) return false;
    s.backend.reset(wrapper);
    return true;
  }
};

}  // namespace mapout::detail
