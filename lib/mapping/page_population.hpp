// The mapped strategy's populating policy: how far ahead of the stores the pages of a mapping
// are populated, and when a thread of the file's own does it (page_populator).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "mapping/page_populator.hpp"

namespace mapout::detail {

// A mapping of `length` bytes of the file from `offset`, at `begin`.
struct mapped_stretch {
  char* begin = nullptr;
  std::uint64_t offset = 0;
  std::size_t length = 0;

  std::uint64_t end() const noexcept { return offset + length; }
};

class page_population {
 public:
  // `populates`: extension::ahead; the SIGBUS extension populates nothing.
  explicit page_population(bool populates) noexcept;
  ~page_population();
  page_population(const page_population&) = delete;
  page_population& operator=(const page_population&) = delete;

  // Until the kernel refuses once, the window ends where the populated pages end.
  bool populates() const noexcept { return populates_; }
  // Each flush cuts the file back to the bytes written: pages populated past them would be
  // zeroed, cut off and read back by every flush.
  void stop() noexcept { populates_ = false; }
  bool holds(std::uint64_t offset) const noexcept { return offset >= begin_ && offset < end_; }
  std::uint64_t end() const noexcept { return end_; }

  // A new mapping from `offset`: nothing of it is populated.
  void mapped_at(std::uint64_t offset) noexcept { begin_ = end_ = offset; }
  // Populates the pages from the populated stretch's end on, so that the stores from `cursor` up
  // to `needed` (and a bounded step beyond) take no page fault; never past the page that holds
  // `extent`, the file's end, where populating fails like a store. `written` is the end of every
  // byte written so far.
  void populate(const mapped_stretch& map, std::uint64_t extent, std::uint64_t cursor,
                std::uint64_t written, std::uint64_t needed) noexcept;
  // A seek to `target` away from the populated pages ends the stream that populated them: a
  // record stored next to them later is no reason to populate a step.
  void seek(const mapped_stretch& map, std::uint64_t target) noexcept;
  // The file was cut to `size`, which unmapped the pages past it.
  void cut(std::uint64_t size) noexcept;
  // Stops the populating thread, before the mapping goes or the file is cut.
  void halt() noexcept;
  void assert_invariant(const mapped_stretch& map) const noexcept;

 private:
  // The populating thread once the file is large enough to be worth one, else null; never in a
  // forked child, which has no copy of the thread.
  page_populator* background(const mapped_stretch& map, std::uint64_t needed) noexcept;

  // Invariant (assert_invariant): [begin_, end_) is a run of whole pages inside the mapping.
  std::uint64_t begin_ = 0;
  std::uint64_t end_ = 0;
  bool populates_;
  std::unique_ptr<page_populator> populator_;
  bool populator_tried_ = false;
  bool populator_halted_ = true;  // its next pages must be set from end_
  pid_t owner_;                   // the process that opened the file: a forked child has no thread
};

}  // namespace mapout::detail
