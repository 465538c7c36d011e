// A part of a parallel output as its stream sees it: the backend that writes the part, wrapped so
// that positions count from where the part starts and the other threads learn of its close.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "backends/backend.hpp"
#include "mapout/options.hpp"

namespace mapout::detail {

// Forwards every call to `inner`, the part's own backend, shifting positions by `origin` (bytes
// before it are another part's, as bytes before the start of a file of its own), and raises
// `closed` once the part's bytes are final. A hand-over the inner backend asks for happens here,
// with `opts`, so that the wrapper stays on top of whichever backend writes.
class part_backend final : public backend {
 public:
  part_backend(open_file& file, std::unique_ptr<backend> inner, std::int64_t origin,
               const options& opts, std::atomic<bool>& closed) noexcept;

  seek_range seekable() const noexcept override;
  void keep_stored_up_to(const char* end) noexcept override { inner_->keep_stored_up_to(end); }
  bool is_mapped() const noexcept override { return inner_->is_mapped(); }
  step make_room(char* put, std::size_t wanted) noexcept override;
  step write(char* put, const char* data, std::size_t size) noexcept override;
  std::int64_t tell(const char* put) const noexcept override;
  step seek(char* put, std::int64_t offset, std::ios_base::seekdir dir,
            std::int64_t& position) noexcept override;
  step flush(char* put) noexcept override;
  error_cause publish(char* put) noexcept override { return after(inner_->publish(put)); }
  error_cause publish_at_flush(char* put) noexcept override {
    return after(inner_->publish_at_flush(put));
  }
  error_cause persist(char* put) noexcept override { return after(inner_->persist(put)); }
  error_cause finish(char* put) noexcept override;

 private:
  // Makes the inner backend's call, hands the file over where its step asks, and takes its
  // window: the caller sees every step as done.
  template <class... Parameters, class... Arguments>
  step run(char* put, step (backend::*call)(char*, Parameters...) noexcept,
           Arguments&&... arguments) noexcept;
  error_cause after(error_cause why) noexcept {
    window_ = inner_->current();
    return why;
  }

  std::unique_ptr<backend> inner_;
  std::int64_t origin_;
  options opts_;
  std::atomic<bool>& closed_;
};

}  // namespace mapout::detail
