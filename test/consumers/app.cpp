// A C++ consumer of an installed mapout: writes through mapout::ostream and reads the bytes back
// with std::ifstream, mapout::istream and mapout::mapped_input.
#include <mapout/input.hpp>
#include <mapout/istream.hpp>
#include <mapout/ostream.hpp>
#include <mapout/version.hpp>

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: app FILE\n";
    return 2;
  }
  std::ostringstream expected;
  mapout::ostream out(argv[1]);
  out << "mapout " << MAPOUT_VERSION_MAJOR << '.' << MAPOUT_VERSION_MINOR << '\n';
  expected << "mapout " << MAPOUT_VERSION_MAJOR << '.' << MAPOUT_VERSION_MINOR << '\n';
  for (int i = 0; i < 100000; ++i) {
    out << "line " << i << '\n';
    expected << "line " << i << '\n';
  }
  if (out.native_handle() < 0) return 1;
  out.close();
  if (!out) {
    std::cerr << out.rdbuf()->error_message() << '\n';
    return 1;
  }
  std::ifstream in(argv[1], std::ios::binary);
  const std::string got{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::ostringstream streamed;
  streamed << mapout::istream(argv[1], std::ios::binary).rdbuf();
  const mapout::mapped_input mapped(argv[1]);
  if (got != expected.str() || streamed.str() != got || mapped.view() != got) {
    std::cerr << "app: " << argv[1] << " does not hold the bytes written\n";
    return 1;
  }
  return 0;
}
