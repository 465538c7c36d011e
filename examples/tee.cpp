// tee: copies standard input to every file named, as it arrives: a line typed at a terminal or
// written into a pipe reaches every output at once, not at the end of the input. Regular files
// take mapout's fast path; a pipe, a terminal or /dev/stdout when it is one of those takes
// mapout's write(2) path behind the same stream.
//
//   make 2>&1 | tee build.log /dev/stdout
#include <unistd.h>

#include <cerrno>
#include <cstring>
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
  int status = 0;
  std::vector<char> block(1 << 16);
  for (;;) {
    // read(2) returns what has arrived (a terminal's line, a pipe writer's write) instead of
    // waiting, as std::cin.read does, for a whole block.
    const ssize_t got = ::read(STDIN_FILENO, block.data(), block.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      std::cerr << "tee: read: " << std::strerror(errno) << '\n';
      status = 1;
    }
    if (got <= 0) break;
    for (auto& out : outputs) {
      out->write(block.data(), got);
      // Costs nothing on a regular file; on a pipe or a terminal it writes, so the reader has
      // the line now.
      out->flush();
    }
  }
  for (auto& out : outputs) {
    out->close();
    if (!*out) {
      std::cerr << out->rdbuf()->error_message() << '\n';
      status = 1;
    }
  }
  return status;
}
