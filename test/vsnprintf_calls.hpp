// How often libstdc++ formats a number through vsnprintf, as its num_put does every floating-point
// number: the executable's vsnprintf, defined here, takes the C library's place for the shared
// libraries too, counts, and calls the C library's. Include it in one file of an executable.
#pragma once

#include <dlfcn.h>

#include <atomic>
#include <cstdarg>
#include <cstddef>

namespace mapout::test {
inline std::atomic<int> vsnprintf_calls{0};
}  // namespace mapout::test

extern "C" int vsnprintf(char* text, std::size_t size, const char* format,
                         std::va_list arguments) noexcept {
  using function = int (*)(char*, std::size_t, const char*, std::va_list);
  static const auto c_library = reinterpret_cast<function>(::dlsym(RTLD_NEXT, "vsnprintf"));
  ++mapout::test::vsnprintf_calls;
  return c_library(text, size, format, arguments);
}
