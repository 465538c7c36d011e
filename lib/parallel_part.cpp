// Opening a part of a parallel output over its own descriptor or memory, positions counted from
// its start.
#include "parallel_part.hpp"

#include <new>

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

void part_access::open_in_memory(mapout::ostream& stream, const std::filesystem::path& name,
                                 memory_region& memory, const options& opts,
                                 std::atomic<bool>& closed) {
  streambuf& buf = stream.buf_;
  output_file& file = buf.file_;
  file.state_.reset(new (std::nothrow) output_file::state);
  output_file::state* const state = file.state_.get();
  if (state == nullptr) {
    stream.setstate(std::ios_base::failbit);
    return;
  }
  state->path = name;
  state->opts = opts;
  state->closed = &closed;
  if (error_cause why = memory_backend::create(state->file, memory, state->backend)) {
    state->file.error = why;
    stream.fail_with(std::ios_base::failbit);
    return;
  }
  buf.positioned_ = true;
  buf.set_put_area(file.current());
  stream.clear();
}

}  // namespace mapout::detail
