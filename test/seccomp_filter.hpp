// System calls refused in the kernel for the rest of a (child) process's life, by a seccomp
// filter: a file system or kernel that lacks a feature, where the seam of lib/platform/sys.hpp does
// not reach (the platform's own calls) or where the refusal must reach processes the child forks.
#pragma once

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

namespace mapout::test {

#if defined(__x86_64__)
constexpr std::uint32_t this_architecture = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr std::uint32_t this_architecture = AUDIT_ARCH_AARCH64;
#else
constexpr std::uint32_t this_architecture = 0;
#endif

// Installs `filter`, after PR_SET_NO_NEW_PRIVS as an unprivileged process needs it.
inline bool install_seccomp_filter(std::vector<sock_filter> filter) {
  struct sock_fprog program = {static_cast<unsigned short>(filter.size()), filter.data()};
  return ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
         ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) == 0;
}

// Every call of `numbers` fails with `error`; every other call is let through.
inline bool refuse_system_calls(std::initializer_list<long> numbers, int error) {
  if (this_architecture == 0) return false;
  std::vector<sock_filter> filter = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, this_architecture, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
  };
  for (const long number : numbers) {
    filter.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(number), 0, 1));
    filter.push_back(
        BPF_STMT(BPF_RET | BPF_K,
                 SECCOMP_RET_ERRNO | (static_cast<std::uint32_t>(error) & SECCOMP_RET_DATA)));
  }
  filter.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  return install_seccomp_filter(std::move(filter));
}

}  // namespace mapout::test
