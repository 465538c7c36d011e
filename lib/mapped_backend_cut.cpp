// The mapped strategy at close: cutting the extension back to the bytes written, finding where
// another writer's bytes end, and writing out what stores into scratch memory kept.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>

#include "mapped_backend.hpp"
#include "pages.hpp"

namespace mapout::detail {

failure mapped_backend::cut_extension(std::uint64_t end, bool keep_bytes_past_end,
                                      bool closing) noexcept {
  struct stat st;
  if (sys().fstat(fd(), &st) != 0) return file_.fail("fstat");
  if (!closing && static_cast<std::uint64_t>(st.st_size) <= end) return {};
  presence_.renew();
  // The size, the others' claims and the cut under one lock: a writer that joins or extends
  // meanwhile waits, and then sees the file as cut.
  presence_.lock_sizes();
  const failure why = cut_locked(end, keep_bytes_past_end, closing);
  // A close drops its claim with the lock: a writer that took the lock between the two would
  // still see the claim, and cut no lower than it.
  if (closing) {
    presence_.leave();
  } else {
    presence_.unlock_sizes();
  }
  return why;
}

failure mapped_backend::cut_locked(std::uint64_t end, bool keep_bytes_past_end,
                                   bool closing) noexcept {
  struct stat st;
  if (sys().fstat(fd(), &st) != 0) return file_.fail("fstat");
  const auto size = static_cast<std::uint64_t>(st.st_size);
  const bool others = presence_.others();
  const std::uint64_t closed_before = closed_end(fd(), st);
  if (closing) {
    // The last one to close must keep this one's bytes, though some may be zeros.
    if (others) {
      note_closed_end(fd(), st, end);
    } else {
      forget_closed_end(fd(), st);
    }
  }
  halt_background();
  if (!closing) decide_free_running(others);
  // From here on this writer stores only up to `end` without extending.
  if (!closing && !free_running_) {
    guard_.set_extent(std::min(guard_.extent(), end));
    claim_extent();
  }
  const std::uint64_t floor = std::max(presence_.others_claim(), closed_before);
  // Another writer's extension may grow the file at any moment: leave it alone.
  if (floor >= size || size <= end) return {};
  const std::uint64_t keep =
      std::max(keep_bytes_past_end ? end_of_data(std::max(end, floor), size) : end, floor);
  if (keep < size && retry_on_eintr(sys().ftruncate, fd(), static_cast<off_t>(keep)) != 0) {
    return file_.fail("ftruncate");
  }
  if (extend_on_fault_) guard_.set_extent(std::min(guard_.extent(), keep));
  // Truncating unmapped the pages past the end.
  populated_end_ = std::min(populated_end_, page_floor(keep));
  populated_begin_ = std::min(populated_begin_, populated_end_);
  return {};
}

std::uint64_t mapped_backend::end_of_data(std::uint64_t from, std::uint64_t to) const noexcept {
  // Only pages in the page cache can hold bytes someone stored since the extension made them
  // (file systems report reserved blocks to SEEK_DATA as data). mincore on a view says which,
  // a 16 MiB stretch at a time from the end back, each asked before any read in it: a read
  // brings in a whole folio, and folios never cross such a stretch's aligned bounds.
  constexpr std::uint64_t stretch = std::uint64_t{16} << 20;
  constexpr std::size_t run_pages = 64;
  std::unique_ptr<char[]> buffer(new (std::nothrow) char[run_pages * page_size()]);
  unsigned char resident[stretch / 4096];  // pages are 4 KiB or larger
  if (!buffer) return to;                  // cannot tell: keep it all
  for (std::uint64_t stretch_end = to; stretch_end > from;) {
    const std::uint64_t first = std::max(page_floor(from), (stretch_end - 1) / stretch * stretch);
    const auto length = static_cast<std::size_t>(stretch_end - first);
    void* const view =
        sys().mmap(nullptr, length, PROT_READ, MAP_SHARED, fd(), static_cast<off_t>(first));
    if (view == MAP_FAILED) return stretch_end;
    const bool known = sys().mincore(view, length, resident) == 0;
    sys().munmap(view, length);
    if (!known) return stretch_end;
    // A run of resident pages at a time, from the last back: the first non-zero byte ends it.
    for (std::size_t last = (length + page_size() - 1) / page_size(); last > 0;) {
      if (!(resident[last - 1] & 1)) {
        --last;
        continue;
      }
      std::size_t run = last - 1;
      while (run > 0 && last - run < run_pages && (resident[run - 1] & 1)) --run;
      const std::uint64_t begin = std::max(first + run * page_size(), from);
      const std::uint64_t end = std::min(first + last * page_size(), stretch_end);
      const auto size = static_cast<std::size_t>(end - begin);
      // Through the descriptor: a page another process cut off raises no SIGBUS there.
      if (retry_on_eintr(sys().pread, fd(), buffer.get(), size, static_cast<off_t>(begin)) !=
          static_cast<ssize_t>(size)) {
        return end;  // unreadable: keep it
      }
      for (std::size_t at = size; at > 0; --at) {
        if (buffer[at - 1] != 0) return begin + at;
      }
      last = run;
    }
    stretch_end = first;
  }
  return from;
}

std::size_t mapped_backend::salvage(std::uint64_t from, std::uint64_t to) noexcept {
  to = std::min(to, map_offset_ + map_length_);
  if (!map_ || from < map_offset_ || to <= from) return 0;
  std::size_t written = 0;
  while (from + written < to) {
    const ssize_t done = retry_on_eintr(sys().pwrite, fd(), map_ + (from + written - map_offset_),
                                        static_cast<std::size_t>(to - from - written),
                                        static_cast<off_t>(from + written));
    if (done <= 0) break;
    written += static_cast<std::size_t>(done);
  }
  return written;
}

}  // namespace mapout::detail
