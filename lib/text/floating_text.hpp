// Floating point as std::num_put writes it in the classic locale, through std::to_chars.
#pragma once

#include <ios>

namespace mapout::detail {

// Writes `value` at `first` as libstdc++'s num_put does in the classic locale for `flags` and
// `precision` (printf's %g, %f, %e or %a with showpos, showpoint and uppercase), without the
// padding of a width; returns the end, or nullptr when the text does not fit before `last` or the
// combination is one std::to_chars cannot reproduce (long double in hexfloat).
char* floating_text(char* first, char* last, double value, std::ios_base::fmtflags flags,
                    std::streamsize precision) noexcept;
char* floating_text(char* first, char* last, long double value, std::ios_base::fmtflags flags,
                    std::streamsize precision) noexcept;

}  // namespace mapout::detail
