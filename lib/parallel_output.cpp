// mapout::parallel_output: the parts, which thread holds each, and the close that joins them.
#include "mapout/parallel.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <list>
#include <mutex>
#include <thread>
#include <vector>

#include "backend.hpp"
#include "error_text.hpp"
#include "parallel_join.hpp"
#include "platform/platform.hpp"
#include "replace_session.hpp"

namespace mapout {
namespace {

using detail::failure;

// A failure as parallel_output reports it: the code and the whole message.
struct report {
  std::error_code code;
  std::string message;
  explicit operator bool() const noexcept { return static_cast<bool>(code); }
};

report report_of(const failure& why, const std::filesystem::path& path) {
  const std::error_code code = detail::code_of(why);
  return {
      code,
      std::ios_base::failure(detail::error_context(why.operation, path, why.detail), code).what()};
}

// A part's stream opens its file by this name: the output's own descriptor, or the part's memory.
std::string descriptor_path(int fd) {
  return "/proc/self/fd/" + std::to_string(fd);
}

// Part 0 writes the file as a mapout::ostream would; replacing and syncing wait for the join.
options in_place_options(options opts) {
  opts.atomic = false;
  opts.write_if_changed = false;
  opts.durable = false;
  return opts;
}

// A part held in memory is a mapping that grows, so that every byte is stored once before the
// join copies it.
options in_memory_options(const options& given) {
  options opts;
  opts.mapping_size = given.mapping_size;
  opts.strategy = strategy::mapped;
  opts.extension = given.extension;
  opts.guard_faults = given.guard_faults;
  return opts;
}

struct part_slot {
  std::once_flag opening;
  // The thread that asked for the part first; part() refuses the part to any other.
  std::atomic<std::thread::id> holder{};
  // Set inside `opening`: close() runs after the threads that wrote the parts have stopped.
  bool touched = false;
  failure memory_failure;     // why the part's memory could not be made
  detail::descriptor memory;  // parts after the first: the memory their stream writes into
  std::string stream_path;    // the name the stream's messages give instead of the output's
  mapout::ostream stream;
};

}  // namespace

class parallel_output::impl {
 public:
  impl(const std::filesystem::path& path, std::size_t parts, const options& opts)
      : path_(path), opts_(opts), parts_(parts), slots_(new part_slot[parts]) {
    if (failure why = open_destination()) {
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
    std::vector<std::uint64_t> sizes(parts_);
    for (std::size_t k = 0; k < parts_; ++k) {
      report closed = close_part(k, sizes[k]);
      if (!first) first = std::move(closed);
    }
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
      slots_[k].memory.close();
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
  failure open_destination() noexcept {
    struct stat st;
    // A FIFO or device has no offsets to place parts at, and is never replaced.
    if (detail::sys().stat(path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
      if (S_ISDIR(st.st_mode)) return {EISDIR, "open"};
      return {ENODEV, "open", "a parallel output needs a regular file"};
    }
    if (opts_.atomic || opts_.write_if_changed) {
      return detail::replace_session::open(path_.c_str(), opts_, dest_, session_);
    }
    dest_.fd = detail::descriptor(detail::retry_on_eintr(
        detail::sys().open, path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, mode_t{0666}));
    return dest_.fd ? failure{} : detail::errno_failure("open");
  }

  void open_part(std::size_t k, part_slot& slot) {
    slot.touched = true;
    if (!dest_.fd) {
      slot.stream.setstate(std::ios_base::failbit);
      return;
    }
    if (k == 0) {
      slot.stream_path = descriptor_path(dest_.fd.get());
      slot.stream.open(slot.stream_path, std::ios_base::out, in_place_options(opts_));
      return;
    }
    slot.memory_failure = detail::platform::create_memory_file(slot.memory);
    if (slot.memory_failure) {
      slot.stream.setstate(std::ios_base::failbit);
      return;
    }
    slot.stream_path = descriptor_path(slot.memory.get());
    slot.stream.open(slot.stream_path, std::ios_base::out, in_memory_options(opts_));
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

  // The stream's message with the output's path and the part in place of the descriptor's name.
  report part_report(std::size_t k, const part_slot& slot, std::error_code code) const {
    std::string message = slot.stream.error_message();
    const std::string named = "'" + slot.stream_path + "'";
    const std::size_t at = message.find(named);
    if (at == std::string::npos) return {code, message};
    std::string part = "'";
    part += path_.string();
    part += "' part ";
    part += std::to_string(k);
    return {code, message.replace(at, named.size(), part)};
  }

  // Closes part k if it is still open and finds its size, failed or not; the first failure of
  // its life.
  report close_part(std::size_t k, std::uint64_t& size) {
    size = 0;
    part_slot& slot = slots_[k];
    if (!slot.touched || !dest_.fd) return {};
    if (slot.memory_failure) return report_of(slot.memory_failure, path_);
    if (slot.stream.is_open()) slot.stream.close();
    struct stat st;
    const int fd = k == 0 ? dest_.fd.get() : slot.memory.get();
    if (detail::sys().fstat(fd, &st) != 0) return report_of(detail::errno_failure("fstat"), path_);
    size = static_cast<std::uint64_t>(st.st_size);
    if (const std::error_code code = slot.stream.error()) return part_report(k, slot, code);
    if (slot.stream.bad()) {
      return report_of({EIO, "write", "a part's stream lost bytes (badbit)"}, path_);
    }
    return {};
  }

  // Copies the parts held in memory into place after part 0, and frees their memory.
  report join(const std::vector<std::uint64_t>& sizes) {
    std::vector<detail::placed_copy> copies;
    std::uint64_t offset = parts_ > 0 ? sizes[0] : 0;
    for (std::size_t k = 1; k < parts_; ++k) {
      if (sizes[k] > 0) copies.push_back({slots_[k].memory.get(), sizes[k], offset});
      offset += sizes[k];
    }
    const unsigned threads = std::max(std::thread::hardware_concurrency(), 1u);
    const failure why = detail::copy_into_place(dest_.fd.get(), copies, threads);
    for (std::size_t k = 1; k < parts_; ++k) slots_[k].memory.close();
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
    const failure closed = dest_.fd.close();
    if (!first && closed) first = report_of(closed, path_);
  }

  std::filesystem::path path_;
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
