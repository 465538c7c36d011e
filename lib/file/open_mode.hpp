// How a path is opened: the std::basic_filebuf::open table for the modes an output file can have.
#pragma once

#include <ios>

#include "mapout/options.hpp"

namespace mapout::detail {

struct open_flags {
  int creation = 0;     // O_CREAT, O_TRUNC and O_APPEND as the table gives them
  bool read = false;    // the table opens for reading too ("r+", "w+", "a+")
  bool append = false;  // every write goes to the end
  bool at_end = false;  // start at the end: ate, or "a" as glibc opens it
};

// The flags for `mode`, or false where the table has no row for it (no out nor app, trunc with
// app, trunc without out) and std::basic_filebuf::open would fail.
bool to_open_flags(std::ios_base::openmode mode, open_flags& flags) noexcept;

// Why atomic or write_if_changed refuses a mode that keeps the file's bytes, naming the option
// and the mode, for the message: "atomic needs a mode that truncates (app given)".
const char* replacement_refusal(const options& opts, const open_flags& flags) noexcept;

}  // namespace mapout::detail
