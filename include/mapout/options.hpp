// mapout::options: how an output file is written, fixed when it is opened.
#pragma once

#include <cstddef>

namespace mapout {

// How the bytes reach the file.
enum class strategy {
  // The mapping for regular files on local file systems; the buffer for everything that cannot be
  // mapped (pipes, FIFOs, character devices, sockets, NFS, CIFS/SMB, FUSE, 9p, Ceph).
  automatic,
  // Store into a MAP_SHARED mapping of the file. Opening fails with ENODEV where the target cannot
  // be mapped.
  mapped,
  // Copy into a buffer of `buffer_size` bytes and hand it to write(2) when it fills up.
  buffered,
};

// Options for mapout::output_file, mapout::streambuf and mapout::ostream.
//
//   mapout::options opts;
//   opts.reserve = 1 << 30;  // map 1 GiB of the file at a time
//   mapout::ostream out("big.bin", std::ios::binary, opts);
struct options {
  // Bytes of address space mapped over the file at once (rounded up to whole pages). Output larger
  // than this works: the mapping moves along the file, and the pages behind it leave the process's
  // resident set. 64 MiB costs nothing until written, keeps 1000 open streams within 64 GiB of
  // address space, and bounds how many written pages stay mapped.
  std::size_t reserve = std::size_t{64} << 20;

  // Bytes buffered before each write(2) on the buffered strategy. 64 KiB is where write(2) stops
  // getting cheaper per byte.
  std::size_t buffer_size = std::size_t{64} << 10;

  mapout::strategy strategy = mapout::strategy::automatic;
};

}  // namespace mapout
