// A consumer of mapout's optional parts: mapout::print (format.hpp, linked with fmt) and
// mapout::sink (boost.hpp, linked with Boost.Iostreams), each file's bytes checked.
#include <mapout/boost.hpp>
#include <mapout/format.hpp>

#include <boost/iostreams/stream.hpp>
#include <fstream>
#include <iostream>
#include <iterator>
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
  {
    mapout::ostream out(printed);
    // A format parsed at run time: fmt's library does the work.
    mapout::print(out, fmt::runtime("{:>5}|{}\n"), 42, "mapout");
  }
  {
    boost::iostreams::stream<mapout::sink> out(sunk);
    out << "through boost\n";
  }
  if (bytes_of(printed) != "   42|mapout\n" || bytes_of(sunk) != "through boost\n") {
    std::cerr << "app_parts: the files do not hold the bytes written\n";
    return 1;
  }
  return 0;
}
