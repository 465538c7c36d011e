// A file system mounted for one test: a small tmpfs, or a loop image made by mkfs (XFS, btrfs,
// ext2, ext4 with 1 KiB blocks). Mounting needs root; a test that cannot mount skips and says why.
#pragma once

#ifndef _WIN32
#include <sys/mount.h>
#endif

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "temp_dir.hpp"

namespace mapout::test {

class mounted_file_system {
 public:
  // A tmpfs of `size` ("1m", "64k").
  explicit mounted_file_system(const std::string& size) {
#ifdef _WIN32
    error_ = "a test under Windows cannot mount a tmpfs of " + size;
#else
    if (::mount("mapout-test", mount_point().c_str(), "tmpfs", 0, ("size=" + size).c_str()) == 0) {
      mounted_ = true;
    } else {
      error_ = std::string("mount tmpfs: ") + std::strerror(errno);
    }
#endif
  }
  // An image of `megabytes` MiB formatted by `mkfs` (a command that takes the image's path last).
  mounted_file_system(const std::string& mkfs, int megabytes) {
#ifdef _WIN32
    error_ = "a test under Windows cannot mount an image made by '" + mkfs + "' (" +
             std::to_string(megabytes) + " MiB)";
#else
    const std::string image = (dir_ / "image").string();
    const std::string quiet = " >/dev/null 2>&1";
    if (std::system(("truncate -s " + std::to_string(megabytes) + "M " + image + quiet).c_str()) !=
        0) {
      error_ = "truncate failed";
    } else if (std::system((mkfs + " " + image + quiet).c_str()) != 0) {
      error_ = "'" + mkfs + "' failed (is it installed?)";
    } else if (std::system(
                   ("mount -o loop " + image + " " + mount_point().string() + quiet).c_str()) !=
               0) {
      error_ = "mount -o loop failed (needs root and a loop device)";
    } else {
      mounted_ = true;
    }
#endif
  }
  mounted_file_system(const mounted_file_system&) = delete;
  mounted_file_system& operator=(const mounted_file_system&) = delete;
  ~mounted_file_system() {
#ifndef _WIN32
    if (mounted_) ::umount2(mount_point().c_str(), MNT_DETACH);
#endif
  }

  bool mounted() const {
    return mounted_;
  }
  // Why it is not mounted.
  const std::string& error() const {
    return error_;
  }
  std::filesystem::path operator/(const std::string& name) const {
    return mount_point() / name;
  }

 private:
  std::filesystem::path mount_point() const {
    std::filesystem::create_directories(dir_ / "mnt");
    return dir_ / "mnt";
  }

  temp_dir dir_;
  bool mounted_ = false;
  std::string error_;
};

}  // namespace mapout::test
