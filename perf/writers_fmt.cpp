// fmt::output_file: print for everything, the way fmt's users write files.
#include "fmt_sink.hpp"

namespace perf {

void add_fmt_writers(std::vector<writer>& list) {
  writer fmt;
  fmt.id = "fmt";
  fmt.label = "fmt::output_file";
  fmt.apis = {"print",     "print",     "print",     "print", "print", cannot_seek, cannot_seek,
              cannot_seek, cannot_seek, cannot_seek, "print", "print", "print"};
  fmt.run = run_sink<fmt_sink<false>>;
  list.push_back(fmt);

  // "{}" of the numbers: what print with "{}" is set against.
  writer shortest;
  shortest.id = "fmt-shortest";
  shortest.label = "fmt::output_file {}";
  shortest.apis = apis_for({workload_kind::numbers, workload_kind::doubles}, "print");
  shortest.quick = false;
  shortest.run = run_sink<fmt_sink<true>>;
  shortest.reference = shortest_digest;
  list.push_back(shortest);
}

}  // namespace perf
