// Opening a part of a parallel output over its own descriptor, positions counted from its start.
#include "parallel_part.hpp"

#include "output_file_state.hpp"

namespace mapout::detail {

void part_access::open(mapout::ostream& stream, const std::filesystem::path& name, descriptor& fd,
                       std::int64_t origin, const options& opts, std::atomic<bool>& closed) {
  streambuf& buf = stream.buf_;
  output_file& file = buf.file_;
  if (file.open(name, fd.get(), std::ios_base::out, opts)) {
    stream.fail_with(std::ios_base::failbit);
    return;
  }
  fd.release();
  file.state_->origin = origin;
  file.state_->closed = &closed;
  buf.positioned_ = true;
  buf.set_put_area(file.current());
  stream.clear();
}

}  // namespace mapout::detail
