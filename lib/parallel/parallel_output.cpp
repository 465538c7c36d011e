// mapout::parallel_output: the parts, which thread holds each, and the close that joins them.
#include "mapout/parallel.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <list>
#include <mutex>
#include <thread>
#include <vector>

#include "backends/backend.hpp"
#include "base/error_text.hpp"
#include "parallel/parallel_join.hpp"
#include "parallel/parallel_part.hpp"
#include "platform/platform.hpp"
#include "replace/replace_session.hpp"

namespace mapout {
namespace {

using detail::error_cause;

// A failure as parallel_output reports it: the code and the whole message.
struct report {
  std::error_code code;
  std::string message;
  explicit operator bool() const noexcept { return static_cast<bool>(code); }
};

report report_of(const error_cause& why, const std::filesystem::path& path) {
  const std::error_code code = detail::code_of(why);
  return {
      code,
      std::ios_base::failure(detail::error_context(why.operation, path, why.detail), code).what()};
}

// Every part in place writes as a mapout::ostream would; a part in memory stores into its memory
// (docs/decisions.md, "where a part's bytes wait"). Replacing and syncing wait for the join.
options part_options(options opts) {
  opts.atomic = false;
  opts.write_if_changed = false;
  opts.durable = false;
  return opts;
}

struct part_slot {
  std::once_flag opening;
  // The thread that asked for the part first; part() refuses the part to any other.
  std::atomic<std::thread::id> holder{};
  // Raised by the stream's close(): the fields below are then final, and a later part may open
  // in place.
  std::atomic<bool> closed{false};
  // Set inside `opening`: close() runs after the threads that wrote the parts have stopped.
  bool touched = false;
  // Written straight into the file from `origin`; otherwise held in `memory` until the join.
  bool in_place = false;
  std::uint64_t origin = 0;
  // An in-place part's size, known once the next part in place opens after it.
  std::uint64_t placed_size = 0;
  error_cause open_failure;      // why the part's descriptor or memory could not be made
  detail::memory_region memory;  // a part held in memory: what its stream stores into
  mapout::ostream stream;
};

}  // namespace

class parallel_output::impl {
 public:
  impl(const std::filesystem::path& path, std::size_t parts, const options& opts)
      : path_(path),
        name_(detail::platform::path_text(path)),
        opts_(opts),
        parts_(parts),
        slots_(new part_slot[parts]) {
    if (error_cause why = open_destination()) {
      dest_.fd.close();
      session_.reset();
      early_ = report_of(why, path_);
    }
  }

  std::size_t parts() const noexcept { return parts_; }

  mapout::ostream& part(std::size_t k) {
    if (k >= parts_) {
      return refuse(
          std::make_error_code(std::errc::invalid_argument),
          detail::error_text("part", path_,
                             "no part " + std::to_string(k) + " in " + std::to_string(parts_)));
    }
    part_slot& slot = slots_[k];
    const std::thread::id self = std::this_thread::get_id();
    std::thread::id none;
    if (!slot.holder.compare_exchange_strong(none, self) && none != self) {
      return refuse(std::make_error_code(std::errc::device_or_resource_busy),
                    detail::error_text("part", path_,
                                       "part " + std::to_string(k) + " is held by another thread"));
    }
    std::call_once(slot.opening, [&] { open_part(k, slot); });
    return slot.stream;
  }

  std::error_code close() noexcept {
    if (closed_) return result_.code;
    closed_ = true;
    report first = early();
    for (std::size_t k = 0; k < parts_; ++k) {
      report closed = close_part(k);
      if (!first) first = std::move(closed);
    }
    std::vector<std::uint64_t> sizes(parts_);
    if (report measured = measure(sizes); !first) first = std::move(measured);
    // Without a replacement, what the parts hold reaches the file even after a failure, as the
    // bytes before a failed write reach it through a mapout::ostream.
    if (!first || !session_) {
      report joined = join(sizes);
      if (!first) first = std::move(joined);
    }
    finish(first);
    result_ = std::move(first);
    return result_.code;
  }

  std::error_code discard() noexcept {
    if (closed_) return result_.code;
    if (!session_) return close();
    closed_ = true;
    for (std::size_t k = 0; k < parts_; ++k) {
      if (slots_[k].stream.is_open()) slots_[k].stream.close();
      slots_[k].memory.release();
    }
    session_->drop(dest_);
    session_.reset();
    if (dest_.error) result_ = report_of(dest_.error, path_);
    return result_.code;
  }

  bool is_open() const noexcept { return !closed_ && dest_.fd; }
  bool discards_at_destruction() const noexcept { return opts_.atomic; }

  report outcome() const { return closed_ ? result_ : early(); }
  std::error_code code() const noexcept {
    if (closed_) return result_.code;
    const std::lock_guard<std::mutex> lock(mutex_);
    return early_.code;
  }

 private:
  error_cause open_destination() noexcept {
    struct stat st;
    // A FIFO or device has no offsets to place parts at, and is never replaced.
    if (detail::sys().stat(name_.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
      if (S_ISDIR(st.st_mode)) return {EISDIR, "open"};
      return {ENODEV, "open", "a parallel output needs a regular file"};
    }
    if (opts_.atomic || opts_.write_if_changed) {
      return detail::replace_session::open(name_.c_str(), opts_, dest_, session_);
    }
    dest_.fd = detail::descriptor(detail::retry_on_eintr(
        detail::sys().open, name_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, mode_t{0666}));
    return dest_.fd ? error_cause{} : detail::errno_failure("open");
  }

  void open_part(std::size_t k, part_slot& slot) {
    slot.touched = true;
    if (!dest_.fd) {
      slot.stream.setstate(std::ios_base::failbit);
      return;
    }
    std::uint64_t origin = 0;
    std::uint64_t end = 0;
    if (!place_of(k, origin, end)) {
      open_in_memory(slot);
      return;
    }
    detail::descriptor fd = descriptor_for_part(slot);
    // The file ends where the part starts, as a file of its own starts empty; the parts in
    // memory before it leave a hole that the join fills. Only a hole changes the size: ext4
    // writes back at close a file truncated to nothing (docs/decisions.md).
    if (fd && origin != end &&
        detail::retry_on_eintr(detail::sys().ftruncate, fd.get(), static_cast<off_t>(origin)) !=
            0) {
      slot.open_failure = detail::errno_failure("truncate");
      fd.close();
    }
    if (fd && detail::sys().lseek(fd.get(), static_cast<off_t>(origin), SEEK_SET) < 0) {
      slot.open_failure = detail::errno_failure("lseek");
      fd.close();
    }
    if (!fd) {
      slot.stream.setstate(std::ios_base::failbit);
      return;
    }
    detail::open_part_in_place(slot.stream, path_, fd, static_cast<std::int64_t>(origin),
                               part_options(opts_), slot.closed);
    slot.in_place = slot.stream.is_open();
    slot.origin = origin;
  }

  // A part that runs ahead of its place: its stream stores into memory of its own.
  void open_in_memory(part_slot& slot) {
    slot.open_failure = slot.memory.reserve();
    if (slot.open_failure) {
      slot.stream.setstate(std::ios_base::failbit);
      return;
    }
    detail::open_part_in_memory(slot.stream, path_, slot.memory, part_options(opts_), slot.closed);
  }

  // Whether part k's place in the file is known: every part before it is closed. `origin` is
  // then where it starts: the end of the last part in place before it, and of the parts in
  // memory after that one; `end` is where the file ends, 0 before any part in place. Parts in
  // place open one at a time (each waits for every part before it), so nothing else writes the
  // file meanwhile.
  bool place_of(std::size_t k, std::uint64_t& origin, std::uint64_t& end) {
    std::uint64_t held = 0;
    for (std::size_t j = k; j-- > 0;) {
      part_slot& before = slots_[j];
      if (!before.closed.load(std::memory_order_acquire)) return false;
      if (!before.in_place) {
        if (!before.memory) return false;
        held += before.memory.size();
        continue;
      }
      // A part in place opened after every part before it had closed: the parts before j are
      // placed already.
      struct stat st;
      if (detail::sys().fstat(dest_.fd.get(), &st) != 0) return false;
      end = static_cast<std::uint64_t>(st.st_size);
      before.placed_size = end - before.origin;
      origin = end + held;
      return true;
    }
    origin = held;
    return true;
  }

  // A descriptor for the part's stream, which closes it: the file opened again where the system
  // names it, with an offset of its own; elsewhere one that shares the output's offset, which is
  // the part's alone: one part in place is open at a time, and the output's own descriptor never
  // reads or writes at its offset (docs/decisions.md, "A part in place where no name opens the
  // file again").
  detail::descriptor descriptor_for_part(part_slot& slot) {
    detail::descriptor own = detail::platform::open_again(dest_.fd.get());
    if (!own) slot.open_failure = detail::errno_failure("open");
    return own;
  }

  // A stream that is not open, with failbit, for a part() that cannot be granted; kept until the
  // output goes, since the caller holds a reference.
  mapout::ostream& refuse(std::error_code code, std::string message) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!early_) early_ = {code, std::move(message)};
    mapout::ostream& stream = refused_.emplace_back();
    stream.setstate(std::ios_base::failbit);
    return stream;
  }

  report early() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return early_;
  }

  // The stream's message, which names the output's path, naming the part too.
  report part_report(std::size_t k, const part_slot& slot, std::error_code code) const {
    std::string message = slot.stream.error_message();
    std::string named = "'";
    named += detail::platform::path_shown(path_);
    std::string part = named;
    named += "'";
    const std::size_t at = message.find(named);
    if (at == std::string::npos) return {code, message};
    part += "' part ";
    part += std::to_string(k);
    return {code, message.replace(at, named.size(), part)};
  }

  // Closes part k if it is still open; the first failure of its life.
  report close_part(std::size_t k) {
    part_slot& slot = slots_[k];
    if (!slot.touched || !dest_.fd) return {};
    if (slot.open_failure) return report_of(slot.open_failure, path_);
    if (slot.stream.is_open()) slot.stream.close();
    if (const std::error_code code = slot.stream.error()) return part_report(k, slot, code);
    if (slot.stream.bad()) {
      return report_of({EIO, "write", "a part's stream lost bytes (badbit)"}, path_);
    }
    return {};
  }

  // Every part's size once all are closed, failed or not: a part in memory is what it stored, one
  // in place ends where the next one in place found the file's end, or where the file ends now.
  report measure(std::vector<std::uint64_t>& sizes) {
    if (!dest_.fd) return {};
    struct stat st;
    part_slot* last_in_place = nullptr;
    for (std::size_t k = 0; k < parts_; ++k) {
      part_slot& slot = slots_[k];
      if (slot.in_place) {
        sizes[k] = slot.placed_size;
        last_in_place = &slot;
      } else if (slot.memory) {
        sizes[k] = slot.memory.size();
      }
    }
    if (!last_in_place) return {};
    if (detail::sys().fstat(dest_.fd.get(), &st) != 0) {
      return report_of(detail::errno_failure("fstat"), path_);
    }
    const std::size_t k = static_cast<std::size_t>(last_in_place - slots_.get());
    const auto end = static_cast<std::uint64_t>(st.st_size);
    sizes[k] = end > last_in_place->origin ? end - last_in_place->origin : 0;
    return {};
  }

  // Copies the parts held in memory into their places among those written in place, and frees
  // their memory.
  report join(const std::vector<std::uint64_t>& sizes) {
    std::vector<detail::placed_copy> copies;
    std::uint64_t offset = 0;
    for (std::size_t k = 0; k < parts_; ++k) {
      if (slots_[k].memory && sizes[k] > 0) {
        copies.push_back({slots_[k].memory.data(), sizes[k], offset});
      }
      offset += sizes[k];
    }
    const unsigned threads = std::max(std::thread::hardware_concurrency(), 1u);
    error_cause why = detail::copy_into_place(dest_.fd.get(), copies, threads,
                                              detail::join_copy_for(dest_.fd.get(), opts_));
    for (std::size_t k = 0; k < parts_; ++k) {
      const error_cause released = slots_[k].memory.release();
      if (!why) why = released;
    }
    if (why) return report_of(why, path_);
    return compare(offset);
  }

  // write_if_changed: the joined bytes, `size` in all, go to the comparison with the old file.
  report compare(std::uint64_t size) {
    if (!session_ || !session_->compares() || size == 0) return {};
    void* const data = detail::sys().mmap(nullptr, static_cast<std::size_t>(size), PROT_READ,
                                          MAP_SHARED, dest_.fd.get(), 0);
    if (data == MAP_FAILED) return report_of(detail::errno_failure("map"), path_);
    constexpr std::uint64_t stretch = std::uint64_t{1} << 20;
    for (std::uint64_t at = 0; at < size; at += stretch) {
      session_->compare(at, static_cast<const char*>(data) + at,
                        static_cast<std::size_t>(std::min(stretch, size - at)));
    }
    detail::sys().munmap(data, static_cast<std::size_t>(size));
    return {};
  }

  // Replaces the target, or syncs and closes the file; a failure before drops a replacement.
  void finish(report& first) noexcept {
    if (!dest_.fd) return;
    if (session_) {
      if (first) {
        session_->drop(dest_);
      } else {
        session_->commit(dest_, opts_.durable);
        if (dest_.error) first = report_of(dest_.error, path_);
      }
      session_.reset();
      return;
    }
    if (!first && opts_.durable &&
        detail::retry_on_eintr(detail::sys().fdatasync, dest_.fd.get()) != 0) {
      first = report_of(detail::errno_failure("fdatasync"), path_);
    }
    const error_cause closed = dest_.fd.close();
    if (!first && closed) first = report_of(closed, path_);
  }

  std::filesystem::path path_;
  std::string name_;  // path_ as the system's calls take it
  options opts_;
  std::size_t parts_;
  std::unique_ptr<part_slot[]> slots_;
  // The file the parts are joined in: the target, or with atomic or write_if_changed the
  // temporary that replaces it.
  detail::open_file dest_;
  std::unique_ptr<detail::replace_session> session_;
  mutable std::mutex mutex_;
  report early_;  // the failure of opening, or the first refused part()
  std::list<mapout::ostream> refused_;
  bool closed_ = false;
  report result_;
};

parallel_output::parallel_output(const std::filesystem::path& path, std::size_t parts,
                                 const options& opts)
    : impl_(new impl(path, parts, opts)) {}

parallel_output::~parallel_output() {
  if (impl_->discards_at_destruction()) {
    impl_->discard();
  } else {
    impl_->close();
  }
}

std::size_t parallel_output::parts() const noexcept {
  return impl_->parts();
}

mapout::ostream& parallel_output::part(std::size_t k) {
  return impl_->part(k);
}

std::error_code parallel_output::close() noexcept {
  return impl_->close();
}

std::error_code parallel_output::discard() noexcept {
  return impl_->discard();
}

bool parallel_output::is_open() const noexcept {
  return impl_->is_open();
}

std::error_code parallel_output::error() const noexcept {
  return impl_->code();
}

std::string parallel_output::error_message() const {
  return impl_->outcome().message;
}

}  // namespace mapout
