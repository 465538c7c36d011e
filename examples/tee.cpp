// tee: copies standard input to every file named. Regular files are mapped; a pipe, a terminal or
// /dev/stdout when it is one of those takes mapout's write(2) path behind the same stream.
//
//   make 2>&1 | tee build.log /dev/stdout
#include <iostream>
#include <memory>
#include <vector>

#include <mapout/ostream.hpp>

int main(int argc, char** argv) {
  std::vector<std::unique_ptr<mapout::ostream>> outputs;
  for (int i = 1; i < argc; ++i) {
    outputs.push_back(std::make_unique<mapout::ostream>(argv[i], std::ios::binary));
    if (!*outputs.back()) {
      std::cerr << outputs.back()->rdbuf()->error_message() << '\n';
      return 1;
    }
  }
  std::vector<char> block(1 << 16);
  while (std::cin.read(block.data(), static_cast<std::streamsize>(block.size())) ||
         std::cin.gcount() > 0) {
    for (auto& out : outputs) out->write(block.data(), std::cin.gcount());
  }
  int status = 0;
  for (auto& out : outputs) {
    out->close();
    if (!*out) {
      std::cerr << out->rdbuf()->error_message() << '\n';
      status = 1;
    }
  }
  return status;
}
