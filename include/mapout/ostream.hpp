// mapout::ostream: a drop-in for std::ofstream that writes through mapout::streambuf.
#pragma once

#include <filesystem>
#include <ios>
#include <ostream>
#include <string>

#include "mapout/options.hpp"
#include "mapout/streambuf.hpp"

namespace mapout {

// std::ofstream's interface over a mapping of the file.
//
//   mapout::ostream out("gen/tables.cpp");   // out|trunc, as std::ofstream
//   out << "const int n = " << 42 << ";\n";
//   out.close();                             // failbit if anything failed, the final size included
//
// Errors follow iostream rules: failbit when open fails, badbit when a write fails, failbit when
// close finds any failure; with exceptions() set, the std::ios_base::failure thrown names the
// operation and the path and carries errno as its code().
class ostream : public std::ostream {
 public:
  ostream();
  explicit ostream(const char* path, std::ios_base::openmode mode = std::ios_base::out,
                   const options& opts = {});
  explicit ostream(const std::string& path, std::ios_base::openmode mode = std::ios_base::out,
                   const options& opts = {});
  explicit ostream(const std::filesystem::path& path,
                   std::ios_base::openmode mode = std::ios_base::out, const options& opts = {});
  ostream(ostream&& other);
  ostream& operator=(ostream&& other);
  void swap(ostream& other);

  void open(const char* path, std::ios_base::openmode mode = std::ios_base::out,
            const options& opts = {});
  void open(const std::string& path, std::ios_base::openmode mode = std::ios_base::out,
            const options& opts = {});
  void open(const std::filesystem::path& path, std::ios_base::openmode mode = std::ios_base::out,
            const options& opts = {});
  bool is_open() const noexcept { return buf_.is_open(); }
  void close();

  // The file's size and bytes as close() would leave them, for a reader in another process, while
  // writing goes on. flush() and std::endl cost no system call on a mapped file; this costs one.
  ostream& publish();
  // publish(), then fsync: the bytes are on the disk.
  ostream& persist();

  streambuf* rdbuf() const noexcept { return const_cast<streambuf*>(&buf_); }

 private:
  // Sets `state`; with exceptions() asking for it, throws a failure that carries the buffer's
  // error message and code instead of the standard library's generic one.
  void fail_with(iostate state);

  streambuf buf_;
};

inline void swap(ostream& a, ostream& b) {
  a.swap(b);
}

}  // namespace mapout
