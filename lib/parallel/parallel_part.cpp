// Opening a part of a parallel output over its own descriptor or memory, positions counted from
// its start.
#include "parallel/parallel_part.hpp"

#include <utility>

#include "file/file_access.hpp"
#include "parallel/part_backend.hpp"

namespace mapout::detail {
namespace {

// The part's stream over `file`, its backend wrapped when it opened; a wrapper that cannot be
// allocated fails the open.
void open_wrapped(mapout::ostream& stream, output_file& file, std::int64_t origin,
                  const options& opts, std::atomic<bool>& closed) {
  if (file.is_open() && !file_access::wrap<part_backend>(file, origin, opts, closed)) {
    file = output_file();
    stream.setstate(std::ios_base::failbit);
    return;
  }
  stream.open(std::move(file));
}

}  // namespace

void open_part_in_place(mapout::ostream& stream, const std::filesystem::path& name, descriptor& fd,
                        std::int64_t origin, const options& opts, std::atomic<bool>& closed) {
  output_file file;
  if (!file_access::open(file, name, fd.get(), opts)) fd.release();
  open_wrapped(stream, file, origin, opts, closed);
}

void open_part_in_memory(mapout::ostream& stream, const std::filesystem::path& name,
                         memory_region& memory, const options& opts, std::atomic<bool>& closed) {
  output_file file;
  file_access::open_over(file, name, opts, [&](open_file& opened, std::unique_ptr<backend>& out) {
    return memory_backend::create(opened, memory, out);
  });
  open_wrapped(stream, file, 0, opts, closed);
}

}  // namespace mapout::detail
