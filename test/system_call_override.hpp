// Replacing one entry of the system-call table (lib/platform/sys.hpp) for a scope: the entry in use
// before is put back when the scope ends, however it ends.
#pragma once

#include <type_traits>

#include "platform/sys.hpp"

namespace mapout::test {

template <auto Entry>
class system_call_override {
 public:
  using function = std::remove_reference_t<decltype(detail::sys().*Entry)>;

  explicit system_call_override(function replacement) : saved_(detail::sys().*Entry) {
    detail::sys().*Entry = replacement;
  }
  system_call_override(const system_call_override&) = delete;
  system_call_override& operator=(const system_call_override&) = delete;
  ~system_call_override() { detail::sys().*Entry = saved_; }

 private:
  function saved_;
};

}  // namespace mapout::test
