// Random reading sequences for mapout::istream against std::ifstream: text that every extractor
// has something to do with, and one step of every reading and seeking call, applied alike to both.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <istream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace mapout::test {

// Text that every extractor has something to do with: words, numbers (some too large for an
// int), runs of blanks and newlines, and now and then a NUL or a byte above 127.
inline std::string random_text(std::size_t size, unsigned seed) {
  std::mt19937 random(seed);
  static const char alphabet[] = "abcxyz0123456789-+ \n\t.";
  std::string text(size, ' ');
  for (char& c : text) {
    const unsigned pick = random() % 100;
    c = pick == 0 ? '\0' : pick == 1 ? '\xe9' : alphabet[random() % (sizeof alphabet - 1)];
  }
  return text;
}

// std::ifstream as the oracle, its buffer longer than any read() of step(): libstdc++'s
// basic_filebuf makes a longer read around its buffer and keeps the old get area, so that an
// unget() after it gives back a byte of that area, not the file's. mingw-w64's BUFSIZ of 512 makes
// nearly every read of step() such a read on Windows.
class oracle_ifstream : public std::ifstream {
 public:
  oracle_ifstream(const std::filesystem::path& path, std::ios_base::openmode mode)
      : buffer_(2 * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)) + 4) {
    rdbuf()->pubsetbuf(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    open(path, mode);
  }

 private:
  std::vector<char> buffer_;
};

// One step of a random sequence, applied alike to both streams; what it returns is compared.
inline std::string step(std::istream& in, unsigned op, std::mt19937& random, std::int64_t size) {
  std::ostringstream seen;
  switch (op) {
    case 0:
      seen << "get " << in.get();
      break;
    case 1: {
      std::string line;
      std::getline(in, line);
      seen << "getline " << line;
      break;
    }
    case 2: {
      const char delimiter = "\n x"[random() % 3];
      char line[64];
      in.getline(line, 1 + random() % sizeof line, delimiter);
      seen << "getline(n) " << std::string(line, static_cast<std::size_t>(in.gcount()));
      break;
    }
    case 3: {
      static const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
      std::string bytes(random() % (2 * page + 3), '\0');
      in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      seen << "read " << std::string(bytes.data(), static_cast<std::size_t>(in.gcount()));
      break;
    }
    case 4: {
      int number = 0;
      in >> number;
      seen << ">>int " << number;
      break;
    }
    case 5: {
      std::string word;
      in >> word;
      seen << ">>string " << word;
      break;
    }
    case 6: {
      const std::int64_t target = static_cast<std::int64_t>(random() % (size + 10)) - 3;
      switch (random() % 3) {
        case 0:
          in.seekg(target);
          break;
        case 1:
          in.seekg(target - size / 2, std::ios_base::cur);
          break;
        default:
          in.seekg(target - size, std::ios_base::end);
          break;
      }
      seen << "seekg";
      break;
    }
    case 7:
      seen << "tellg " << in.tellg();
      break;
    case 8:
      in.unget();
      seen << "unget";
      break;
    case 9:
      seen << "peek " << in.peek();
      break;
    case 10: {
      char bytes[32];
      in.get(bytes, 1 + random() % sizeof bytes, "\n x"[random() % 3]);
      seen << "get(n) " << std::string(bytes, static_cast<std::size_t>(in.gcount()));
      break;
    }
    case 11:
      in.ignore(random() % 300, '\n');
      seen << "ignore";
      break;
    default:
      in.clear();
      seen << "clear";
      break;
  }
  seen << " gcount " << in.gcount() << " state " << in.rdstate();
  return seen.str();
}

}  // namespace mapout::test
