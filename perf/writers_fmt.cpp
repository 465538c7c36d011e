// fmt::output_file: print for everything, the way fmt's users write files.
#include <fmt/os.h>

#include "writers.hpp"

namespace perf {
namespace {

class fmt_sink {
 public:
  explicit fmt_sink(const std::string& path) : out_(fmt::output_file(path)) {}

  void byte(char c) { out_.print("{}", c); }
  void token(std::string_view text) { out_.print("{}", text); }
  void line(std::uint32_t i, std::uint32_t value) {
    out_.print("    {{ \"field_{}\", {}, {} }},\n", i, i, value);
  }
  void block(const char* data, std::size_t size) { out_.print("{}", std::string_view(data, size)); }
  // "{:g}", printf's %g, as the other numbers rows.
  void row(long id, double x, double y) { out_.print("{},{:g},{:g}\n", id, x, y); }
  void number(double x) { out_.print("{:g}\n", x); }
  void close() { out_.close(); }

 private:
  fmt::ostream out_;
};

}  // namespace

void add_fmt_writers(std::vector<writer>& list) {
  writer fmt;
  fmt.id = "fmt";
  fmt.label = "fmt::output_file";
  fmt.apis = {"print",     "print",     "print",     "print",     "print", cannot_seek,
              cannot_seek, cannot_seek, cannot_seek, cannot_seek, "print", "print"};
  fmt.run = run_sink<fmt_sink>;
  list.push_back(fmt);
}

}  // namespace perf
