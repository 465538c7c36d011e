// atomic and write_if_changed against another user: symbolic links and files planted in sticky
// directories with the kernel's protections on, files the writer may not write, set-ID modes, and
// a file system without O_TMPFILE (a seccomp filter stands in for NFS, CIFS and vfat). Replacing
// must never grant more than std::ofstream writing in place would.
#include <grp.h>
#include <gtest/gtest.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "child_process.hpp"
#include "mapout/ostream.hpp"
#include "mapout/output_file.hpp"
#include "seccomp_filter.hpp"
#include "system_call_override.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::names_in;
using mapout::test::stat_of;
using mapout::test::this_architecture;

namespace fs = std::filesystem;
using mapout::test::read_file;
using mapout::test::temp_dir;
using mapout::test::write_file;

// Owners of the planted files: users that exist nowhere, as another user's files would.
constexpr uid_t directory_owner = 12345;
constexpr uid_t attacker = 23456;

uid_t nobody_uid() {
  const struct passwd* entry = ::getpwnam("nobody");
  return entry != nullptr ? entry->pw_uid : 65534;
}

gid_t nogroup_gid() {
  const struct group* entry = ::getgrnam("nogroup");
  return entry != nullptr ? entry->gr_gid : 65534;
}

mapout::options replacing(bool atomic, bool write_if_changed) {
  mapout::options opts;
  opts.atomic = atomic;
  opts.write_if_changed = write_if_changed;
  return opts;
}

// A file with `bytes`, owned by `uid`:`gid`, with `mode`.
void plant_file(const fs::path& path, const std::string& bytes, uid_t uid, gid_t gid, mode_t mode) {
  write_file(path, bytes);
  ASSERT_EQ(::chown(path.c_str(), uid, gid), 0) << path;
  ASSERT_EQ(::chmod(path.c_str(), mode), 0) << path;
}

void plant_link(const fs::path& path, const fs::path& target, uid_t uid) {
  fs::create_symlink(target, path);
  ASSERT_EQ(::lchown(path.c_str(), uid, uid), 0) << path;
}

void make_directory(const fs::path& path, uid_t uid, gid_t gid, mode_t mode) {
  fs::create_directory(path);
  ASSERT_EQ(::chown(path.c_str(), uid, gid), 0) << path;
  ASSERT_EQ(::chmod(path.c_str(), mode), 0) << path;
}

// A sysctl set for a scope and put back as it was when the scope ends, however it ends.
class kernel_setting {
 public:
  kernel_setting(const char* path, const char* value) : path_(path) {
    std::ifstream in(path_);
    std::getline(in, saved_);
    std::ofstream out(path_);
    out << value << '\n';
    out.close();
    set_ = !saved_.empty() && out.good();
  }
  kernel_setting(const kernel_setting&) = delete;
  kernel_setting& operator=(const kernel_setting&) = delete;
  ~kernel_setting() {
    if (set_) std::ofstream(path_) << saved_ << '\n';
  }
  bool set() const { return set_; }

 private:
  std::string path_;
  std::string saved_;
  bool set_ = false;
};

// Installs a seccomp filter under which openat(2) with O_TMPFILE fails with EOPNOTSUPP, as on a
// file system without it; every other call is let through. Little-endian: the flags' low word.
bool refuse_tmpfile_in_the_kernel() {
  if (this_architecture == 0) return false;
  return mapout::test::install_seccomp_filter({
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, this_architecture, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 0, 4),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
      BPF_STMT(BPF_ALU | BPF_AND | BPF_K, __O_TMPFILE),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __O_TMPFILE, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EOPNOTSUPP & SECCOMP_RET_DATA)),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  });
}

// ---- planted links and files, as nobody ----

// What nobody meets in the layout ProtectionsHoldForAnotherUserInStickyDirectories makes under
// `root`: every open std::ofstream refuses is refused with its errno, and the one that only rename
// would refuse fails at open with EPERM.
TEST(HostileDirectoryAsNobody, RefusesWhatOfstreamRefuses) {
  const char* root_text = std::getenv("MAPOUT_HOSTILE_DIR");
  if (root_text == nullptr) {
    GTEST_SKIP() << "run as nobody by ProtectionsHoldForAnotherUserInStickyDirectories";
  }
  const fs::path root = root_text;
  // Run so by WithoutTmpfileProtectionsHoldForAnotherUserInStickyDirectories: every temporary is
  // a named one.
  if (std::getenv("MAPOUT_HOSTILE_NO_TMPFILE") != nullptr) {
    errno = 0;
    EXPECT_LT(::openat(AT_FDCWD, (root / "own").c_str(), O_TMPFILE | O_RDWR, 0600), 0);
    ASSERT_EQ(errno, EOPNOTSUPP) << "O_TMPFILE is not refused";
  }
  const std::vector<fs::path> refused_by_ofstream = {
      root / "sticky" / "gen.h",     // another user's link (fs.protected_symlinks)
      root / "sticky" / "dangling",  // another user's link to no file yet
      root / "sticky" / "planted",   // another user's file (fs.protected_regular)
      root / "own" / "read-only",    // 0444
      root / "own" / "no-access",    // 000
  };
  for (const fs::path& path : refused_by_ofstream) {
    errno = 0;
    // Appending makes std::ofstream's checks without truncating what it may open.
    std::ofstream probe(path, std::ios::app);
    const int ofstream_errno = errno;
    EXPECT_FALSE(probe.is_open()) << path;
    for (bool atomic : {false, true}) {
      SCOPED_TRACE(path.string() + (atomic ? ", atomic" : ", write_if_changed"));
      mapout::output_file file;
      EXPECT_EQ(file.open(path, std::ios::out, replacing(atomic, !atomic)),
                std::error_code(ofstream_errno, std::system_category()))
          << file.error_message();
    }
  }
  // std::ofstream may write this one in place; rename may not replace it: refused at open.
  const fs::path theirs = root / "shared" / "theirs";
  EXPECT_TRUE(std::ofstream(theirs, std::ios::app).is_open());
  for (bool atomic : {false, true}) {
    mapout::output_file file;
    EXPECT_EQ(file.open(theirs, std::ios::out, replacing(atomic, !atomic)),
              std::errc::operation_not_permitted);
    EXPECT_NE(file.error_message().find("replace"), std::string::npos) << file.error_message();
  }
  // nobody's own link in the sticky directory is followed, as the kernel follows it.
  mapout::ostream out(root / "sticky" / "mine", std::ios::out, replacing(true, true));
  out << "new";
  out.close();
  EXPECT_TRUE(out) << out.error_message();
}

// Another user's /tmp with the kernel's protections on, as root and then as nobody; with
// `without_tmpfile`, nobody's run has O_TMPFILE refused, so that it replaces through named
// temporaries.
void protections_hold_for_another_user(bool without_tmpfile) {
  kernel_setting symlinks("/proc/sys/fs/protected_symlinks", "1");
  kernel_setting regular("/proc/sys/fs/protected_regular", "1");
  if (!symlinks.set() || !regular.set()) GTEST_SKIP() << "fs.protected_* cannot be set here";
  const uid_t nobody = nobody_uid();
  const gid_t nogroup = nogroup_gid();
  temp_dir dir;
  ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);
  // nobody's own directory, with files it may not write and a file the planted links name.
  make_directory(dir / "own", nobody, nogroup, 0755);
  plant_file(dir / "own" / "victim", "victim", nobody, nogroup, 0644);
  plant_file(dir / "own" / "read-only", "read-only", nobody, nogroup, 0444);
  plant_file(dir / "own" / "no-access", "no-access", nobody, nogroup, 0);
  // Another user's /tmp, where a third user planted a link, a dangling link and a file.
  make_directory(dir / "sticky", directory_owner, directory_owner, 01777);
  plant_link(dir / "sticky" / "gen.h", dir / "own" / "victim", attacker);
  plant_link(dir / "sticky" / "dangling", dir / "own" / "made", attacker);
  plant_file(dir / "sticky" / "planted", "planted", attacker, attacker, 0666);
  plant_link(dir / "sticky" / "mine", dir / "own" / "mine", nobody);
  // A sticky directory nobody's group may write: fs.protected_regular=1 leaves it alone.
  make_directory(dir / "shared", directory_owner, nogroup, 01775);
  plant_file(dir / "shared" / "theirs", "theirs", attacker, attacker, 0666);

  // Root meets the protections too: they are no permission check that capabilities pass.
  for (const char* name : {"gen.h", "dangling", "planted"}) {
    errno = 0;
    std::ofstream probe(dir / "sticky" / name, std::ios::app);
    const int ofstream_errno = errno;
    EXPECT_FALSE(probe.is_open()) << name;
    for (bool atomic : {false, true}) {
      mapout::output_file file;
      EXPECT_EQ(file.open(dir / "sticky" / name, std::ios::out, replacing(atomic, !atomic)),
                std::error_code(ofstream_errno, std::system_category()))
          << name << ": " << file.error_message();
    }
  }

  const pid_t child = ::fork();
  if (child == 0) {
    ::setenv("MAPOUT_HOSTILE_DIR", dir.path().c_str(), 1);
    if (without_tmpfile) {
      ::setenv("MAPOUT_HOSTILE_NO_TMPFILE", "1", 1);
      // Inherited by setpriv and the run as nobody it starts.
      if (!refuse_tmpfile_in_the_kernel()) ::_exit(126);
    }
    // nobody may not write the parent's test reports.
    ::unsetenv("GTEST_OUTPUT");
    const std::string self = fs::read_symlink("/proc/self/exe").string();
    ::execl("/usr/bin/setpriv", "setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
            self.c_str(), "--gtest_filter=HostileDirectoryAsNobody.*", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  EXPECT_EQ(mapout::test::wait_for(child), 0) << "the run as nobody failed: its output is above";
  EXPECT_EQ(read_file(dir / "own" / "victim"), "victim");
  EXPECT_EQ(read_file(dir / "own" / "mine"), "new");
  EXPECT_EQ(read_file(dir / "sticky" / "planted"), "planted");
  EXPECT_EQ(read_file(dir / "shared" / "theirs"), "theirs");
  EXPECT_EQ(stat_of(dir / "own" / "read-only").st_mode & 07777, 0444u);
  EXPECT_EQ(names_in(dir / "own"),
            (std::vector<std::string>{"mine", "no-access", "read-only", "victim"}));
  EXPECT_EQ(names_in(dir / "sticky"),
            (std::vector<std::string>{"dangling", "gen.h", "mine", "planted"}));
  EXPECT_EQ(names_in(dir / "shared"), std::vector<std::string>{"theirs"});
}

bool may_run_as_another_user(std::string& why) {
  if (::geteuid() != 0) {
    why = "needs root, to plant other users' files and set sysctls";
  } else if (::access("/usr/bin/setpriv", X_OK) != 0) {
    why = "needs setpriv (util-linux)";
  }
  return why.empty();
}

TEST(HostileReplacement, ProtectionsHoldForAnotherUserInStickyDirectories) {
  std::string why;
  if (!may_run_as_another_user(why)) GTEST_SKIP() << why;
  protections_hold_for_another_user(false);
}

TEST(HostileReplacement, WithoutTmpfileProtectionsHoldForAnotherUserInStickyDirectories) {
  std::string why;
  if (!may_run_as_another_user(why)) GTEST_SKIP() << why;
  if (this_architecture == 0) GTEST_SKIP() << "no seccomp architecture number for this build";
  protections_hold_for_another_user(true);
}

// ---- set-ID modes ----

void replace_with(const fs::path& path, const mapout::options& opts, const std::string& bytes,
                  std::string& error) {
  mapout::ostream out(path, std::ios::out, opts);
  out << bytes;
  out.close();
  error = out ? "" : out.error_message();
}

TEST(HostileReplacement, RootReplacingAnotherUsersSetIdFileGivesItItsOwnerBack) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to own files as another user";
  temp_dir dir;
  int case_number = 0;
  for (mode_t mode : {04755, 02755, 06777}) {
    for (bool atomic : {false, true}) {
      SCOPED_TRACE(std::to_string(mode) + (atomic ? ", atomic" : ", write_if_changed"));
      const fs::path path = dir / ("tool" + std::to_string(case_number++));
      plant_file(path, "old", nobody_uid(), nogroup_gid(), mode);
      std::string error;
      replace_with(path, replacing(atomic, !atomic), "new", error);
      ASSERT_EQ(error, "");
      const struct stat after = stat_of(path);
      EXPECT_EQ(after.st_uid, nobody_uid());
      EXPECT_EQ(after.st_gid, nogroup_gid());
      EXPECT_EQ(after.st_mode & 07777, mode);
      EXPECT_EQ(read_file(path), "new");
    }
  }
}

// A writer that cannot give the new file the old owner (or group) gives it no set-ID bit: a
// root-owned 6777 file replaced by nobody must not become nobody's set-user-ID file.
TEST(HostileReplacement, SetIdBitsAreDroppedWhereTheOldOwnerCannotBeKept) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to run a child as nobody";
  temp_dir dir;
  ASSERT_EQ(::chmod(dir.path().c_str(), 0777), 0);
  plant_file(dir / "root's", "old", 0, 0, 06777);
  plant_file(dir / "group's", "old", 0, nogroup_gid(), 02777);
  const pid_t child = mapout::test::spawn([&] {
    if (::setgroups(0, nullptr) != 0 || ::setgid(nogroup_gid()) != 0 ||
        ::setuid(nobody_uid()) != 0) {
      return 10;
    }
    int code = 11;
    for (const char* name : {"root's", "group's"}) {
      for (bool atomic : {false, true}) {
        std::string error;
        replace_with(dir / name, replacing(atomic, !atomic), "new", error);
        if (!error.empty()) return code;
        ++code;
      }
    }
    return 0;
  });
  EXPECT_EQ(mapout::test::wait_for(child), 0);
  const struct stat root_s = stat_of(dir / "root's");
  EXPECT_EQ(root_s.st_uid, nobody_uid());
  EXPECT_EQ(root_s.st_mode & 07777, 0777u);
  // The group could be kept, the owner not: the set-group-ID bit goes all the same.
  const struct stat group_s = stat_of(dir / "group's");
  EXPECT_EQ(group_s.st_gid, nogroup_gid());
  EXPECT_EQ(group_s.st_mode & 07777, 0777u);
  EXPECT_EQ(read_file(dir / "root's"), "new");
}

// ---- without O_TMPFILE ----

// The bits each file mapout created had when it was created: the named temporaries.
std::vector<mode_t> created_modes;

int recording_openat(int directory, const char* path, int flags, mode_t mode) {
  const int fd = mapout::detail::real_system_calls().openat(directory, path, flags, mode);
  struct stat st;
  if (fd >= 0 && (flags & O_CREAT) != 0 && ::fstat(fd, &st) == 0) {
    created_modes.push_back(st.st_mode & 07777);
  }
  return fd;
}

// The one name in `dir` that is not `target`'s: the named temporary.
std::string temporary_in(const fs::path& dir, const std::string& target) {
  for (const std::string& name : names_in(dir)) {
    if (name != target) return name;
  }
  return "";
}

// Another user watching the directory opens a temporary as soon as it is made: it must never be
// open to anyone the final file is not (with umask 0, a file made 0666 would be).
TEST(HostileReplacement, WithoutTmpfileTheTemporaryIsNeverMoreAccessibleThanTheFile) {
  if (this_architecture == 0) GTEST_SKIP() << "no seccomp architecture number for this build";
  temp_dir dir;
  const pid_t child = mapout::test::spawn([&] {
    ::umask(0);
    if (!refuse_tmpfile_in_the_kernel()) return 10;
    if (::openat(AT_FDCWD, dir.path().c_str(), O_TMPFILE | O_RDWR, 0600) >= 0 ||
        errno != EOPNOTSUPP) {
      return 11;
    }
    mapout::test::system_call_override<&mapout::detail::system_calls::openat> record(
        recording_openat);
    int code = 20;
    for (const mode_t mode : {mode_t{0600}, mode_t{0644}, mode_t{0400}, mode_t{0}}) {
      const std::string name = "file" + std::to_string(mode);
      // 0 stands for a new file, which gets 0666 & ~umask.
      const mode_t final_mode = mode == 0 ? 0666 : mode;
      if (mode != 0) write_file(dir / name, "old");
      if (mode != 0 && ::chmod((dir / name).c_str(), mode) != 0) return code;
      created_modes.clear();
      mapout::ostream out(dir / name, std::ios::out, replacing(true, false));
      out << "secret";
      const std::string temporary = temporary_in(dir.path(), name);
      struct stat during;
      if (temporary.empty() || ::lstat((dir / temporary).c_str(), &during) != 0) return code + 1;
      if ((during.st_mode & 077) != 0 || (during.st_mode & ~final_mode & 0777) != 0) {
        return code + 2;
      }
      for (const mode_t created : created_modes) {
        if ((created & 077) != 0 || (created & ~final_mode) != 0) return code + 3;
      }
      out.close();
      if (!out) return code + 4;
      if ((stat_of(dir / name).st_mode & 07777) != final_mode) return code + 5;
      if (read_file(dir / name) != "secret") return code + 6;
      code += 10;
    }
    return 0;
  });
  EXPECT_EQ(mapout::test::wait_for(child), 0);
}

}  // namespace
