// Reading a descriptor to its end, doubling the memory as the bytes come.
#include "input/read_all.hpp"

#include <cerrno>
#include <utility>

namespace mapout::detail {
namespace {

// The first allocation when the size is unknown, as for a pipe or a special file.
constexpr std::size_t unknown_size_start = std::size_t{64} << 10;
// An endless input (/dev/zero) ends here too.
constexpr char no_memory[] = "read (no memory for the whole input)";

}  // namespace

error_cause read_all(int fd, std::size_t expected, heap_bytes& bytes, std::size_t& size) noexcept {
  std::size_t capacity = expected > 0 ? expected + 1 : unknown_size_start;
  heap_bytes memory(static_cast<char*>(std::malloc(capacity)));
  if (!memory) return {ENOMEM, no_memory};
  std::size_t filled = 0;
  for (;;) {
    if (filled == capacity) {
      capacity *= 2;
      char* const grown = static_cast<char*>(std::realloc(memory.get(), capacity));
      if (!grown) return {ENOMEM, no_memory};
      memory.release();
      memory.reset(grown);
    }
    const ssize_t got = retry_on_eintr(sys().read, fd, memory.get() + filled, capacity - filled);
    if (got < 0) return errno_failure("read");
    if (got == 0) break;
    filled += static_cast<std::size_t>(got);
  }
  bytes = std::move(memory);
  size = filled;
  return {};
}

}  // namespace mapout::detail
