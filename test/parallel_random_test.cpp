// mapout::parallel_output under contention: randomized parts written by threads that take them in
// random orders, or in index order handing them on closed, must join into exactly the sequential
// concatenation of what each part was given.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bytes.hpp"
#include "mapout/parallel.hpp"
#include "strategies.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::pattern;

int pick(std::mt19937& random, int low, int high) {
  return std::uniform_int_distribution<int>(low, high)(random);
}

// What one part is given: pieces, a patch at its start after its end was written, whether it is
// closed early by the thread that wrote it, and whether that thread then closes the parts it left
// open before, so that the next part it asks for finds its place known.
struct part_plan {
  std::vector<std::string> pieces;
  bool patch_start = false;
  bool close_early = false;
  bool close_held = false;
  unsigned seed = 0;
};

// `closed_in` of 4 parts are closed early by the thread that wrote them.
part_plan plan_part(std::mt19937& random, unsigned seed, int closed_in) {
  part_plan plan;
  plan.seed = seed;
  const int kind = pick(random, 0, 9);
  // Mostly small parts, some empty, a few of several MiB.
  const int pieces = kind == 0 ? 0 : pick(random, 1, 40);
  for (int i = 0; i < pieces; ++i) {
    const std::size_t size = kind == 9 ? static_cast<std::size_t>(pick(random, 1, 1 << 20) / 8)
                                       : static_cast<std::size_t>(pick(random, 0, 5000));
    plan.pieces.push_back(pattern(size, seed * 131u + static_cast<unsigned>(i)));
  }
  plan.patch_start = pick(random, 0, 2) == 0;
  plan.close_early = pick(random, 0, 3) < closed_in;
  plan.close_held = pick(random, 0, 2) == 0;
  return plan;
}

// Eight bytes, as the placeholder it patches.
std::string patch_text(unsigned seed) {
  std::string digits = std::to_string(seed % 10000000u);
  return "P" + std::string(7 - digits.size(), '0') + digits;
}

// What the part holds once written: the pieces, with the patch over its first 8 bytes.
std::string expected_part(const part_plan& plan) {
  std::string bytes = "........";
  for (const std::string& piece : plan.pieces) bytes += piece;
  if (plan.patch_start) bytes.replace(0, 8, patch_text(plan.seed));
  return bytes;
}

void write_part(mapout::ostream& out, const part_plan& plan) {
  out << "........";
  for (const std::string& piece : plan.pieces) {
    if (piece.size() % 3 == 0) {
      out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
    } else {
      out << piece;
    }
  }
  if (plan.patch_start) {
    const auto end = out.tellp();
    out.seekp(0);
    out << patch_text(plan.seed);
    out.seekp(end);
  }
  if (plan.close_early) out.close();
}

// Threads take the parts in a shuffled order, or in index order with most parts closed early, so
// that a part asked for after all those before it closed writes in place, and those asked for
// while one before them was open wait in memory, between parts in place.
void join_random_parts(unsigned first_seed, bool in_index_order) {
  mapout::test::temp_dir dir;
  const auto cases = mapout::test::window_cases();
  constexpr unsigned seeds = 24;
  for (unsigned seed = first_seed; seed < first_seed + seeds; ++seed) {
    const auto& which = cases[seed % cases.size()];
    SCOPED_TRACE("seed " + std::to_string(seed) + ", " + which.name);
    std::mt19937 random(seed);
    const unsigned n = seed - first_seed;
    const auto parts = static_cast<std::size_t>(n < 4 ? n + 1 : pick(random, 1, 64));
    std::vector<part_plan> plans;
    for (std::size_t k = 0; k < parts; ++k) {
      plans.push_back(
          plan_part(random, seed * 1000u + static_cast<unsigned>(k), in_index_order ? 3 : 2));
    }
    std::vector<std::size_t> order(parts);
    for (std::size_t k = 0; k < parts; ++k) order[k] = k;
    if (!in_index_order) std::shuffle(order.begin(), order.end(), random);
    const int threads = pick(random, 1, 4);

    const auto path = dir / ("out" + std::to_string(seed));
    mapout::parallel_output out(path, parts, which.opts);
    std::atomic<std::size_t> next{0};
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&] {
        std::vector<mapout::ostream*> held;
        for (std::size_t i; (i = next.fetch_add(1)) < parts;) {
          const part_plan& plan = plans[order[i]];
          mapout::ostream& part = out.part(order[i]);
          write_part(part, plan);
          if (!plan.close_early) held.push_back(&part);
          if (!plan.close_held) continue;
          for (mapout::ostream* open : held) open->close();
          held.clear();
        }
      });
    }
    for (std::thread& worker : workers) worker.join();
    ASSERT_EQ(out.close(), std::error_code{}) << out.error_message();

    std::string want;
    for (const part_plan& plan : plans) want += expected_part(plan);
    ASSERT_EQ(mapout::test::same_bytes(path, want), "ok");
  }
}

TEST(ParallelRandom, ThreadsTakingPartsInRandomOrderJoinLikeTheConcatenation) {
  join_random_parts(0, false);
}

TEST(ParallelRandom, PartsHandedOnClosedInIndexOrderJoinLikeTheConcatenation) {
  join_random_parts(5000, true);
}

}  // namespace
