// What an open mapout::output_file keeps: shared by opening (output_file_open.cpp) and forwarding
// (output_file.cpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <ios>
#include <memory>

#include "backend.hpp"
#include "mapout/output_file.hpp"
#include "replace_session.hpp"
#include "strategy.hpp"

namespace mapout {

using detail::failure;

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

  failure open(const char* path, std::ios_base::openmode mode, const options& opts) noexcept;
  // Takes over a descriptor the caller opened, as fdopen(3) does.
  failure take_descriptor(int fd, const options& opts) noexcept;

  // What every call that takes the caller's window does first: its stores up to `put` are
  // compared, and those it moved its cursor back from are kept.
  void take_view(const window& view) noexcept {
    keep_stored(view);
    if (session) session->stored_up_to(view.begin);
  }
  // The bytes stored up to view.stored, which the caller moved its cursor back from.
  void keep_stored(const window& view) noexcept {
    if (view.stored > view.begin) backend->take_stored(view.stored);
  }
  // And last: the backend's window goes back to the caller, nothing stored in it yet.
  void give_view(window& view) noexcept {
    view = backend->current();
    if (session) session->window_handed_out(*backend);
  }
  // Makes a call that may hand the file over, at the caller's cursor, and acts on the step it
  // returns: the one place that does. Inlined, so that the call costs no frame of its own.
  template <class... Parameters, class... Arguments>
  [[gnu::always_inline]] failure run(window& view,
                                     detail::step (detail::backend::*call)(char*,
                                                                           Parameters...) noexcept,
                                     Arguments&&... arguments) noexcept {
    detail::step done = (*backend.*call)(view.begin, arguments...);
    if (done.next != detail::step::then::done) {
      detail::hand_over(file, opts, backend);
      if (session) session->window_handed_out(*backend);
      if (done.next == detail::step::then::hand_over_and_repeat) {
        done = (*backend.*call)(backend->current().begin, arguments...);
      }
    }
    give_view(view);
    return done.why;
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
