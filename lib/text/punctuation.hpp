// Whether a locale punctuates numbers as the classic one: decided once per imbue, never per number.
#pragma once

#include <locale>

namespace mapout::detail {

// Whether std::num_put<char> writes every number in `locale` exactly as in the classic locale:
// its numpunct<char> has '.' for the point and no grouping, and its ctype<char> widens every
// character a number is made of to itself. The other facets (a codecvt, a user's own category)
// play no part in a number's text; truename and falsename do, but only for bool, which mapout
// leaves to the standard facet.
bool punctuates_classically(const std::locale& locale);

// punctuates_classically, and the locale's num_put<char> is the standard facet or mapout's own,
// so that text made by std::to_chars is what a stream in `locale` would write.
bool formats_numbers_classically(const std::locale& locale);

}  // namespace mapout::detail
