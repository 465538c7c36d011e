// parallel_csv: a CSV export made by every core at once. Each thread formats its share of the
// rows into a part of one mapout::parallel_output; close() joins the parts in order.
//
//   parallel_csv rows.csv 3000000
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <thread>
#include <vector>

#include <mapout/parallel.hpp>

namespace {

// Rows [from, to): an id and two doubles that depend on it only, so the file is the same on any
// number of threads.
void write_rows(mapout::ostream& out, long from, long to) {
  for (long id = from; id < to; ++id) {
    const double x = static_cast<double>(id) * 0.5;
    const double y = 1.0 / static_cast<double>(id + 1);
    out << id << ',' << x << ',' << y << '\n';
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: parallel_csv OUTPUT ROWS\n";
    return 2;
  }
  const long rows = std::atol(argv[2]);
  const unsigned threads = std::max(std::thread::hardware_concurrency(), 1u);
  mapout::parallel_output out(argv[1], threads);
  out.part(0) << "id,x,y\n";
  std::vector<std::thread> workers;
  for (unsigned k = 1; k < threads; ++k) {
    workers.emplace_back([&out, k, rows, threads] {
      write_rows(out.part(k), rows * k / threads, rows * (k + 1) / threads);
    });
  }
  write_rows(out.part(0), 0, rows / threads);
  for (std::thread& worker : workers) worker.join();
  if (out.close()) {
    std::cerr << out.error_message() << '\n';
    return 1;
  }
  return 0;
}
