// std::ofstream: put per byte, write per token and block, << per line. Its members are
// std::ostream's, so this row is also std::ofstream through std::ostream&. And the log's row that
// flushes each line with std::endl.
#include <fstream>

#include "ostream_sink.hpp"

namespace perf {
namespace {

struct ofstream_opener {
  using file_type = std::ofstream;
  using stream_type = std::ofstream;
  static void open(std::ofstream& file, const std::string& path) {
    file.open(path, std::ios::binary);
  }
};

}  // namespace

void add_iostream_writers(std::vector<writer>& list) {
  writer ofstream;
  ofstream.id = "ofstream";
  ofstream.label = "std::ofstream";
  ofstream.apis = {"put",         "write", "<<",          "write",       "write", "tellp+seekp",
                   "tellp+seekp", "seekp", "seekp+write", "seekp+write", "<<",    "<<"};
  ofstream.apis[static_cast<std::size_t>(workload_kind::log_lines)] = "<< '\\n'";
  ofstream.run = run_sink<ostream_sink<ofstream_opener>>;
  list.push_back(ofstream);

  writer endl;
  endl.id = "ofstream-endl";
  endl.label = "std::ofstream + endl";
  endl.apis = apis_for({workload_kind::log_lines}, "<< std::endl");
  endl.run = run_sink<ostream_sink<ofstream_opener, line_end::endl>>;
  list.push_back(endl);
}

}  // namespace perf
