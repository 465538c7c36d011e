// Boost.Iostreams: stream<file_descriptor_sink> (Boost's buffer, then write(2)), and from
// boost_writers.hpp stream<mapout::sink> and stream<mapped_file_sink>.
#include <boost/iostreams/device/file_descriptor.hpp>
#include <boost/iostreams/stream.hpp>

#include "boost_writers.hpp"
#include "ostream_sink.hpp"

namespace perf {
namespace {

struct boost_fd_opener {
  using file_type = boost::iostreams::stream<boost::iostreams::file_descriptor_sink>;
  using stream_type = file_type;
  static void open(file_type& file, const std::string& path) {
    file.open(boost::iostreams::file_descriptor_sink(path, std::ios::binary | std::ios::trunc));
  }
};

writer boost_writer(std::string id, std::string label, bool quick,
                    void (*run)(const workload&, const std::string&)) {
  writer w;
  w.id = std::move(id);
  w.label = std::move(label);
  // Boost's rows show what each device costs for streams; their seek is not compared.
  w.apis = {"put", "write", "<<", "write", "write", cannot_seek, cannot_seek, cannot_seek};
  w.quick = quick;
  w.run = run;
  return w;
}

}  // namespace

void add_boost_writers(std::vector<writer>& list) {
  list.push_back(boost_writer("boost-fd", "boost stream<fd_sink>", true,
                              run_sink<ostream_sink<boost_fd_opener>>));
  list.push_back(boost_writer("boost-mapout", "boost stream<mapout::sink>", false,
                              run_sink<ostream_sink<boost_mapout_opener>>));
  // Every workload's size is known before it starts, which mapped_file_sink needs.
  list.push_back(
      boost_writer("boost-mapped-file", "boost stream<mapped_file>", false, run_boost_mapped_file));
}

}  // namespace perf
