// Counting the system calls mapout makes, through the seam in lib/platform/sys.hpp: while a
// system_call_log lives, each counted call is noted and then made for real.
#pragma once

#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstddef>
#include <vector>

#include "platform/sys.hpp"
#include "system_call_override.hpp"

namespace mapout::test {

// One at a time, on one thread: the seam is a process-wide table of plain function pointers.
class system_call_log {
 public:
  system_call_log() { entries() = {}; }
  system_call_log(const system_call_log&) = delete;
  system_call_log& operator=(const system_call_log&) = delete;

  const std::vector<off_t>& ftruncate_lengths() const { return entries().ftruncate_lengths; }
  int writes() const { return entries().writes; }
  int mmaps() const { return entries().mmaps; }
  int lseeks() const { return entries().lseeks; }
  int fsyncs() const { return entries().fsyncs; }
  // Calls that cost a trip to the kernel on the way of output.
  std::size_t output_calls() const {
    return entries().ftruncate_lengths.size() +
           static_cast<std::size_t>(writes() + mmaps() + lseeks() + fsyncs());
  }
  void clear() { entries() = {}; }

 private:
  struct log {
    std::vector<off_t> ftruncate_lengths;
    int writes = 0;
    int mmaps = 0;
    int lseeks = 0;
    int fsyncs = 0;
  };
  static log& entries() {
    static log entries;
    return entries;
  }

  using calls = detail::system_calls;
  system_call_override<&calls::ftruncate> ftruncate_{[](int fd, off_t length) {
    entries().ftruncate_lengths.push_back(length);
    return detail::real_system_calls().ftruncate(fd, length);
  }};
  // An extension reserves its blocks with fallocate, which sets the file's size like ftruncate.
  system_call_override<&calls::fallocate> fallocate_{
      [](int fd, int mode, off_t offset, off_t length) {
        entries().ftruncate_lengths.push_back(offset + length);
        return detail::real_system_calls().fallocate(fd, mode, offset, length);
      }};
  system_call_override<&calls::write> write_{[](int fd, const void* data, std::size_t size) {
    ++entries().writes;
    return detail::real_system_calls().write(fd, data, size);
  }};
  // A read-only view (what close and publish read past the bytes written) is no output.
  system_call_override<&calls::mmap> mmap_{
      [](void* addr, std::size_t length, int prot, int flags, int fd, off_t offset) {
        if (prot & PROT_WRITE) ++entries().mmaps;
        return detail::real_system_calls().mmap(addr, length, prot, flags, fd, offset);
      }};
  // SEEK_DATA and SEEK_HOLE only read where the file has data.
  system_call_override<&calls::lseek> lseek_{[](int fd, off_t offset, int whence) {
    if (whence == SEEK_SET || whence == SEEK_CUR || whence == SEEK_END) ++entries().lseeks;
    return detail::real_system_calls().lseek(fd, offset, whence);
  }};
  system_call_override<&calls::fsync> fsync_{[](int fd) {
    ++entries().fsyncs;
    return detail::real_system_calls().fsync(fd);
  }};
};

}  // namespace mapout::test
