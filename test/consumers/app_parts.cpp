// A consumer of mapout's optional parts: mapout::print (format.hpp, linked with fmt),
// mapout::sink (boost.hpp, linked with Boost.Iostreams) and mapout::spdlog_sink (spdlog.hpp,
// linked with spdlog), each file's bytes checked.
#include <mapout/boost.hpp>
#include <mapout/format.hpp>
#include <mapout/spdlog.hpp>

#include <spdlog/logger.h>
#include <boost/iostreams/stream.hpp>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>

namespace {

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: app_parts DIR\n";
    return 2;
  }
  const std::string printed = std::string(argv[1]) + "/printed.txt";
  const std::string sunk = std::string(argv[1]) + "/sunk.txt";
  const std::string logged = std::string(argv[1]) + "/logged.txt";
  {
    mapout::ostream out(printed);
    // A format parsed at run time: fmt's library does the work.
    mapout::print(out, fmt::runtime("{:>5}|{}\n"), 42, "mapout");
  }
  {
    boost::iostreams::stream<mapout::sink> out(sunk);
    out << "through boost\n";
  }
  {
    spdlog::logger log("app", std::make_shared<mapout::spdlog_sink_mt>(logged));
    log.set_pattern("%l %v");
    log.info("through spdlog {}", 42);
  }
  if (bytes_of(printed) != "   42|mapout\n" || bytes_of(sunk) != "through boost\n" ||
      bytes_of(logged) != "info through spdlog 42\n") {
    std::cerr << "app_parts: the files do not hold the bytes written\n";
    return 1;
  }
  return 0;
}
