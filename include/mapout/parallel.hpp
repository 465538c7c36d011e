// mapout::parallel_output: one file written by many threads at once, each into a part of its own,
// joined in order at close.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

#include "mapout/export.h"
#include "mapout/options.hpp"
#include "mapout/ostream.hpp"

namespace mapout {

// A file made of `parts` parts, each a mapout::ostream written by one thread, laid end to end in
// index order at close (docs/parallel.md).
//
//   mapout::parallel_output out("rows.csv", 2);
//   std::thread second([&] { write_rows(out.part(1), half, rows); });
//   write_rows(out.part(0), 0, half);
//   second.join();
//   if (std::error_code ec = out.close()) report(out.error_message());
//
// Part 0, and a part first asked for once every part before it is closed, writes straight into
// the file. Every other part is held in memory of its own (anonymous memory made usable as the
// part grows, never a string that reallocates) and copied into place once, at close (on tmpfs by
// several threads at once). A part's positions (tellp, seekp) count from its own start.
// Parts may be written from different threads at once; a part belongs to the thread that first
// asks for it, and part() refuses it to any other (docs/parallel.md, "What a part may not do").
class MAPOUT_API parallel_output {
 public:
  // Opens `path` for writing from its start (out|trunc). `opts` apply to the whole file: with
  // atomic, write_if_changed or durable it is the close() that joins the parts which replaces or
  // syncs the target, and only when every part succeeded. A failed open leaves every part a
  // failed stream and close() reporting why.
  parallel_output(const std::filesystem::path& path, std::size_t parts, const options& opts = {});
  parallel_output(const parallel_output&) = delete;
  parallel_output& operator=(const parallel_output&) = delete;
  // close(); with options.atomic, discards instead, as mapout::ostream does: an exception that
  // unwinds past the output never publishes half of it.
  ~parallel_output();

  std::size_t parts() const noexcept;
  // Part k's stream, opened at the first call. An index out of range, a failed open, or a part
  // another thread holds gives a stream that is not open and has failbit set, and the failure is
  // what close() reports.
  mapout::ostream& part(std::size_t k);

  // Closes every part still open, copies the parts held in memory into place, and closes the file
  // (replacing the target with atomic or write_if_changed). Returns the first failure: of opening,
  // of a refused part(), of the parts in index order, then of joining them.
  std::error_code close() noexcept;
  // With options.atomic or write_if_changed: throws every part away and leaves the target as it
  // was; otherwise close().
  std::error_code discard() noexcept;
  bool is_open() const noexcept;

  // The failure close() reported or will report, and "mapout: <operation> '<path>': <reason>" for
  // it, naming the part where one failed.
  std::error_code error() const noexcept;
  std::string error_message() const;

 private:
  class impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace mapout
