// Faults on mapped files as POSIX delivers them: SIGBUS, served by the one handler mapout installs,
// and passed on to the disposition that was there before when the fault is not mapout's.
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>

#include <cerrno>

#include "platform/platform.hpp"

namespace mapout::detail::platform {
namespace {

fault_server server = nullptr;
struct sigaction previous_action;  // what SIGBUS did before mapout's handler

// What the previous disposition would have done. Its sa_mask and SA_RESETHAND are not applied.
void pass_on(int signo, siginfo_t* info, void* context) noexcept {
  const bool sent = info->si_code <= 0;  // by kill, sigqueue or tgkill, not by a fault
  if (previous_action.sa_flags & SA_SIGINFO) {
    previous_action.sa_sigaction(signo, info, context);
    return;
  }
  if (previous_action.sa_handler == SIG_IGN && sent) return;
  if (previous_action.sa_handler != SIG_DFL && previous_action.sa_handler != SIG_IGN) {
    previous_action.sa_handler(signo);
    return;
  }
  // The default action; a fault cannot be ignored either (the kernel kills for it). A fault
  // repeats when the handler returns and meets the default action; a sent signal is sent again
  // and delivered as soon as this handler returns.
  struct sigaction fallback = {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  sigaction(SIGBUS, &fallback, nullptr);
  if (sent) raise(signo);
}

void on_sigbus(int signo, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  const bool served =
      is_mapping_fault(info->si_code) && server(reinterpret_cast<std::uintptr_t>(info->si_addr));
  errno = saved_errno;
  if (!served) pass_on(signo, info, context);
}

// Reads the previous disposition before installing, so that the handler never sees it half
// written; a disposition set by another thread between the two calls is lost.
int install_handler(fault_server serve) noexcept {
  server = serve;
  if (sigaction(SIGBUS, nullptr, &previous_action) != 0) return errno;
  struct sigaction action = {};
  action.sa_sigaction = on_sigbus;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  return sigaction(SIGBUS, &action, nullptr) == 0 ? 0 : errno;
}

}  // namespace

error_cause catch_mapping_faults(fault_server serve) noexcept {
  static const int install_error = install_handler(serve);
  return install_error != 0 ? error_cause{install_error, "sigaction"} : error_cause{};
}

bool mapping_faults_blocked() noexcept {
  sigset_t blocked;
  return pthread_sigmask(SIG_BLOCK, nullptr, &blocked) == 0 && sigismember(&blocked, SIGBUS) == 1;
}

bool map_scratch(std::uintptr_t begin, std::size_t length) noexcept {
  return sys().mmap(reinterpret_cast<void*>(begin), length, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED;
}

}  // namespace mapout::detail::platform
