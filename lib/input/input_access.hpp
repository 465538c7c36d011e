// What mapout::istreambuf needs of a mapped_input beyond its public interface: an open that leaves
// what cannot be mapped unread, the descriptor to read it from, and the file's size now.
#pragma once

#include <cstdint>
#include <filesystem>

#include "mapout/input.hpp"
#include "platform/sys.hpp"

namespace mapout::detail {

struct input_access {
  // As mapped_input::open, but an input that cannot be mapped (a pipe, a device, a special file,
  // a file with no room in the address space) is left open and unread, for the caller to read as
  // it consumes it: is_mapped() is false and size() is 0.
  static std::error_code open_unread(mapped_input& input, const std::filesystem::path& path,
                                     access advice) noexcept;
  // The open descriptor, or -1.
  static int descriptor(const mapped_input& input) noexcept;
  // The file's size now, by fstat, or the failure error() reports: a read met a lost page, or a
  // mapped file smaller than its mapping, which is kept (error() reports EIO from then on).
  static error_cause size_now(const mapped_input& input, std::uint64_t& size) noexcept;
  // Whether a read from the mapping met a page the file lost (and yielded zeroes).
  static bool faulted(const mapped_input& input) noexcept;
  // Keeps the first failure of reading the descriptor, for error().
  static void record_failure(const mapped_input& input, error_cause why) noexcept;
};

}  // namespace mapout::detail
