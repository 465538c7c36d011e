// A part of a parallel output as a stream: a mapout::ostream over a descriptor of its own or over
// memory of its own, whose positions count from where the part starts and whose close() is seen
// by the other threads (part_backend.hpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>

#include "backends/memory_backend.hpp"
#include "mapout/options.hpp"
#include "mapout/ostream.hpp"
#include "platform/sys.hpp"

namespace mapout::detail {

// Opens `stream` over `fd`, taken over from the caller when the open succeeds, writing from
// `origin`, where fd's offset stands: tellp() reports it as 0, and seekp() before it fails.
// Messages name `name`. The stream's close() raises `closed` once the part's bytes are final. A
// failed open leaves the stream with failbit and its error(), as ostream::open does.
void open_part_in_place(mapout::ostream& stream, const std::filesystem::path& name, descriptor& fd,
                        std::int64_t origin, const options& opts, std::atomic<bool>& closed);
// Opens `stream` over `memory`, reserved, which keeps the bytes after the stream's close().
// Messages name `name`; the rest as open_part_in_place().
void open_part_in_memory(mapout::ostream& stream, const std::filesystem::path& name,
                         memory_region& memory, const options& opts, std::atomic<bool>& closed);

}  // namespace mapout::detail
