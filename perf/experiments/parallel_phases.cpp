// Where a parallel_output run's time goes: short tokens cut in two halves, each on a thread of its
// own, timed until each part's close() and then through the join; and part 0 on its own against a
// mapout::ostream writing the same half.
//
//   perf/experiments/parallel_phases DIR MiB [--rounds N]
//
// Rounds rotate the variants, each after a warm-up of three times the output; prints medians.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "../stats.hpp"
#include "file_experiment.hpp"
#include "mapout/ostream.hpp"
#include "mapout/parallel.hpp"

namespace {

// 1 to 12 bytes, as a C header's tokens are short.
std::vector<std::string> make_tokens() {
  std::vector<std::string> tokens;
  for (int i = 0; i < 1000; ++i) {
    tokens.emplace_back(static_cast<std::size_t>(1 + (i * 7919) % 12),
                        static_cast<char>('a' + i % 26));
  }
  return tokens;
}

struct phases {
  double part0 = 0;  // from the start to part 0's close()
  double part1 = 0;  // from the start to part 1's close()
  double join = 0;   // the output's close() after both
};

template <class Stream>
void emit(const std::vector<std::string>& tokens, Stream& out, std::uint64_t first,
          std::uint64_t last) {
  for (std::uint64_t i = first; i < last; ++i) {
    const std::string& token = tokens[i % tokens.size()];
    out.write(token.data(), static_cast<std::streamsize>(token.size()));
  }
}

phases two_parts(const std::string& path, const std::vector<std::string>& tokens,
                 std::uint64_t count) {
  phases took;
  const auto start = perf::clock_type::now();
  mapout::parallel_output out(path, 2);
  std::thread second([&] {
    emit(tokens, out.part(1), count / 2, count);
    out.part(1).close();
    took.part1 = perf::ms_since(start);
  });
  emit(tokens, out.part(0), 0, count / 2);
  out.part(0).close();
  took.part0 = perf::ms_since(start);
  second.join();
  const auto joined = perf::clock_type::now();
  if (out.close()) std::fprintf(stderr, "%s\n", out.error_message().c_str());
  took.join = perf::ms_since(joined);
  return took;
}

// Part 0 alone, and the same bytes through a mapout::ostream.
double part_alone(const std::string& path, const std::vector<std::string>& tokens,
                  std::uint64_t count, bool as_part) {
  const auto start = perf::clock_type::now();
  if (as_part) {
    mapout::parallel_output out(path, 1);
    emit(tokens, out.part(0), 0, count / 2);
    out.part(0).close();
    const double took = perf::ms_since(start);
    out.close();
    return took;
  }
  mapout::ostream out(path);
  emit(tokens, out, 0, count / 2);
  out.close();
  return perf::ms_since(start);
}

}  // namespace

int main(int argc, char** argv) {
  const perf::size_and_rounds args = perf::read_size_and_rounds(argc, argv, "parallel_phases.out");
  const std::uint64_t bytes = args.bytes;
  const std::vector<std::string> tokens = make_tokens();
  std::uint64_t count = 0;
  for (std::uint64_t size = 0; size < bytes; ++count) size += tokens[count % tokens.size()].size();

  std::vector<double> part0, part1, join, whole, alone, stream;
  for (int round = 0; round < args.rounds; ++round) {
    for (int variant = 0; variant < 3; ++variant) {
      perf::warm_up(3 * bytes);
      switch ((variant + round) % 3) {
        case 0: {
          const phases took = two_parts(args.path, tokens, count);
          part0.push_back(took.part0);
          part1.push_back(took.part1);
          join.push_back(took.join);
          whole.push_back(std::max(took.part0, took.part1) + took.join);
          break;
        }
        case 1:
          alone.push_back(part_alone(args.path, tokens, count, true));
          break;
        default:
          stream.push_back(part_alone(args.path, tokens, count, false));
          break;
      }
      ::unlink(args.path.c_str());
    }
  }
  std::printf("%s, %llu MiB, %d rounds, medians in ms\n", args.dir.c_str(),
              static_cast<unsigned long long>(bytes >> 20), args.rounds);
  std::printf("two parts: part 0 closed %.1f, part 1 closed %.1f, join %.1f, in all %.1f\n",
              perf::median(part0), perf::median(part1), perf::median(join), perf::median(whole));
  std::printf("half the bytes: part 0 alone %.1f, mapout::ostream %.1f\n", perf::median(alone),
              perf::median(stream));
  return 0;
}
