// Whether the suite runs under AddressSanitizer, which makes its slowest loops ten times slower:
// those run fewer rounds there.
#pragma once

namespace mapout::test {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool sanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool sanitized = true;
#else
constexpr bool sanitized = false;
#endif
#else
constexpr bool sanitized = false;
#endif

}  // namespace mapout::test
