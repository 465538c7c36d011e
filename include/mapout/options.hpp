// mapout::options: how an output file is written, fixed when it is opened.
#pragma once

#include <cstddef>

namespace mapout {

// How the bytes reach the file.
enum class strategy {
  // Chosen per target by measurement (docs/decisions.md, "automatic"): the buffer on ext4 and
  // tmpfs, where write(2) beat the mapping's page faults, and for everything that cannot be
  // mapped (pipes, FIFOs, character devices, sockets, network and FUSE file systems, app). The
  // mapping for regular files on other local file systems, once the output outgrows its first
  // buffer: a file that fits in it costs what std::ofstream costs, one write(2).
  // On any mappable file, small records stored at random offsets (seek after seek, each after
  // fewer bytes than a page) move it to the mapping.
  automatic,
  // Store into a MAP_SHARED mapping of the file from the first byte. Opening fails with ENODEV
  // where the target cannot be mapped; app writes through the buffer, since every write must
  // land at the end.
  mapped,
  // Copy into a buffer of `buffer_size` bytes and hand it to write(2) when it fills up.
  buffered,
};

// How the mapped strategy grows the file under the mapping.
enum class extension {
  // The window ends at the file's end, and the call that finds it used up extends the file ahead
  // by its own size (64 KiB at least, 64 MiB at most), with the blocks reserved (fallocate), so a
  // full disk is an error from that call. The gap a far seek leaves stays a hole. Where a store
  // can still fault (no fallocate, copy-on-write file systems), the guard reports it.
  ahead,
  // The window spans the whole mapping and a store past the end of the file raises SIGBUS:
  // mapout's process-wide handler extends the file and the store goes on, so the writer checks
  // no limit until the mapping is used up. Signals that are not these faults go to the handler
  // that was there before. When the extension fails (full disk, RLIMIT_FSIZE), the stores land
  // in scratch memory, the next call reports the error, and close writes what still fits of
  // them. A handler installed after mapout's replaces it; a thread that blocks SIGBUS cannot open
  // this mode.
  on_fault,
  on_sigbus [[deprecated("use extension::on_fault")]] = on_fault,
};

// Options for mapout::output_file, mapout::streambuf and mapout::ostream.
//
//   mapout::options opts;
//   opts.mapping_size = 1 << 30;  // map 1 GiB of the file at a time
//   mapout::ostream out("big.bin", std::ios::binary, opts);
struct options {
  // Bytes of address space mapped over the file at once (rounded up to whole pages). Larger
  // output works: the mapping moves along the file, and this bounds the written pages a streaming
  // process keeps resident. It costs nothing until written. A seek back into bytes already
  // written maps all of them at once instead, as a mapping written by hand would (records at
  // random offsets of a laid-out file: docs/decisions.md, "random").
  std::size_t mapping_size = std::size_t{32} << 20;

  // Bytes buffered before each write(2) on the buffered strategy, and the first buffer of
  // strategy::automatic.
  std::size_t buffer_size = std::size_t{64} << 10;

  mapout::strategy strategy = mapout::strategy::automatic;

  // How a mapped file grows; the buffered strategy ignores it.
  mapout::extension extension = mapout::extension::ahead;

  // A store into a page the file does not have (another writer truncated it; a full copy-on-write
  // file system, or one without fallocate) raises SIGBUS. Guarded, it lands in scratch memory
  // and the next flush, overflow or close reports EIO ("store into a file truncated by another
  // process") or ENOSPC ("store"). Free per store (docs/decisions.md, "guard"). A thread that
  // blocks SIGBUS cannot be guarded: a guarded mapping fails to open or move there, and
  // strategy::automatic keeps the buffer. false: such a fault kills, as with any mmap writer.
  bool guard_faults = true;

  // For a file another process reads while it is written, such as a log under `tail -f`: every
  // flush (flush(), std::endl, std::flush, unitbuf, mapout_flush, the Boost sink's flush) does
  // what publish() does, so a reader sees the bytes and the file's size as after
  // std::ofstream's flush. On strategy::automatic the file then stays in the buffer, where a
  // flush costs what std::ofstream's does: one write(2) of the bytes gathered. On
  // strategy::mapped each flush cuts the file back to the bytes written, and the next write
  // extends it again: two size changes, far more than a write(2). false: on a regular file a
  // flush costs nothing, and a reader sees the bytes at publish() or close().
  bool flush_publishes = false;

  // For code generators and build tools (docs/generators.md). Each needs a mode
  // that truncates (out, out|trunc, with in, ate or binary); opening with app, or in without
  // trunc, fails with EINVAL. A target that exists and is not a regular file (a FIFO, /dev/null) is
  // written as without them; a directory fails with EISDIR.

  // The bytes go to a temporary file in the target's directory, and close() renames it over the
  // target only when the whole file's life succeeded: until then the target is untouched, and a
  // reader sees the complete old file or the complete new one. The open succeeds or fails as
  // std::ofstream's would (the kernel's checks, its errno), and with EPERM where rename could not
  // replace the file. A new file gets 0666 & ~umask; a replaced one its bits, and its owner and
  // group where the writer may give them (set-ID bits only with both). A symbolic link is written
  // through and stays. Destruction without a successful close() discards the bytes, unlike
  // std::ofstream: an exception unwinding past the stream never publishes half an output. The
  // temporary is 0600 at most until just before the rename, and unnamed (O_TMPFILE) until then
  // where the file system can; else ".<name>.mapout-XXXXXX", which a killed writer leaves.
  bool atomic = false;

  // When the bytes at close() equal the existing file's, still there as opened (inode, size, mtime
  // and ctime), it is left exactly as it was. The new bytes go to a temporary as with `atomic`,
  // and each stretch is compared with the old file (pread) as the window it was stored in is
  // handed back, so the old file is read at most once. A stretch written over later (a patched
  // header) is compared as finally written; after 64 KiB of differences comparing stops, and a
  // changed output costs what a plain one does (one that differed by more than that while written
  // is replaced even when it ends equal). A changed output replaces the target at close() by
  // rename, as with `atomic`, with its guarantees. Without `atomic`, destruction without close()
  // still publishes what was written, as std::ofstream does. An old file mapout cannot read counts
  // as changed. Bytes written through native_handle() are not compared.
  bool write_if_changed = false;

  // close() returns only after fdatasync(2) of the file and, when a temporary replaced the
  // target, fsync(2) of its directory: after a power loss the target holds the old file or the
  // new one, nothing else (with `atomic`; without it, the new bytes or what the crash left).
  bool durable = false;
};

}  // namespace mapout
