// mapout::options: how an output file is written, fixed when it is opened.
#pragma once

#include <cstddef>

namespace mapout {

// How the bytes reach the file.
enum class strategy {
  // Chosen per file system by measurement (perf/compare). The buffer on ext4 and tmpfs, where
  // write(2) from a buffer beat the mapping's page faults for every workload measured but bulk
  // 1 MiB blocks into a 1 GiB ext4 file, and for everything that cannot be mapped (pipes, FIFOs,
  // character devices, sockets, NFS, CIFS/SMB, FUSE, 9p, Ceph). The mapping for regular files on
  // other local file systems, once the output outgrows its first buffer of `buffer_size` bytes: a
  // file that fits in it costs what std::ofstream costs, one write(2), instead of a mapping, an
  // extension and a cut.
  automatic,
  // Store into a MAP_SHARED mapping of the file from the first byte. Opening fails with ENODEV
  // where the target cannot be mapped.
  mapped,
  // Copy into a buffer of `buffer_size` bytes and hand it to write(2) when it fills up. On a
  // regular file flush() leaves the buffer alone, as on the mapping (publish() writes it); on a
  // pipe, a terminal, a socket or a file opened for appending it writes, as std::ofstream does.
  buffered,
};

// How the mapped strategy grows the file under the mapping.
enum class extension {
  // The window ends at the file's end, and the call that finds it used up extends the file ahead,
  // by the file's own size (64 KiB at least, 64 MiB at most), with the blocks reserved (fallocate)
  // so that a full disk is an error from that call, never a SIGBUS; the gap a far seek leaves
  // stays a hole. Stores check nothing but the window's end.
  // What reserving cannot promise: a file system without fallocate gets holes (ftruncate), and a
  // copy-on-write file system (btrfs; XFS with shared extents) may need new blocks for a store
  // into reserved ones. There a full disk still faults; the guard (guard_truncation, on by
  // default) turns that fault into ENOSPC on the stream. Write-back errors of a failing disk never
  // fault: persist() reports them.
  ahead,
  // The window spans the whole reservation and a store past the end of the file raises SIGBUS:
  // mapout's handler extends the file and the store goes on, so the writer checks no limit until
  // the reservation is used up. The handler is installed process-wide on first use and passes
  // every SIGBUS that is not one of these faults to the handler that was there before (the
  // default action included). When the extension fails (full disk, RLIMIT_FSIZE), the faulting
  // store and the ones after it land in scratch memory, the next flush, overflow or close reports
  // the error, and close writes what still fits of those bytes with write(2); after a truncate by
  // another writer they are lost. A handler installed after mapout's replaces it, and the process
  // then dies on the first of these faults. A thread that blocks SIGBUS cannot open this mode.
  on_sigbus,
};

// Options for mapout::output_file, mapout::streambuf and mapout::ostream.
//
//   mapout::options opts;
//   opts.reserve = 1 << 30;  // map 1 GiB of the file at a time
//   mapout::ostream out("big.bin", std::ios::binary, opts);
struct options {
  // Bytes of address space mapped over the file at once (rounded up to whole pages). Output larger
  // than this works: the mapping moves along the file, and the pages behind it leave the process's
  // resident set, so this bounds the memory a large file holds: writing 1 GiB peaked 33 MiB above
  // the process's baseline with 32 MiB and 65 MiB with 64 MiB, at the same speed (ext4, 8 to 64
  // MiB measured alike; issue 3 allows 64 MiB). It costs nothing until written, and 1000 open
  // streams take 32 GiB of address space.
  std::size_t reserve = std::size_t{32} << 20;

  // Bytes buffered before each write(2) on the buffered strategy. 64 KiB is where write(2) stops
  // getting cheaper per byte.
  std::size_t buffer_size = std::size_t{64} << 10;

  mapout::strategy strategy = mapout::strategy::automatic;

  // How a mapped file grows; the buffered strategy ignores it.
  mapout::extension extension = mapout::extension::ahead;

  // A store into a page the file does not have (another writer truncated the file, or a full
  // copy-on-write file system, or one without fallocate, has no block for it) raises SIGBUS.
  // With the guard, mapout's SIGBUS handler (see extension::on_sigbus, which always has it) turns
  // that fault into an error on the stream: the store lands in a scratch page and the next
  // flush, overflow or close reports EIO, "store into a file truncated by another process", or
  // ENOSPC, "store". It costs nothing per store; opening and moving the mapping register it
  // (docs/decisions.md, "guard"). A thread that blocks SIGBUS cannot be guarded: there a guarded
  // mapping fails to open or move, and strategy::automatic keeps the buffer. false maps without
  // the guard, and such a fault kills the process, as with any mmap writer.
  bool guard_truncation = true;
};

}  // namespace mapout
