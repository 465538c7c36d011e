// LLVM's raw_fd_ostream, which clang -E writes its output with: << per byte and line, write per
// token and block, seek for the seeking workloads; and its raw_pwrite_stream::pwrite for patches.
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include "writers.hpp"

namespace perf {
namespace {

class llvm_sink {
 public:
  explicit llvm_sink(const std::string& path)
      : path_(path), out_(path, opened_, llvm::sys::fs::OF_None) {
    if (opened_) throw std::system_error(opened_, "open " + path);
  }

  void byte(char c) { out_ << c; }
  void token(std::string_view text) { out_.write(text.data(), text.size()); }
  void line(std::uint32_t i, std::uint32_t value) {
    out_ << "    { \"field_" << i << "\", " << i << ", " << value << " },\n";
  }
  void block(const char* data, std::size_t size) { out_.write(data, size); }
  std::uint64_t tell() const { return out_.tell(); }
  void seek(std::uint64_t offset) { out_.seek(offset); }
  void write_at(std::uint64_t offset, const char* data, std::size_t size) {
    const std::uint64_t end = out_.tell();
    out_.seek(offset);
    out_.write(data, size);
    out_.seek(end);
  }
  void close() {
    out_.close();
    if (out_.has_error()) {
      const std::error_code error = out_.error();
      // raw_fd_ostream aborts in its destructor on an error nobody cleared.
      out_.clear_error();
      throw std::system_error(error, "write " + path_);
    }
  }

 protected:
  llvm::raw_fd_ostream& out() { return out_; }

 private:
  std::string path_;
  std::error_code opened_;
  llvm::raw_fd_ostream out_;
};

// Patches through raw_pwrite_stream::pwrite, which cannot extend the stream: scatter is n/a.
class llvm_pwrite_sink : public llvm_sink {
 public:
  using llvm_sink::llvm_sink;
  static constexpr bool records_in_place = true;
  void write_at(std::uint64_t offset, const char* data, std::size_t size) {
    out().pwrite(data, size, offset);
  }
};

}  // namespace

void add_llvm_writers(std::vector<writer>& list) {
  writer llvm;
  llvm.id = "llvm";
  llvm.label = "llvm::raw_fd_ostream";
  llvm.apis = {"<<",        "write",     "<<",   "write",      "write",
               "tell+seek", "tell+seek", "seek", "seek+write", "seek+write"};
  llvm.run = run_sink<llvm_sink>;
  list.push_back(llvm);

  writer pwrite;
  pwrite.id = "llvm-pwrite";
  pwrite.label = "llvm::raw_fd_ostream pwrite";
  pwrite.apis = {nullptr,  nullptr,       nullptr,  nullptr,
                 nullptr,  "tell+pwrite", "pwrite", "n/a: pwrite cannot extend",
                 "pwrite", "pwrite"};
  pwrite.run = run_sink<llvm_pwrite_sink>;
  list.push_back(pwrite);
}

}  // namespace perf
