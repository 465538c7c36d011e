// The mapped strategy's cut at publish and close, finding where another writer's bytes end, and
// writing out what stores into scratch memory kept.
#include "backends/mapped_cut.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <new>

#include "mapping/pages.hpp"

namespace mapout::detail {
namespace {

error_cause cut_locked(const cut_parts& parts, std::uint64_t end, bool keep_bytes_past_end,
                       bool closing) noexcept {
  struct stat st;
  if (sys().fstat(parts.fd, &st) != 0) return errno_failure("fstat");
  const auto size = static_cast<std::uint64_t>(st.st_size);
  const bool others = parts.presence.others();
  const std::uint64_t closed_before = closed_end(parts.fd, st);
  if (closing) {
    // The last one to close must keep this one's bytes, though some may be zeros.
    if (others) {
      note_closed_end(parts.fd, st, end);
    } else {
      forget_closed_end(parts.fd, st);
    }
  }
  parts.pages.halt();
  if (!closing) {
    decide_free_running(parts.fd, parts.extend_on_fault, parts.high_water, others, parts.guard,
                        parts.free_running);
  }
  // From here on this writer stores only up to `end` without extending.
  if (!closing && !parts.free_running) {
    parts.guard.set_extent(std::min(parts.guard.extent(), end));
    parts.presence.claim(parts.guard.extent());
  }
  const std::uint64_t floor = std::max(parts.presence.others_claim(), closed_before);
  // Another writer's extension may grow the file at any moment: leave it alone.
  if (floor >= size || size <= end) return {};
  const std::uint64_t keep = std::max(
      keep_bytes_past_end ? end_of_data(parts.fd, std::max(end, floor), size) : end, floor);
  if (keep < size && retry_on_eintr(sys().ftruncate, parts.fd, static_cast<off_t>(keep)) != 0) {
    return errno_failure("ftruncate");
  }
  if (parts.extend_on_fault) parts.guard.set_extent(std::min(parts.guard.extent(), keep));
  // Truncating unmapped the pages past the end.
  parts.pages.cut(keep);
  return {};
}

}  // namespace

void decide_free_running(int fd, bool extend_on_fault, std::uint64_t high_water, bool others,
                         sigbus_guard& guard, bool& free_running) noexcept {
  if (!extend_on_fault) return;
  struct stat st;
  // Stores made running free may lie past the extent, in pages another writer added.
  if (free_running && others && sys().fstat(fd, &st) == 0) {
    const auto size = static_cast<std::uint64_t>(st.st_size);
    guard.set_extent(std::max(guard.extent(), std::min(high_water, size)));
  }
  free_running = !others;
}

error_cause cut_extension(const cut_parts& parts, std::uint64_t end, bool keep_bytes_past_end,
                          bool closing) noexcept {
  struct stat st;
  if (sys().fstat(parts.fd, &st) != 0) return errno_failure("fstat");
  if (!closing && static_cast<std::uint64_t>(st.st_size) <= end) return {};
  parts.presence.renew();
  // The size, the others' claims and the cut under one lock: a writer that joins or extends
  // meanwhile waits, and then sees the file as cut.
  parts.presence.lock_sizes();
  const error_cause why = cut_locked(parts, end, keep_bytes_past_end, closing);
  // A close drops its claim with the lock: a writer that took the lock between the two would
  // still see the claim, and cut no lower than it.
  if (closing) {
    parts.presence.leave();
  } else {
    parts.presence.unlock_sizes();
  }
  return why;
}

std::uint64_t end_of_data(int fd, std::uint64_t from, std::uint64_t to) noexcept {
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
        sys().mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(first));
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
      if (retry_on_eintr(sys().pread, fd, buffer.get(), size, static_cast<off_t>(begin)) !=
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

std::size_t salvage(int fd, const mapped_stretch& map, std::uint64_t from,
                    std::uint64_t to) noexcept {
  to = std::min(to, map.end());
  if (!map.begin || from < map.offset || to <= from) return 0;
  return write_all(fd, map.begin + (from - map.offset), static_cast<std::size_t>(to - from),
                   static_cast<off_t>(from));
}

}  // namespace mapout::detail
