// What an open mapout::output_file keeps: shared by opening (output_file_open.cpp) and forwarding
// (output_file.cpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <ios>
#include <memory>

#include "backend.hpp"
#include "mapout/output_file.hpp"
#include "replace_session.hpp"

namespace mapout {

using detail::failure;

// Hidden: the shared library exports output_file's API, not the members of its pimpl.
struct __attribute__((visibility("hidden"))) output_file::state {
  std::filesystem::path path;
  detail::open_file file;
  std::unique_ptr<detail::backend> backend;
  options opts;  // as opened: the mapping that takes over from the first buffer is made with them
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
  // A part of a parallel output written in place: the caller's positions count from `origin`,
  // and close() raises `closed` once the descriptor is closed (parallel_part.hpp).
  std::int64_t origin = 0;
  std::atomic<bool>* closed = nullptr;

  failure open(const char* path, std::ios_base::openmode mode, const options& opts) noexcept;
  // Takes over a descriptor the caller opened, as fdopen(3) does.
  failure take_descriptor(int fd, const options& opts) noexcept;
  // Both opens end here: file.fd is open, and `may_map` says whether the mode, the strategy and
  // the access allow a mapping. Writing starts at the end with `at_end`, else at `position`.
  failure start(bool may_map, bool append, bool at_end, std::uint64_t position) noexcept;

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
  // The buffer offered the mapping (backend::offers_mapping): the mapping takes over at the
  // cursor. Where the file cannot be mapped after all, writing goes on through the buffer.
  // Returns the caller's cursor in the window now in use.
  char* map_instead_of_buffer(char* put) noexcept;
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
