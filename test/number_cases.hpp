// Random numbers with random flags, precision, width and fill, inserted alike into any stream, for
// the suites that compare mapout's numbers with std::ostringstream's.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <ios>
#include <limits>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace mapout::test {

// One value of each class in turn: zeros, subnormals, extremes, integers held in floating point,
// infinities, NaN of either sign, arbitrary bit patterns and everyday magnitudes.
template <typename T>
T random_value(std::mt19937_64& random) {
  using limits = std::numeric_limits<T>;
  const T sign = (random() & 1) ? T(-1) : T(1);
  switch (random() % 12) {
    case 0:
      return sign * T(0);
    case 1:
      return sign * limits::denorm_min() * T(random() % 100000);
    case 2:
      return sign * limits::max();
    case 3:
      return sign * limits::min();
    case 4:
      return sign * limits::infinity();
    case 5:
      return std::copysign(limits::quiet_NaN(), sign);
    case 6:
      return T(static_cast<std::int64_t>(random()) >> (random() % 64));
    case 7: {
      double bits_value;
      const std::uint64_t bits = random();
      std::memcpy(&bits_value, &bits, sizeof bits_value);
      return T(bits_value);
    }
    case 8:
      return T(std::normal_distribution<double>()(random));
    case 9:
      return sign * T(std::ldexp(double(random() % 100000), int(random() % 80) - 40));
    case 10:
      return sign * T(double(random() % 2000) / 8);
    default:
      return sign *
             T(std::pow(10.0, double(int(random() % 40) - 20)) * double(random() % 3 + 1) / 2);
  }
}

// The types a case inserts: the floating ones first, so that a draw over the first three alone
// stays among them.
enum number_type : int {
  as_double,
  as_float,
  as_long_double,
  as_long,
  as_unsigned_long_long,
  as_int,
  as_bool,
  number_type_count
};
constexpr int floating_types = as_long;

struct number_case {
  std::ios_base::fmtflags flags;
  std::streamsize precision;
  std::streamsize width;
  char fill;
  int type;
  long double value;
  std::int64_t integer;
  bool through_base;
};

// A case of one of the first `types` number_types.
inline number_case random_case(std::mt19937_64& random, int types = floating_types) {
  using std::ios_base;
  static const ios_base::fmtflags fields[] = {ios_base::fmtflags{}, ios_base::fixed,
                                              ios_base::scientific,
                                              ios_base::fixed | ios_base::scientific};
  static const ios_base::fmtflags adjusts[] = {ios_base::fmtflags{}, ios_base::left,
                                               ios_base::right, ios_base::internal};
  number_case c{};
  // Half the cases in the default flags and precision, where mapout::ostream writes inline.
  const bool plain = random() % 2 == 0;
  c.flags = plain ? ios_base::fmtflags{} : fields[random() % 4] | adjusts[random() % 4];
  if (!plain && random() % 2) c.flags |= ios_base::showpoint;
  if (!plain && random() % 2) c.flags |= ios_base::showpos;
  if (!plain && random() % 2) c.flags |= ios_base::uppercase;
  c.precision = plain && random() % 2 ? 6 : static_cast<std::streamsize>(random() % 44) - 1;
  c.width = plain ? 0 : static_cast<std::streamsize>(random() % 30);
  c.fill = random() % 2 ? ' ' : static_cast<char>('!' + random() % 90);
  c.type = static_cast<int>(random() % static_cast<unsigned>(types));
  c.value = c.type == as_double  ? random_value<double>(random)
            : c.type == as_float ? static_cast<float>(random_value<double>(random))
                                 : random_value<long double>(random);
  if (c.type >= as_long) {
    static const ios_base::fmtflags bases[] = {ios_base::fmtflags{}, ios_base::dec, ios_base::oct,
                                               ios_base::hex};
    if (!plain) c.flags |= bases[random() % 4];
    if (!plain && random() % 2) c.flags |= ios_base::showbase;
    if (!plain && random() % 2) c.flags |= ios_base::boolalpha;
    c.integer = static_cast<std::int64_t>(random()) >> (random() % 64);
  }
  c.through_base = random() % 2 == 0;
  return c;
}

template <typename Stream>
void insert(Stream& out, const number_case& c) {
  out.flags(c.flags);
  out.precision(c.precision);
  out.width(c.width);
  out.fill(c.fill);
  switch (c.type) {
    case as_double:
      out << static_cast<double>(c.value);
      break;
    case as_float:
      out << static_cast<float>(c.value);
      break;
    case as_long_double:
      out << c.value;
      break;
    case as_long:
      out << static_cast<long>(c.integer);
      break;
    case as_unsigned_long_long:
      out << static_cast<unsigned long long>(c.integer);
      break;
    case as_int:
      out << static_cast<int>(c.integer);
      break;
    default:
      out << (c.integer % 2 == 0);
  }
  out.flags(std::ios_base::fmtflags{});
  out << '\n';
}

// Inserts `count` random cases alike into `out` (half of them through its std::ostream base) and
// into `reference`, and returns them for first_difference.
template <typename Stream>
std::vector<number_case> insert_random_cases(Stream& out, std::ostream& reference,
                                             std::mt19937_64& random, int count,
                                             int types = floating_types) {
  std::vector<number_case> cases;
  for (int i = 0; i < count; ++i) {
    const number_case c = random_case(random, types);
    cases.push_back(c);
    insert(reference, c);
    if (c.through_base) {
      insert(static_cast<std::ostream&>(out), c);
    } else {
      insert(out, c);
    }
  }
  return cases;
}

// The first line where the two texts differ, with the case that made it.
inline std::string first_difference(const std::string& got, const std::string& want,
                                    const std::vector<number_case>& cases) {
  std::istringstream got_lines(got), want_lines(want);
  std::string got_line, want_line;
  for (const number_case& c : cases) {
    std::getline(got_lines, got_line);
    std::getline(want_lines, want_line);
    if (got_line != want_line) {
      std::ostringstream description;
      description << "type " << c.type << " flags " << std::hex << c.flags << std::dec
                  << " precision " << c.precision << " width " << c.width << " through "
                  << (c.through_base ? "std::ostream&" : "mapout::ostream") << ": got '" << got_line
                  << "', want '" << want_line << "'";
      return description.str();
    }
  }
  return "same lines, different sizes";
}

}  // namespace mapout::test
