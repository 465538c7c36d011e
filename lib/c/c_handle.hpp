// What a mapout_file is inside the library, shared by the C API's files: the window the inline
// functions of mapout.h store into, the file behind it, and how a call reports a failure.
#pragma once

#include <string>
#include <system_error>

#include "mapout/mapout.h"
#include "mapout/output_file.hpp"

namespace mapout::detail {

// What mapout_open and mapout_fdopen hand out.
struct c_handle : mapout_file {
  mapout::output_file file;
  std::string first_error;  // set once, at the first failure, so mapout_error stays valid
  // The list of open files that mapout_flush(NULL) walks, as fflush(NULL) walks stdio's.
  c_handle* previous_open = nullptr;
  c_handle* next_open = nullptr;
};

inline c_handle& handle_of(mapout_file* file) noexcept {
  return static_cast<c_handle&>(*file);
}

// The window output_file expects, its begin the cursor the inline functions left.
mapout::window view_of(c_handle& h) noexcept;
// After each call: the window the file handed back, or an empty one once writing has failed.
void show_window(c_handle& h, const mapout::window& window) noexcept;
// errno for a failure.
int errno_of(std::error_code ec) noexcept;
// Every failing call ends here: the first failure's message kept, errno set, -1 returned.
int fail(c_handle& h, std::error_code ec, const char* operation) noexcept;
int fail(c_handle& h, std::errc code, const char* operation) noexcept;

// mapout::options from the C struct; false for an enum out of range.
bool to_options(const mapout_options& from, mapout::options& to) noexcept;
// Ends an open that succeeded: the first window shown and the file listed as open.
mapout_file* hand_out(c_handle* h) noexcept;

// The open files' list (c_open_files.cpp).
void list_open(c_handle& h) noexcept;
void unlist_open(c_handle& h) noexcept;
// mapout_flush() of every open file: 0, or -1 with errno of the first that failed.
int flush_every_open_file() noexcept;

}  // namespace mapout::detail
