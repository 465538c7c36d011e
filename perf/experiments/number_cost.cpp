// perf/experiments/number_cost: one loop of `out << x << '\n'` into a mapout::ostream, for the
// instructions a number costs under each locale and through each type (callgrind, not a clock).
//
//   perf/experiments/number_cost FILE double|long default|derived static|base|scientific [COUNT]
//
// derived: the stream's locale with a codecvt added, as a serialization library imbues it;
// static: through mapout::ostream; base: through std::ostream&; scientific: through
// std::ostream& with std::scientific and precision 17, as Boost's text_oarchive writes a double.
// Count the loop alone:
//   valgrind --tool=callgrind --toggle-collect='*write_numbers*' \
//     perf/experiments/number_cost /tmp/n double derived scientific 200000
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <locale>
#include <random>
#include <vector>

#include "mapout/ostream.hpp"

namespace {

// What Boost's codecvt_null is to a char stream: a facet of another category than num_put's.
struct null_codecvt : std::codecvt<char, char, std::mbstate_t> {
  bool do_always_noconv() const noexcept override { return true; }
};

template <typename Stream, typename Number>
[[gnu::noinline]] void write_numbers(Stream& out, const std::vector<Number>& numbers) {
  for (const Number x : numbers) out << x << '\n';
}

template <typename Number>
int run(const char* path, bool derived, const char* way, std::size_t count) {
  std::mt19937_64 random(20261201);
  std::normal_distribution<double> normal;
  std::vector<Number> numbers(count);
  for (Number& x : numbers) x = static_cast<Number>(normal(random) * 1e6);
  mapout::ostream out(path);
  if (derived) out.imbue(std::locale(out.getloc(), new null_codecvt));
  if (std::strcmp(way, "static") == 0) {
    write_numbers(out, numbers);
  } else {
    std::ostream& base = out;
    if (std::strcmp(way, "scientific") == 0) base << std::setprecision(17) << std::scientific;
    write_numbers(base, numbers);
  }
  out.close();
  if (!out) {
    std::fprintf(stderr, "%s\n", out.error_message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr,
                 "usage: number_cost FILE double|long default|derived static|base|scientific "
                 "[COUNT]\n");
    return 2;
  }
  const bool derived = std::strcmp(argv[3], "derived") == 0;
  const std::size_t count = argc > 5 ? std::strtoull(argv[5], nullptr, 10) : 200000;
  return std::strcmp(argv[2], "long") == 0 ? run<long>(argv[1], derived, argv[4], count)
                                           : run<double>(argv[1], derived, argv[4], count);
}
