// The mapped strategy's populating policy: how far ahead of the stores pages are populated, and
// when a thread of the file's own does it (page_populator).
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

#include "mapped_backend.hpp"
#include "pages.hpp"

namespace mapout::detail {
namespace {

// How far ahead of the stores one MADV_POPULATE_WRITE reaches: a page a store faults in costs a
// trip into the kernel each; bounded, because populated pages past the final size make the
// closing ftruncate slower (docs/decisions.md, "populate").
constexpr std::uint64_t populate_step = std::uint64_t{1} << 20;

// A file that grows past this streams on with a thread populating its pages this far ahead
// (docs/decisions.md, "populating from a second thread"); a smaller one is not worth a thread.
constexpr std::uint64_t background_from = std::uint64_t{8} << 20;
constexpr std::uint64_t background_lead = std::uint64_t{4} << 20;

}  // namespace

void mapped_backend::populate(std::uint64_t needed) noexcept {
  // Never past the page that holds the end of the file: populating beyond it fails like a store.
  const std::uint64_t limit = std::min(page_ceiling(guard_.extent()), map_offset_ + map_length_);
  // Streaming: appending at the end of all that was written, or going on from populated pages.
  const bool streaming =
      cursor_ == high_water_ || (populated_begin_ < populated_end_ && cursor_ >= populated_begin_ &&
                                 cursor_ <= populated_end_);
  if (!streaming) {
    // After a seek back, the stores fault in what this call needs themselves: a writer that
    // scatters blocks would otherwise populate a step for each (docs/decisions.md, "populate").
    // The window still ends there, so that a writer streaming on from there populates again.
    halt_background();
    populated_begin_ = page_floor(cursor_);
    populated_end_ = std::min(limit, page_ceiling(needed));
    return;
  }
  if (needed <= populated_end_) return;
  if (page_populator* const populator = background(needed)) {
    // The file may end before `needed` after a partial extension: no page past it is populated.
    const std::uint64_t wanted = std::min(limit, page_ceiling(needed));
    const std::uint64_t target = std::min(limit, page_ceiling(needed + background_lead));
    char* const done =
        populator->populate(map_ + (wanted - map_offset_), map_ + (target - map_offset_));
    if (!done) {
      populates_ = false;
      return;
    }
    populated_end_ = map_offset_ + static_cast<std::uint64_t>(done - map_);
    return;
  }
  const std::uint64_t end =
      std::min(limit, page_ceiling(std::max(needed, populated_end_ + populate_step)));
  if (end <= populated_end_) return;
  if (retry_on_eintr(sys().madvise, map_ + (populated_end_ - map_offset_),
                     static_cast<std::size_t>(end - populated_end_), MADV_POPULATE_WRITE) != 0) {
    // Before Linux 5.14 (EINVAL), or a page that cannot be had: the stores fault the pages in
    // one at a time, and a failure shows where a store meets it.
    populates_ = false;
    return;
  }
  populated_end_ = end;
}

page_populator* mapped_backend::background(std::uint64_t needed) noexcept {
  if (needed < background_from || ::getpid() != owner_) return nullptr;
  if (!populator_tried_) {
    populator_tried_ = true;
    populator_ = page_populator::start();
  }
  if (populator_ && populator_halted_) {
    populator_->restart(map_ + (populated_end_ - map_offset_));
    populator_halted_ = false;
  }
  return populator_.get();
}

void mapped_backend::halt_background() noexcept {
  if (populator_halted_ || ::getpid() != owner_) return;
  populator_->halt();
  populator_halted_ = true;
}

}  // namespace mapout::detail
