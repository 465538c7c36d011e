// Bad inputs: each fails the way std::ofstream does, touches no existing bytes, and says which
// operation failed on which path, through error_message() and through the std::ios_base::failure
// thrown when exceptions() asks for it.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>
#ifndef _WIN32
#include <grp.h>
#include <sched.h>
#include <sys/mount.h>
#endif

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <system_error>

#include "child_process.hpp"
#include "failure_of.hpp"
#include "mapout/ostream.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::failure_of;
using mapout::test::read_file;
using mapout::test::temp_dir;
using mapout::test::write_file;

std::string quoted(const std::filesystem::path& path) {
  return "'" + path.string() + "'";
}

// What is wrong with a failed open of `path`, or "" when it failed as it should: failbit, not
// open, an error() equal to errno `expected` as std::errc (as a portable program asks), which
// std::ofstream's open meets too, and a message naming "open", the path and the error's text. The
// same open with exceptions(failbit | badbit) must throw a failure that says the same.
std::string check_open_fails(const std::filesystem::path& path, std::ios_base::openmode mode,
                             int expected) {
  std::ostringstream problems;
  const auto expected_error = static_cast<std::errc>(expected);
  errno = 0;
  const std::ofstream reference(path, mode);
  if (reference.is_open() || errno != expected) {
    problems << "std::ofstream's open: errno " << errno << "; ";
  }

  mapout::ostream out(path, mode);
  if (!out.fail()) problems << "failbit not set; ";
  if (out.is_open()) problems << "open; ";
  const std::error_code code = out.rdbuf()->error();
  if (code != expected_error) problems << "error() is " << code.message() << "; ";
  const std::string reason = code.message();
  const std::string message = out.rdbuf()->error_message();
  for (const std::string& part : {std::string("open"), quoted(path), reason}) {
    if (message.find(part) == std::string::npos) {
      problems << "message \"" << message << "\" lacks " << part << "; ";
    }
  }

  mapout::ostream throwing;
  throwing.exceptions(std::ios_base::failbit | std::ios_base::badbit);
  try {
    throwing.open(path, mode);
    problems << "no exception; ";
  } catch (const std::ios_base::failure& e) {
    const std::string what = e.what();
    if (e.code() != code) problems << "code() is " << e.code().message() << "; ";
    // std::ios_base::failure appends the reason itself: it must stand there once.
    if (what != message) problems << "what() \"" << what << "\" is not \"" << message << "\"; ";
    for (const std::string& part : {std::string("open"), quoted(path), reason}) {
      if (what.find(part) == std::string::npos) {
        problems << "what() \"" << what << "\" lacks " << part << "; ";
      }
    }
  }
  return problems.str();
}

TEST(Error, MissingDirectory) {
  temp_dir dir;
  const auto path = dir / "missing" / "out.txt";
  EXPECT_EQ(check_open_fails(path, std::ios::out, ENOENT), "");
  EXPECT_FALSE(std::filesystem::exists(dir / "missing"));
}

TEST(Error, DirectoryAsThePath) {
  temp_dir dir;
#ifdef _WIN32
  // Windows opens no directory as a file: access denied, as the C runtime maps it.
  constexpr int directory_error = EACCES;
#else
  constexpr int directory_error = EISDIR;
#endif
  for (auto mode : {std::ios::out, std::ios::out | std::ios::in, std::ios::out | std::ios::app}) {
    EXPECT_EQ(check_open_fails(dir.path(), mode, directory_error), "");
  }
  EXPECT_TRUE(std::filesystem::is_directory(dir.path()));
}

TEST(Error, EmptyPath) {
  EXPECT_EQ(check_open_fails("", std::ios::out, ENOENT), "");
}

TEST(Error, UpdateInPlaceOfAMissingFile) {
  temp_dir dir;
  EXPECT_EQ(check_open_fails(dir / "absent", std::ios::out | std::ios::in, ENOENT), "");
  EXPECT_FALSE(std::filesystem::exists(dir / "absent"));
}

// Users and modes: POSIX's, and a child that drops root for them, which Windows has not.
#ifndef _WIN32
using mapout::test::run_in_child;

constexpr uid_t nobody = 65534;
constexpr gid_t nogroup = 65534;

// Runs the checks as an unprivileged user: in a child that drops root for nobody, or here when
// the tests do not run as root. "skip: ..." when the privileges cannot be dropped.
std::string as_unprivileged_user(const std::function<std::string()>& checks) {
  if (::geteuid() != 0) return checks();
  const auto child = run_in_child([&]() -> std::string {
    if (::setgroups(0, nullptr) != 0 || ::setgid(nogroup) != 0 || ::setuid(nobody) != 0) {
      return std::string("skip: cannot become nobody: ") + std::strerror(errno);
    }
    return checks();
  });
  return child.status == 0 ? child.report : "child exited with " + std::to_string(child.status);
}

TEST(Error, NoPermission) {
  temp_dir dir;
  // mkdtemp makes the directory 0700: nobody must be able to enter it, not to create in it.
  std::filesystem::permissions(dir.path(), std::filesystem::perms(0755));
  const auto read_only = dir / "read-only";
  write_file(read_only, "precious\n");
  std::filesystem::permissions(read_only, std::filesystem::perms(0444));

  const std::string report = as_unprivileged_user([&] {
    return check_open_fails(read_only, std::ios::out, EACCES) +
           check_open_fails(read_only, std::ios::out | std::ios::in, EACCES) +
           check_open_fails(read_only, std::ios::app, EACCES) +
           check_open_fails(dir / "new", std::ios::out, EACCES);
  });
  if (report.rfind("skip: ", 0) == 0) GTEST_SKIP() << report;
  EXPECT_EQ(report, "");
  EXPECT_EQ(read_file(read_only), "precious\n");
  EXPECT_FALSE(std::filesystem::exists(dir / "new"));
}

TEST(Error, WriteOnlyFileOpensForTheBufferedPath) {
  temp_dir dir;
  std::filesystem::permissions(dir.path(), std::filesystem::perms(0755));
  const auto write_only = dir / "write-only";
  write_file(write_only, "old contents\n");
  // Writable by others (nobody) but not readable: a mapping needs both, std::ofstream only write.
  std::filesystem::permissions(write_only, std::filesystem::perms(0602));

  const std::string report = as_unprivileged_user([&]() -> std::string {
    mapout::ostream out(write_only);
    if (!out.is_open()) return "not open: " + out.rdbuf()->error_message();
    if (out.rdbuf()->file().is_mapped()) return "mapped a file it cannot read";
    out << "new contents " << 42 << '\n';
    out.close();
    return out ? "" : "close failed: " + out.rdbuf()->error_message();
  });
  if (report.rfind("skip: ", 0) == 0) GTEST_SKIP() << report;
  EXPECT_EQ(report, "");
  EXPECT_EQ(read_file(write_only), "new contents 42\n");
}

TEST(Error, ReadOnlyFileSystem) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a read-only tmpfs needs root";
  temp_dir dir;
  const auto mount_point = dir / "ro";
  std::filesystem::create_directory(mount_point);
  const auto existing = mount_point / "existing";

  // In a child with its own mount namespace, so that the mount vanishes with it whatever happens.
  const auto child = run_in_child([&]() -> std::string {
    if (::unshare(CLONE_NEWNS) != 0 ||
        ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
      return std::string("skip: no mount namespace: ") + std::strerror(errno);
    }
    if (::mount("mapout-test", mount_point.c_str(), "tmpfs", 0, "size=64k") != 0) {
      return std::string("skip: cannot mount a tmpfs: ") + std::strerror(errno);
    }
    write_file(existing, "precious\n");
    if (::mount("mapout-test", mount_point.c_str(), "tmpfs", MS_REMOUNT | MS_RDONLY, "size=64k") !=
        0) {
      return std::string("skip: cannot make the tmpfs read-only: ") + std::strerror(errno);
    }
    std::string problems = check_open_fails(existing, std::ios::out, EROFS) +
                           check_open_fails(existing, std::ios::out | std::ios::in, EROFS) +
                           check_open_fails(existing, std::ios::app, EROFS) +
                           check_open_fails(mount_point / "new", std::ios::out, EROFS);
    if (read_file(existing) != "precious\n") problems += "the existing file changed; ";
    return problems;
  });
  if (child.report.rfind("skip: ", 0) == 0) GTEST_SKIP() << child.report;
  EXPECT_EQ(child.status, 0);
  EXPECT_EQ(child.report, "");
}
#endif  // _WIN32

// `call`, on a stream closed already, must throw a failure naming `operation` and `path`, with
// EBADF as its code.
template <class Call>
void expect_not_open_failure(Call&& call, const char* operation,
                             const std::filesystem::path& path) {
  std::error_code code;
  const std::string what = failure_of(call, code);
  EXPECT_FALSE(what.empty()) << "no exception";
  EXPECT_NE(what.find(operation), std::string::npos) << what;
  EXPECT_NE(what.find(quoted(path)), std::string::npos) << what;
  EXPECT_EQ(code, std::errc::bad_file_descriptor);
}

TEST(Error, WritingAfterCloseSetsBadbit) {
  temp_dir dir;
  const auto path = dir / "out";
  mapout::ostream out(path);
  out << "kept\n";
  out.close();
  ASSERT_TRUE(out);
  out << "lost";
  EXPECT_TRUE(out.bad());
  out.clear();
  out.put('x');
  EXPECT_TRUE(out.bad());
  out.clear();
  out.write("lost", 4);
  EXPECT_TRUE(out.bad());
  EXPECT_EQ(read_file(path), "kept\n");

  out.clear();
  out.exceptions(std::ios_base::badbit);
  expect_not_open_failure([&] { out << "lost"; }, "write", path);
  EXPECT_EQ(read_file(path), "kept\n");
}

TEST(Error, ClosingTwiceSetsFailbit) {
  temp_dir dir;
  const auto path = dir / "out";
  mapout::ostream out(path);
  out << "kept\n";
  out.close();
  ASSERT_TRUE(out);
  out.close();
  EXPECT_TRUE(out.fail());
  EXPECT_FALSE(out.bad());
  const std::string message = out.rdbuf()->error_message();
  EXPECT_NE(message.find("close"), std::string::npos) << message;
  EXPECT_NE(message.find(quoted(path)), std::string::npos) << message;

  out.clear();
  out.exceptions(std::ios_base::failbit);
  expect_not_open_failure([&] { out.close(); }, "close", path);
  EXPECT_EQ(read_file(path), "kept\n");
}

TEST(Error, StreambufClosingTwiceReturnsNull) {
  temp_dir dir;
  mapout::streambuf buf;
  EXPECT_EQ(buf.close(), nullptr);
  ASSERT_NE(buf.open(dir / "out", std::ios::out), nullptr);
  EXPECT_EQ(buf.close(), &buf);
  EXPECT_EQ(buf.close(), nullptr);
}

TEST(Error, OpeningAnOpenStreamFailsAndKeepsTheFirstFile) {
  temp_dir dir;
  mapout::ostream out(dir / "first");
  out << "first\n";
  out.open(dir / "second");
  EXPECT_TRUE(out.fail());
  EXPECT_TRUE(out.is_open());
  EXPECT_FALSE(std::filesystem::exists(dir / "second"));
  out.clear();
  out << "more\n";
  out.close();
  EXPECT_TRUE(out);
  EXPECT_EQ(read_file(dir / "first"), "first\nmore\n");
}

}  // namespace
