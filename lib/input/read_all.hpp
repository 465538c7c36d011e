// Reading a descriptor to its end into memory: the bytes of an input that cannot be mapped.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>

#include "platform/sys.hpp"

namespace mapout::detail {

struct free_deleter {
  void operator()(char* bytes) const noexcept { std::free(bytes); }
};
using heap_bytes = std::unique_ptr<char, free_deleter>;

// Reads from `fd` until end of file into `bytes`, `size` of them. `expected` is what fstat said
// (0 when it says nothing): the first allocation holds that much and one byte more, so that a
// regular file is read without growing. Fails with the read's errno, or ENOMEM when the
// input does not end before memory runs out.
error_cause read_all(int fd, std::size_t expected, heap_bytes& bytes, std::size_t& size) noexcept;

}  // namespace mapout::detail
