// The tail of a log between its publishes (options.publish_every): a small file beside the output,
// ".NAME.mapout-tail", whose mapping is the buffer, so that a process that dies loses none of the
// bytes it flushed and did not publish. Its first page is the header, which the writer keeps up
// to date with plain stores; the buffer follows. The writer holds a lock on it for its life, so
// that a recovery (crash_recovery.hpp) tells a live writer from a dead one. A child forked while
// it is open has a private copy of the buffer, as of any buffer: the two writers' stores never
// meet in one.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "platform/platform.hpp"
#include "platform/sys.hpp"

namespace mapout::detail {

// The first page of a tail file. The magic is stored last when the tail is made: a tail without
// it holds no bytes yet.
struct tail_header {
  static constexpr std::uint64_t magic_value = 0x6c6961742d74756fu;  // "out-tail"
  static constexpr std::uint32_t current_version = 1;
  // Flags.
  static constexpr std::uint32_t appends = 1;       // the bytes go to the output's end
  static constexpr std::uint32_t whole_buffer = 2;  // crash_safe: every non-zero byte is output

  std::uint64_t magic;
  std::uint32_t version;
  std::uint32_t flags;
  // The output's identity.
  std::uint64_t device;
  std::uint64_t inode;
  // The buffer: where it starts in the tail file, and its bytes.
  std::uint64_t buffer_at;
  std::uint64_t capacity;
  // Where the buffer's first byte goes in the output: at its end once the output is `size` bytes
  // long, where the writer appends.
  std::uint64_t offset;
  // The output's size as the writer left it at its last write.
  std::uint64_t size;
  // The bytes of the buffer flushed: output, whatever else the buffer holds.
  std::uint64_t committed;
  // Nonzero while the committed bytes go out: the output may hold them, or a part of them.
  std::uint64_t writing;
};

// The live writer's lock, for its life, and a recovery's, while it works: recoveries wait for
// each other, and never for a writer.
constexpr platform::locked_range writer_alive = {0, 1};
constexpr platform::locked_range recovering = {1, 1};

// The directory and name of the tail of the output `path`: false where the name would be too
// long. Throws std::bad_alloc.
bool tail_location(const char* path, std::string& directory, std::string& name);

class tail_file {
 public:
  // Makes the tail of the output `path`, open as `output`, for a buffer of `capacity` bytes with
  // tail_header's `flags`, whose first byte goes to `offset` of an output of `size` bytes (or to
  // its end, where it appends): created beside `path`, never through a link, mode 0600, locked,
  // its blocks reserved, mapped and populated. Null where it cannot be made (the name is taken,
  // the directory refuses, the system has no locks or the file system no mapping): the writer
  // then publishes at every flush.
  static std::unique_ptr<tail_file> create(const char* path, int output, std::size_t capacity,
                                           std::uint32_t flags, std::uint64_t offset,
                                           std::uint64_t size) noexcept;
  tail_file(const tail_file&) = delete;
  tail_file& operator=(const tail_file&) = delete;
  // Unmaps and closes: the lock goes, the name stays for a recovery.
  ~tail_file();

  char* buffer() const noexcept { return buffer_; }
  // A flush: the buffer's first `bytes` are output. A store, no call.
  void commit(std::size_t bytes) noexcept { header_->committed = bytes; }
  // Before the buffer's first `bytes` go out.
  void writing_out(std::size_t bytes) noexcept {
    header_->committed = bytes;
    header_->writing = 1;
  }
  // The buffer starts over, empty, its first byte going to `offset` of an output of `size` bytes.
  // With whole_buffer its first `used` bytes are zeroed: the output has them.
  void start_over(std::uint64_t offset, std::uint64_t size, std::size_t used) noexcept;
  // At close, the bytes written out or their loss reported: the name goes, then the lock with the
  // file.
  void remove() noexcept;

 private:
  tail_file(descriptor directory, std::string name, descriptor fd) noexcept;
  // Whether the tail's name still names this file.
  bool named() const noexcept;
  // Removes the name where it still names this file, and where this process made it.
  void unlink_name() noexcept;
  void unmap() noexcept;
  // The tails mapped in this process, for fork: false where the handlers cannot be installed.
  bool enlist() noexcept;
  void delist() noexcept;
  // Run in a forked child: each mapping becomes memory of the child's own, with the same bytes.
  static void make_copies_private() noexcept;

  descriptor directory_;
  std::string name_;
  descriptor fd_;
  pid_t creator_;  // a forked copy removes nothing: the tail is the parent's
  char* map_ = nullptr;
  std::size_t map_length_ = 0;
  tail_header* header_ = nullptr;
  char* buffer_ = nullptr;
  tail_file* previous_ = nullptr;  // the list of tails mapped in this process
  tail_file* next_ = nullptr;
};

}  // namespace mapout::detail
