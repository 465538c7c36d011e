// Replacing a file through a temporary: O_TMPFILE, then linkat(2) to a hidden name and renameat(2)
// over the target, since linkat cannot replace an existing file.
#include "replacement.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <new>
#include <random>

namespace mapout::detail {
namespace {

// A final symbolic link is followed this many times at most, as the kernel does (ELOOP).
constexpr int most_links_followed = 40;
// Fresh names tried while another file has the one made.
constexpr int name_attempts = 100;

// The path a chain of final symbolic links leads to; `path` itself when it is no link or does not
// exist (opening would create it there).
failure follow_final_links(std::string& path) {
  for (int followed = 0; followed < most_links_followed; ++followed) {
    char target[PATH_MAX];
    const ssize_t length = sys().readlink(path.c_str(), target, sizeof target);
    if (length < 0) {
      return errno == EINVAL || errno == ENOENT ? failure{} : errno_failure("readlink");
    }
    if (static_cast<std::size_t>(length) == sizeof target) return {ENAMETOOLONG, "readlink"};
    const std::string link(target, static_cast<std::size_t>(length));
    const std::size_t slash = path.rfind('/');
    // A relative link is relative to the link's own directory.
    path = link[0] == '/' || slash == std::string::npos ? link : path.substr(0, slash + 1) + link;
  }
  return {ELOOP, "readlink"};
}

// A suffix no other writer is likely to pick in the same directory at the same moment.
std::string random_suffix() {
  static std::atomic<unsigned> counter{0};
  std::minstd_rand random(static_cast<unsigned>(
      std::chrono::steady_clock::now().time_since_epoch().count() ^ (getpid() << 16) ^ ++counter));
  static constexpr char letters[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string suffix(6, 'a');
  for (char& c : suffix) c = letters[random() % (sizeof letters - 1)];
  return suffix;
}

}  // namespace

failure replacement::create(const char* path, std::unique_ptr<replacement>& out,
                            descriptor& temporary) noexcept {
  try {
    out.reset(new replacement);
    replacement& r = *out;
    r.target_path_ = path;
    if (failure why = follow_final_links(r.target_path_)) return why;
    const std::size_t slash = r.target_path_.rfind('/');
    const std::string directory =
        slash == std::string::npos ? "." : r.target_path_.substr(0, slash == 0 ? 1 : slash);
    r.target_name_ = slash == std::string::npos ? r.target_path_ : r.target_path_.substr(slash + 1);
    r.directory_ = descriptor(retry_on_eintr(sys().open, directory.c_str(),
                                             O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode_t{0}));
    if (!r.directory_) return errno_failure("open directory");
    r.target_exists_ = sys().stat(r.target_path_.c_str(), &r.target_) == 0;
    if (r.target_exists_ && S_ISDIR(r.target_.st_mode)) return {EISDIR, "open"};

    temporary = descriptor(retry_on_eintr(sys().openat, r.directory_.get(), ".",
                                          O_TMPFILE | O_RDWR | O_CLOEXEC, mode_t{0666}));
    // File systems without O_TMPFILE refuse it with EOPNOTSUPP, or EISDIR on kernels that do not
    // know the flag.
    if (!temporary && errno != EOPNOTSUPP && errno != EISDIR)
      return errno_failure("open temporary");
    if (!temporary) {
      if (failure why = r.make_unique_name([&](const char* name) {
            temporary =
                descriptor(retry_on_eintr(sys().openat, r.directory_.get(), name,
                                          O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, mode_t{0666}));
            return static_cast<bool>(temporary);
          })) {
        return {why.error, "open temporary"};
      }
    }
    if (r.target_exists_ && sys().fchmod(temporary.get(), r.target_.st_mode & 07777) != 0) {
      return errno_failure("fchmod");
    }
    return {};
  } catch (const std::bad_alloc&) {
    return {ENOMEM, "open"};
  }
}

replacement::~replacement() {
  discard();
}

template <class Make>
failure replacement::make_unique_name(Make make) noexcept {
  try {
    for (int attempt = 0; attempt < name_attempts; ++attempt) {
      std::string name = "." + target_name_ + ".mapout-" + random_suffix();
      if (make(name.c_str())) {
        temporary_name_ = std::move(name);
        return {};
      }
      if (errno != EEXIST) return errno_failure("link");
    }
    return {EEXIST, "link"};
  } catch (const std::bad_alloc&) {
    return {ENOMEM, "link"};
  }
}

failure replacement::link(int temporary) noexcept {
  if (!temporary_name_.empty()) return {};
  return make_unique_name([&](const char* name) {
    if (sys().linkat(temporary, "", directory_.get(), name, AT_EMPTY_PATH) == 0) return true;
    // AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; the descriptor's /proc link does not.
    if (errno != ENOENT && errno != EPERM) return false;
    char proc_path[64];
    std::snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", temporary);
    return sys().linkat(AT_FDCWD, proc_path, directory_.get(), name, AT_SYMLINK_FOLLOW) == 0;
  });
}

failure replacement::rename(bool durable) noexcept {
  if (sys().renameat(directory_.get(), temporary_name_.c_str(), directory_.get(),
                     target_name_.c_str()) != 0) {
    const failure why = errno_failure("rename");
    discard();
    return why;
  }
  temporary_name_.clear();
  if (durable && retry_on_eintr(sys().fsync, directory_.get()) != 0) {
    return errno_failure("fsync directory");
  }
  return {};
}

failure replacement::discard() noexcept {
  if (temporary_name_.empty()) return {};
  const int removed = sys().unlinkat(directory_.get(), temporary_name_.c_str(), 0);
  temporary_name_.clear();
  return removed == 0 ? failure{} : errno_failure("unlink temporary");
}

}  // namespace mapout::detail
