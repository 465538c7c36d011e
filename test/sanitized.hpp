// Which sanitizer the suite runs under: AddressSanitizer makes the slowest loops ten times slower,
// so those run fewer rounds there, and either sanitizer's shadow memory fits under no
// address-space limit.
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

#if defined(__SANITIZE_THREAD__)
constexpr bool thread_sanitized = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool thread_sanitized = true;
#else
constexpr bool thread_sanitized = false;
#endif
#else
constexpr bool thread_sanitized = false;
#endif

}  // namespace mapout::test
