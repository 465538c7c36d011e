// Replacing a file through a temporary: an unnamed one where the system makes it, then linked to a
// hidden name and renamed over the target, since a link cannot replace an existing file.
#include "replace/replacement.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <new>
#include <random>

#include "platform/platform.hpp"

namespace mapout::detail {
namespace {

// A final symbolic link is followed this many times at most, as the kernel does (ELOOP).
constexpr int most_links_followed = 40;
// Fresh names tried while another file has the one made.
constexpr int name_attempts = 100;
// What the hidden name adds to the target's: ".", ".mapout-" and the suffix.
constexpr std::size_t hidden_name_overhead = 1 + 8 + 6;

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

// The path a chain of final symbolic links leads to; `path` itself when it is no link or does not
// exist (opening would create it there). Each link is one the system's rules let us follow
// (platform::may_follow): where the chain ends in no file, the kernel's open could not check it.
error_cause follow_final_links(std::string& path) {
  for (int followed = 0; followed < most_links_followed; ++followed) {
    struct stat link;
    if (sys().fstatat(AT_FDCWD, path.c_str(), &link, AT_SYMLINK_NOFOLLOW) != 0) {
      return errno == ENOENT ? error_cause{} : errno_failure("open");
    }
    if (!S_ISLNK(link.st_mode)) return {};
    struct stat directory;
    if (sys().fstatat(AT_FDCWD, directory_of(path).c_str(), &directory, 0) != 0) {
      return errno_failure("open");
    }
    if (!platform::may_follow(link, directory)) return {EACCES, "open"};
    char target[PATH_MAX];
    const ssize_t length = sys().readlink(path.c_str(), target, sizeof target);
    if (length < 0) return errno_failure("readlink");
    if (static_cast<std::size_t>(length) == sizeof target) return {ENAMETOOLONG, "readlink"};
    const std::string next(target, static_cast<std::size_t>(length));
    const std::size_t slash = path.rfind('/');
    // A relative link is relative to the link's own directory.
    path = next[0] == '/' || slash == std::string::npos ? next : path.substr(0, slash + 1) + next;
  }
  return {ELOOP, "open"};
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

bool same_inode(const struct stat& a, const struct stat& b) noexcept {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

}  // namespace

error_cause replacement::create(const char* path, std::unique_ptr<replacement>& out,
                                descriptor& temporary) noexcept {
  try {
    out.reset(new replacement);
    replacement& r = *out;
    // std::ofstream's open without O_CREAT and O_TRUNC: the kernel resolves the path with its
    // checks, and nothing is made or changed. O_NONBLOCK: a FIFO put there meanwhile must not
    // block the open.
    const descriptor opened(
        retry_on_eintr(sys().open, path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC, mode_t{0}));
    if (!opened && errno != ENOENT) return errno_failure("open");
    r.target_exists_ = static_cast<bool>(opened);
    r.target_path_ = path;
    if (error_cause why = r.find_target(opened)) return why;
    if (error_cause why = r.create_temporary(temporary)) return why;
    if (r.target_exists_) {
      // Held without write access: a file open for writing cannot be executed (ETXTBSY).
      r.target_file_ = platform::hold(r.directory_.get(), r.target_name_.c_str());
      struct stat held;
      if (!r.target_file_ || sys().fstat(r.target_file_.get(), &held) != 0 ||
          !same_inode(held, r.target_)) {
        return {EAGAIN, "open"};
      }
    }
    return {};
  } catch (const std::bad_alloc&) {
    return {ENOMEM, "open"};
  }
}

error_cause replacement::find_target(const descriptor& opened) noexcept {
  if (target_exists_ && sys().fstat(opened.get(), &target_) != 0) return errno_failure("fstat");
  // A FIFO or device put there since the caller looked: no file to replace.
  if (target_exists_ && !S_ISREG(target_.st_mode)) return {EAGAIN, "open"};
  if (error_cause why = follow_final_links(target_path_)) return why;
  const std::size_t slash = target_path_.rfind('/');
  target_name_ = slash == std::string::npos ? target_path_ : target_path_.substr(slash + 1);
  directory_ = descriptor(retry_on_eintr(sys().open, directory_of(target_path_).c_str(),
                                         O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode_t{0}));
  if (!directory_) return errno_failure("open directory");
  if (!target_exists_) {
    // A link may name a file whose name is too long to make.
    if (target_name_.size() > NAME_MAX) return {ENAMETOOLONG, "open"};
    return {};
  }
  struct stat directory;
  if (sys().fstat(directory_.get(), &directory) != 0) return errno_failure("fstat");
  if (directory.st_mode & S_ISVTX) {
    // A system may judge opens that may create, as std::ofstream's does, of a file that exists in
    // a sticky directory (Linux's protected files): open it so once more, where it is.
    const descriptor creating(retry_on_eintr(
        sys().open, target_path_.c_str(),
        O_WRONLY | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC, mode_t{0666}));
    struct stat named;
    if (!creating) return errno_failure("open");
    if (sys().fstat(creating.get(), &named) != 0 || !same_inode(named, target_)) {
      return {EAGAIN, "open"};
    }
  }
  // Known now rather than at close, after all the work.
  if (!platform::may_replace(target_, directory)) return {EPERM, "replace"};
  return {};
}

error_cause replacement::create_temporary(descriptor& temporary) noexcept {
  // The temporary's bits until close are never more than the final file's owner bits. An unnamed
  // temporary for a new file takes 0666 and the umask (or the directory's default ACL) as
  // std::ofstream's file would: no one can open it before it is named at close.
  const error_cause unnamed = platform::create_unnamed_temporary(
      directory_.get(), target_exists_ ? target_.st_mode & 0600 : mode_t{0666}, temporary);
  if (unnamed.error != ENOTSUP) return unnamed;
  if (!target_exists_) new_mode_ = platform::new_file_mode();
  const mode_t private_mode = (target_exists_ ? target_.st_mode : new_mode_) & 0600;
  if (error_cause why = make_unique_name([&](const char* name) {
        temporary = descriptor(retry_on_eintr(sys().openat, directory_.get(), name,
                                              O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, private_mode));
        return static_cast<bool>(temporary);
      })) {
    return {why.error, "open temporary"};
  }
  return {};
}

replacement::~replacement() {
  discard();
}

bool replacement::target_untouched() const noexcept {
  if (!target_exists_) return false;
  struct stat now;
  struct stat named;
  return sys().fstat(target_file_.get(), &now) == 0 && now.st_nlink > 0 &&
         platform::same_version(now, target_) &&
         sys().fstatat(directory_.get(), target_name_.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
         same_inode(named, target_);
}

error_cause replacement::settle(int temporary) noexcept {
  if (!target_exists_) {
    return new_mode_ == 0 || sys().fchmod(temporary, new_mode_) == 0 ? error_cause{}
                                                                     : errno_failure("fchmod");
  }
  struct stat made;
  if (sys().fstat(temporary, &made) != 0) return errno_failure("fstat");
  if (made.st_uid != target_.st_uid || made.st_gid != target_.st_gid) {
    // Root gives the old owner and group, as sed -i does; a member of the old group, the group.
    // Others may not (EPERM; EINVAL for an ID unmapped in a user namespace).
    if (sys().fchown(temporary, target_.st_uid, target_.st_gid) != 0 &&
        sys().fchown(temporary, static_cast<uid_t>(-1), target_.st_gid) != 0 && errno != EPERM &&
        errno != EINVAL) {
      return errno_failure("fchown");
    }
    if (sys().fstat(temporary, &made) != 0) return errno_failure("fstat");
  }
  mode_t mode = target_.st_mode & 07777;
  // A set-ID bit lends its owner's or group's rights: only with the old owner and group.
  if (made.st_uid != target_.st_uid || made.st_gid != target_.st_gid) mode &= ~(S_ISUID | S_ISGID);
  // After fchown, which clears set-ID bits.
  return sys().fchmod(temporary, mode) == 0 ? error_cause{} : errno_failure("fchmod");
}

template <class Make>
error_cause replacement::make_unique_name(Make make) noexcept {
  try {
    // A shorter hidden name for a long target's, within NAME_MAX.
    const std::string stem = target_name_.substr(0, NAME_MAX - hidden_name_overhead);
    for (int attempt = 0; attempt < name_attempts; ++attempt) {
      std::string name = "." + stem + ".mapout-" + random_suffix();
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

error_cause replacement::link(int temporary) noexcept {
  if (!temporary_name_.empty()) return {};
  return make_unique_name(
      [&](const char* name) { return platform::link_unnamed(temporary, directory_.get(), name); });
}

error_cause replacement::rename(bool durable) noexcept {
  // Its identity is checked: Windows renames over no file that is open.
  target_file_.close();
  if (sys().renameat(directory_.get(), temporary_name_.c_str(), directory_.get(),
                     target_name_.c_str()) != 0) {
    const error_cause why = errno_failure("rename");
    discard();
    return why;
  }
  temporary_name_.clear();
  if (durable && retry_on_eintr(sys().fsync, directory_.get()) != 0) {
    return errno_failure("fsync directory");
  }
  return {};
}

error_cause replacement::discard() noexcept {
  if (temporary_name_.empty()) return {};
  const int removed = sys().unlinkat(directory_.get(), temporary_name_.c_str(), 0);
  temporary_name_.clear();
  return removed == 0 ? error_cause{} : errno_failure("unlink temporary");
}

}  // namespace mapout::detail
