// gzip_chain: compresses standard input into a .gz file through a Boost.Iostreams filtering chain
// whose last link is mapout::sink, so the compressed bytes go straight into a mapping of the file.
//
//   tar cf - src | gzip_chain src.tar.gz
//   gzip -dc src.tar.gz | tar tf -
#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filtering_stream.hpp>
#include <iostream>
#include <vector>

#include <mapout/boost.hpp>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " OUTPUT.gz < INPUT\n";
    return 2;
  }
  std::ios::sync_with_stdio(false);
  try {
    boost::iostreams::filtering_ostream out;
    out.push(boost::iostreams::gzip_compressor());
    out.push(mapout::sink(argv[1], std::ios::binary));
    // A failing write then throws the sink's own failure, which names the file and the cause.
    out.exceptions(std::ios::badbit);
    std::vector<char> block(1 << 16);
    while (std::cin.read(block.data(), static_cast<std::streamsize>(block.size())) ||
           std::cin.gcount() > 0) {
      out.write(block.data(), std::cin.gcount());
    }
    // Writes gzip's trailer and closes the file; throws if either fails.
    out.reset();
  } catch (const std::exception& e) {
    std::cerr << argv[0] << ": " << e.what() << '\n';
    return 1;
  }
  return 0;
}
