// The list of writers, in table order: the ceiling, the peers, then mapout's variants.
#include "writers.hpp"

#include <cerrno>

namespace perf {

std::vector<writer> all_writers() {
  std::vector<writer> list;
  add_memory_writers(list);
  add_stdio_writers(list);
  add_iostream_writers(list);
  add_fmt_writers(list);
  add_llvm_writers(list);
#ifdef PERF_HAVE_BOOST
  add_boost_writers(list);
#endif
  add_syscall_writers(list);
  add_mmap_writers(list);
  add_mapout_writers(list);
  add_cursor_writers(list);
  add_print_cxx20_writers(list);
  return list;
}

void throw_errno(const char* operation, const std::string& path) {
  throw std::system_error(errno, std::generic_category(), std::string(operation) + " " + path);
}

}  // namespace perf
