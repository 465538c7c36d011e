// mapout::num_put: std::num_put's bytes for numbers, made by std::to_chars instead of vsnprintf.
#pragma once

#include <ios>
#include <iterator>
#include <locale>

#include "mapout/export.h"

namespace mapout {

// A std::num_put<char> that writes integers and floating point exactly as libstdc++'s does in the
// classic locale, through std::to_chars and mapout's decimal writer, in any stream whose locale
// punctuates as the classic one ('.' for the point, no grouping, digits widened to themselves),
// whatever other facets it holds: a codecvt imbued by a serialization library keeps it fast. The
// stream's answer is decided at its first number after each imbue and kept in its iword (an
// xalloc index and an ios_base callback), so a number pays one compare for it. Under any other
// punctuation, and for the flag combinations to_chars cannot reproduce, it is the standard facet
// itself. A mapout::ostream carries it from construction, so that numbers written through a
// std::ostream& are fast too.
class MAPOUT_API num_put final : public std::num_put<char> {
 public:
  using std::num_put<char>::num_put;

 protected:
  iter_type do_put(iter_type out, std::ios_base& io, char_type fill, long value) const override;
  iter_type do_put(iter_type out, std::ios_base& io, char_type fill,
                   unsigned long value) const override;
  iter_type do_put(iter_type out, std::ios_base& io, char_type fill,
                   long long value) const override;
  iter_type do_put(iter_type out, std::ios_base& io, char_type fill,
                   unsigned long long value) const override;
  iter_type do_put(iter_type out, std::ios_base& io, char_type fill, double value) const override;
  iter_type do_put(iter_type out, std::ios_base& io, char_type fill,
                   long double value) const override;

 private:
  template <typename Integer>
  iter_type put_integer(iter_type out, std::ios_base& io, char_type fill, Integer value) const;
  template <typename Floating>
  iter_type put_floating(iter_type out, std::ios_base& io, char_type fill, Floating value) const;
};

// The classic locale with mapout::num_put in it: what a mapout::ostream's getloc() returns unless
// the global locale was another at construction or the user imbued one. Imbue it into any
// std::ostream (one over a mapout::streambuf, say) for the same speed: it prints as the classic
// locale does, but is not equal to std::locale::classic() and its name() is "*".
MAPOUT_API const std::locale& numbers_locale();

}  // namespace mapout
