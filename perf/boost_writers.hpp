// What perf/compare needs for its Boost rows beside stream<file_descriptor_sink>: openers for
// ostream_sink, so every Boost stream is driven by the same put / write / << calls.
#pragma once

#include <boost/iostreams/device/mapped_file.hpp>
#include <boost/iostreams/stream.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "mapout/boost.hpp"
#include "ostream_sink.hpp"

namespace perf {

// stream<mapout::sink> with Boost's buffer at the sink's optimal_buffer_size.
struct boost_mapout_opener {
  using file_type = boost::iostreams::stream<mapout::sink>;
  using stream_type = file_type;
  static void open(file_type& file, const std::string& path) {
    file.open(mapout::sink(path, std::ios::binary));
  }
};

// stream<mapped_file_sink> over the whole of an existing file: Boost's mapped file cannot grow.
struct boost_mapped_file_opener {
  using file_type = boost::iostreams::stream<boost::iostreams::mapped_file_sink>;
  using stream_type = file_type;
  static void open(file_type& file, const std::string& path) {
    file.open(boost::iostreams::mapped_file_sink(path));
  }
};

// The mapped_file_sink row, only for workloads whose final size is known before writing: the file
// is created at that size (inside the timed run, as a real user would have to), then mapped whole.
inline void run_boost_mapped_file(const workload& work, const std::string& path) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).close();
  std::filesystem::resize_file(path, work.bytes);
  run_sink<ostream_sink<boost_mapped_file_opener>>(work, path);
}

}  // namespace perf
