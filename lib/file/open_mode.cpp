// Opening: the rows of the std::basic_filebuf::open table that contain out or app.
#include "file/open_mode.hpp"

#include <fcntl.h>

#include "platform/platform.hpp"

namespace mapout::detail {

bool to_open_flags(std::ios_base::openmode mode, open_flags& flags) noexcept {
  using std::ios_base;
  const ios_base::openmode row =
      mode & (ios_base::in | ios_base::out | ios_base::trunc | ios_base::app);
  flags = {};
  flags.at_end = (mode & ios_base::ate) != 0;
  if (row == ios_base::out || row == (ios_base::out | ios_base::trunc)) {
    flags.creation = O_CREAT | O_TRUNC;  // "w"
  } else if (row == ios_base::app || row == (ios_base::out | ios_base::app)) {
    flags.creation = O_CREAT | O_APPEND;  // "a"
    flags.append = true;
    // As std::filebuf's fopen("a"): tellp before the first write says where it starts; "a+"
    // starts at 0.
    flags.at_end = flags.at_end || platform::append_starts_at_end();
  } else if (row == (ios_base::out | ios_base::in)) {
    flags.read = true;  // "r+": the file must exist and keeps its bytes
  } else if (row == (ios_base::out | ios_base::in | ios_base::trunc)) {
    flags.creation = O_CREAT | O_TRUNC;  // "w+"
    flags.read = true;
  } else if (row == (ios_base::in | ios_base::app) ||
             row == (ios_base::out | ios_base::in | ios_base::app)) {
    flags.creation = O_CREAT | O_APPEND;  // "a+"
    flags.read = true;
    flags.append = true;
  } else {
    return false;
  }
  return true;
}

const char* replacement_refusal(const options& opts, const open_flags& flags) noexcept {
  if (flags.append) {
    return opts.atomic ? "atomic needs a mode that truncates (app given)"
                       : "write_if_changed needs a mode that truncates (app given)";
  }
  return opts.atomic ? "atomic needs a mode that truncates (in|out without trunc given)"
                     : "write_if_changed needs a mode that truncates (in|out without trunc given)";
}

}  // namespace mapout::detail
