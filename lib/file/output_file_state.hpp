// What an open mapout::output_file keeps: shared by opening (output_file_open.cpp), forwarding
// (output_file.cpp) and the calls inlined into the stream (output_file_inline.hpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <ios>
#include <memory>
#include <utility>

#include "backends/backend.hpp"
#include "backends/strategy.hpp"
#include "mapout/output_file.hpp"
#include "replace/replace_session.hpp"

namespace mapout {

using detail::error_cause;

// Hidden: the shared library exports output_file's API, not the members of its pimpl.
struct __attribute__((visibility("hidden"))) output_file::state {
  std::filesystem::path path;
  detail::open_file file;
  std::unique_ptr<detail::backend> backend;
  options opts;  // as opened: a mapping that takes over from the buffer is made with them
  // With options.atomic or write_if_changed: file.fd is a temporary that replaces the target
  // when close() succeeds.
  std::unique_ptr<detail::replace_session> session;
  // The descriptor was the caller's (open(int fd)): another may share its offset, as a shell's
  // redirection does, so close() leaves the offset at the cursor as write(2) would have.
  bool taken_over = false;
  // A mapout::cursor holds the window: the caller's view is stale until it hands it back.
  bool held_by_cursor = false;
  // The last call refused while the cursor holds the window, for error_message(); not sticky.
  const char* refused = nullptr;

  error_cause open(const char* path, std::ios_base::openmode mode, const options& opts) noexcept;
  // Takes over a descriptor the caller opened, as fdopen(3) does.
  error_cause take_descriptor(int fd, const options& opts) noexcept;

  // What every call that takes the caller's window does first: its stores up to `put` are
  // compared, and those it moved its cursor back from are kept.
  void note_stores(const window& view) noexcept {
    keep_stored(view);
    if (session) session->stored_up_to(view.begin);
  }
  // The bytes stored up to view.stored_end, which the caller moved its cursor back from.
  void keep_stored(const window& view) noexcept {
    if (view.stored_end > view.begin) backend->keep_stored_up_to(view.stored_end);
  }
  // And last: the backend's window goes back to the caller, nothing stored in it yet, with where
  // it may move its cursor with no call.
  void give_view(window& view, seek_range& range) noexcept {
    view = backend->current();
    range = seekable();
    if (session) session->window_handed_out(*backend);
  }
  // Every byte stored must reach the comparison through a call, and a cursor's stores are its own.
  seek_range seekable() const noexcept {
    if (held_by_cursor || (session && session->compares())) return {};
    return backend->seekable();
  }
  // Makes a call that may hand the file over, at the caller's cursor (call_handing_over), and
  // hands the window back. Inlined, so that the call costs no frame of its own.
  template <class... Parameters, class... Arguments>
  [[gnu::always_inline]] error_cause run(
      window& view, seek_range& range,
      detail::step (detail::backend::*call)(char*, Parameters...) noexcept,
      Arguments&&... arguments) noexcept {
    const error_cause why = detail::call_handing_over(
        file, opts, backend, view.begin,
        [this] {
          if (session) session->window_handed_out(*backend);
        },
        call, std::forward<Arguments>(arguments)...);
    give_view(view, range);
    return why;
  }
  // A call that hands the window back and may not hand the file over (flush, publish, persist).
  error_cause hand_back_after(window& view, seek_range& range,
                              error_cause (detail::backend::*call)(char*) noexcept) noexcept {
    note_stores(view);
    const error_cause why = (*backend.*call)(view.begin);
    give_view(view, range);
    return why;
  }
  void drop_replacement() noexcept {
    if (session) {
      session->drop(file);
      session.reset();
    } else {
      file.fd.close();
    }
  }
};

}  // namespace mapout
