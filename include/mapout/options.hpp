// mapout::options: how an output file is written, fixed when it is opened.
#pragma once

#include <chrono>
#include <cstddef>

namespace mapout {

// How the bytes reach the file.
enum class strategy {
  // Per target, by measurement (docs/decisions.md, "automatic"): the buffer on ext4, tmpfs and
  // whatever cannot be mapped; elsewhere the mapping once the first buffer is full, or when small
  // records are stored at random offsets.
  automatic,
  // A MAP_SHARED mapping from the first byte; ENODEV where the target cannot be mapped.
  mapped,
  // A buffer of `buffer_size` bytes, handed to write(2) when it fills up.
  buffered,
};

// How the mapped strategy grows the file under the mapping (docs/faults.md).
enum class extension {
  // The call that finds the window used up extends the file ahead, blocks reserved (fallocate),
  // so a full disk is an error from that call. The cost: a forward seek past the end inside the
  // reservation keeps its blocks, so a sparse file takes up to its own size on the disk where
  // std::ofstream and the buffer leave holes (docs/decisions.md, "holes").
  ahead,
  // The window spans the mapping; mapout's SIGBUS handler extends the file when a store passes
  // its end, so the writer checks no limit. A thread that blocks SIGBUS cannot open it. Once the
  // writer finds another writer of the file (at its open, an extension or a publish), it works
  // as `ahead` without populating, so that the other's publishes can cut back to the bytes.
  on_fault,
  on_sigbus [[deprecated("use extension::on_fault")]] = on_fault,
};

// Options for mapout::output_file, mapout::streambuf and mapout::ostream.
//
//   mapout::options opts;
//   opts.mapping_size = 1 << 30;  // map 1 GiB of the file at a time
//   mapout::ostream out("big.bin", std::ios::binary, opts);
struct options {
  // Bytes of address space mapped at once; larger output moves the mapping along the file. A
  // seek back into bytes written maps all of them (docs/decisions.md, "random").
  std::size_t mapping_size = std::size_t{32} << 20;

  // Bytes buffered before each write(2): the buffered strategy, and automatic's first buffer.
  std::size_t buffer_size = std::size_t{64} << 10;

  mapout::strategy strategy = mapout::strategy::automatic;

  // How a mapped file grows; the buffered strategy ignores it.
  mapout::extension extension = mapout::extension::ahead;

  // A store into a page the file lacks (truncated by another process, a full copy-on-write disk)
  // becomes EIO or ENOSPC at the next call instead of a fatal SIGBUS (docs/faults.md).
  bool guard_faults = true;

  // For a log that another process follows (tail -F, docs/live-readers.md): every flush publishes,
  // as publish() does, so that a reader sees the bytes and the exact size, never a byte past
  // them. On a regular file opened by path the buffer writes it, whatever the strategy, unless
  // crash_safe finds no tail (below): then the mapping cuts and re-extends the file at each flush.
  // With other mapped writers of the file, the size after it is the end of what they wrote, or
  // of an extension one has not published.
  bool flush_publishes = false;

  // With flush_publishes: a flush publishes only once this long has passed since the last
  // publish, and the lines flushed in between wait in a tail file beside the output
  // (".NAME.mapout-tail"), mapped, so that a process that dies loses none of them: the next
  // open of the file, or mapout::recover(), writes them in. A line waits until the first flush
  // this long after the last publish, or publish() or close(). 0: every flush publishes. Where no
  // tail can be made, every flush publishes.
  std::chrono::milliseconds publish_every{0};

  // For logs (docs/logs.md): every byte a returned call stored is in the file the moment the call
  // returns, so a process that dies (SIGKILL, abort, a segfault) loses none of it, flushed or not.
  // The file is mapped from the open, in every mode, app included (as its one writer); a target
  // that cannot be mapped fails with ENODEV, and the buffered strategy with EINVAL. What the
  // mapping reserved past the bytes stays in the file until it is reopened or mapout::recover()
  // runs. With flush_publishes the stored bytes wait in the tail file instead, which the next
  // open or mapout::recover() writes in. Power loss and a kernel crash are what `durable` and
  // persist() are for.
  bool crash_safe = false;

  // For code generators and build tools (docs/generators.md); each needs a mode that truncates.

  // The bytes go to a temporary renamed over the target only by a close() that succeeds;
  // destruction without one discards them.
  bool atomic = false;

  // Bytes equal to the old file's at close() leave it exactly as it was; otherwise it is replaced
  // as with `atomic`, without its discard at destruction.
  bool write_if_changed = false;

  // close() returns after fdatasync(2) of the file, and fsync(2) of its directory after a rename.
  bool durable = false;
};

}  // namespace mapout
