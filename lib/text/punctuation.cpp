// Whether a locale's numbers are the classic locale's, asked of the facets num_put consults.
#include "text/punctuation.hpp"

#include <algorithm>
#include <climits>
#include <string>
#include <string_view>
#include <typeinfo>

#include "mapout/num_put.hpp"

namespace mapout::detail {

bool punctuates_classically(const std::locale& locale) {
  const auto& punctuation = std::use_facet<std::numpunct<char>>(locale);
  const std::string grouping = punctuation.grouping();
  // A first group of no digits, a negative one or CHAR_MAX leaves the digits ungrouped.
  const bool groups =
      !grouping.empty() && static_cast<signed char>(grouping[0]) > 0 && grouping[0] != CHAR_MAX;
  if (punctuation.decimal_point() != '.' || groups) return false;
  // Every character of a number in any base and format: digits, hex digits, "0x", the exponent
  // letters, inf and nan, signs and the point. num_put widens ranges; others may widen one by one.
  constexpr std::string_view printed = "0123456789abcdefABCDEFxXpPinIN+-.";
  const auto& ctype = std::use_facet<std::ctype<char>>(locale);
  char widened[printed.size()];
  ctype.widen(printed.data(), printed.data() + printed.size(), widened);
  return std::equal(printed.begin(), printed.end(), widened) &&
         std::all_of(printed.begin(), printed.end(), [&](char c) { return ctype.widen(c) == c; });
}

bool formats_numbers_classically(const std::locale& locale) {
  const std::num_put<char>& facet = std::use_facet<std::num_put<char>>(locale);
  const std::type_info& put = typeid(facet);
  return (put == typeid(mapout::num_put) || put == typeid(std::num_put<char>)) &&
         punctuates_classically(locale);
}

}  // namespace mapout::detail
