// The mapped strategy's cut: the extension past the bytes written goes when a writer publishes or
// closes, but never what another writer may store into, nor bytes someone stored there.
#pragma once

#include <cstddef>
#include <cstdint>

#include "mapping/page_population.hpp"
#include "mapping/sigbus_guard.hpp"
#include "mapping/writer_presence.hpp"
#include "platform/sys.hpp"

namespace mapout::detail {

// What a cut works on: the file, and the parts of its writer that must see the file as cut.
struct cut_parts {
  int fd;
  writer_presence& presence;
  sigbus_guard& guard;  // its extent: what this writer may store into
  page_population& pages;
  bool extend_on_fault;
  std::uint64_t high_water;  // the end of every byte written
  bool& free_running;        // see decide_free_running
};

// Whether an on_fault writer may run free from here on: only while no other writer holds the
// file, since a page another writer added past its extent would take its stores with no fault.
// Call with the sizes locked.
void decide_free_running(int fd, bool extend_on_fault, std::uint64_t high_water, bool others,
                         sigbus_guard& guard, bool& free_running) noexcept;

// Cuts what the file holds past `end`, this writer's last byte, but never below what another
// writer claims (or a forked copy of this one), nor below what writers of this process that
// closed first wrote. With `keep_bytes_past_end`, non-zero bytes anyone stored past `end` stay.
// Afterwards this writer claims no more than `end`, unless it is `closing`, which leaves.
error_cause cut_extension(const cut_parts& parts, std::uint64_t end, bool keep_bytes_past_end,
                          bool closing) noexcept;

// The end of the last non-zero byte of `fd` in [from, to) that is in the page cache, or `from`.
std::uint64_t end_of_data(int fd, std::uint64_t from, std::uint64_t to) noexcept;

// Writes [from, to) of the file from `map` (scratch memory after a failed extension) with
// pwrite(2), which writes every byte that fits. Returns how many it wrote.
std::size_t salvage(int fd, const mapped_stretch& map, std::uint64_t from,
                    std::uint64_t to) noexcept;

}  // namespace mapout::detail
