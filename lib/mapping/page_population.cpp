// The mapped strategy's populating policy: populating a bounded step ahead of the stores,
// or a thread that keeps a lead, and nothing after a seek back.
#include "mapping/page_population.hpp"

#include <unistd.h>

#include <algorithm>
#include <cassert>

#include "mapping/pages.hpp"
#include "platform/platform.hpp"
#include "platform/sys.hpp"

namespace mapout::detail {
namespace {

// How far ahead of the stores one populating call reaches: a page a store faults in costs a
// trip into the kernel each; bounded, because populated pages past the final size make the
// closing ftruncate slower (docs/decisions.md, "populate").
constexpr std::uint64_t populate_step = std::uint64_t{1} << 20;

// A file that grows past this streams on with a thread populating its pages this far ahead
// (docs/decisions.md, "populating from a second thread"); a smaller one is not worth a thread.
constexpr std::uint64_t background_from = std::uint64_t{8} << 20;
constexpr std::uint64_t background_lead = std::uint64_t{4} << 20;

}  // namespace

page_population::page_population(bool populates) noexcept
    : populates_(populates), owner_(::getpid()) {}

page_population::~page_population() {
  halt();
  // A forked child has the thread's memory but not the thread: joining it would never return.
  if (::getpid() != owner_) static_cast<void>(populator_.release());
}

void page_population::populate(const mapped_stretch& map, std::uint64_t extent,
                               std::uint64_t cursor, std::uint64_t written,
                               std::uint64_t needed) noexcept {
  const std::uint64_t limit = std::min(page_ceiling(extent), map.end());
  // Streaming: appending at the end of all that was written, or going on from populated pages.
  const bool streaming = cursor == written || (begin_ < end_ && cursor >= begin_ && cursor <= end_);
  if (!streaming) {
    // After a seek back, the stores fault in what this call needs themselves: a writer that
    // scatters blocks would otherwise populate a step for each (docs/decisions.md, "populate").
    // The window still ends there, so that a writer streaming on from there populates again.
    halt();
    begin_ = page_floor(cursor);
    end_ = std::min(limit, page_ceiling(needed));
    return;
  }
  if (needed <= end_) return;
  if (page_populator* const populator = background(map, needed)) {
    // The file may end before `needed` after a partial extension: no page past it is populated.
    const std::uint64_t wanted = std::min(limit, page_ceiling(needed));
    const std::uint64_t target = std::min(limit, page_ceiling(needed + background_lead));
    char* const done =
        populator->populate(map.begin + (wanted - map.offset), map.begin + (target - map.offset));
    if (!done) {
      populates_ = false;
      return;
    }
    end_ = map.offset + static_cast<std::uint64_t>(done - map.begin);
    return;
  }
  const std::uint64_t end = std::min(limit, page_ceiling(std::max(needed, end_ + populate_step)));
  if (end <= end_) return;
  if (!platform::populate_for_writing(map.begin + (end_ - map.offset),
                                      static_cast<std::size_t>(end - end_))) {
    // A system that populates nothing ahead, or a page that cannot be had: the stores fault the
    // pages in one at a time, and a failure shows where a store meets it.
    populates_ = false;
    return;
  }
  end_ = end;
}

void page_population::seek(const mapped_stretch& map, std::uint64_t target) noexcept {
  if (target >= begin_ && target <= end_) return;
  halt();
  begin_ = end_ = std::clamp(page_floor(target), map.offset, map.end());
}

void page_population::cut(std::uint64_t size) noexcept {
  end_ = std::min(end_, page_floor(size));
  begin_ = std::min(begin_, end_);
}

page_populator* page_population::background(const mapped_stretch& map,
                                            std::uint64_t needed) noexcept {
  if (needed < background_from || ::getpid() != owner_) return nullptr;
  if (!populator_tried_) {
    populator_tried_ = true;
    populator_ = page_populator::start();
  }
  if (populator_ && populator_halted_) {
    populator_->restart(map.begin + (end_ - map.offset));
    populator_halted_ = false;
  }
  return populator_.get();
}

void page_population::halt() noexcept {
  if (populator_halted_ || ::getpid() != owner_) return;
  populator_->halt();
  populator_halted_ = true;
}

void page_population::assert_invariant(const mapped_stretch& map) const noexcept {
  assert(begin_ <= end_ && begin_ % page_size() == 0 && end_ % page_size() == 0 &&
         (begin_ == end_ || (begin_ >= map.offset && end_ <= map.end())));
  static_cast<void>(map);
}

}  // namespace mapout::detail
