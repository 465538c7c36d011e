// The table behind mapout::detail::sys(), as the platform's files fill it.
#include "platform/sys.hpp"

#include "platform/platform.hpp"

namespace mapout::detail {

const system_calls& real_system_calls() noexcept {
  static const system_calls real = [] {
    system_calls calls = {};
    platform::add_posix_calls(calls);
    platform::add_system_calls(calls);
    return calls;
  }();
  return real;
}

// Made on first use, so that no other file's static initializer can find it empty.
system_calls& sys() noexcept {
  static system_calls calls = real_system_calls();
  return calls;
}

}  // namespace mapout::detail
