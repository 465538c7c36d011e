// What lib/ asks of the operating system beyond the plain calls of the table (sys.hpp): each
// question named for what it does, answered by one file per system. posix.cpp answers what
// POSIX.1-2008 defines, posix_faults.cpp its signals for faults in mappings; the system's own
// files (linux.cpp, linux_rules.cpp) answer the rest, and a feature the system lacks is refused
// there, with ENOTSUP, or falls back there.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "platform/sys.hpp"

namespace mapout::detail::platform {

// ---- the table ----

// The portable entries of the real table (posix.cpp).
void add_posix_calls(system_calls& calls) noexcept;
// The system's own entries, and any portable one it spells otherwise (the system's file).
void add_system_calls(system_calls& calls) noexcept;

// ---- files ----

// `path` as the table's calls take it: its own bytes on POSIX, UTF-8 with '/' between names on
// Windows.
std::string path_text(const std::filesystem::path& path);
// `path` as messages show it: as the caller spelled it, in UTF-8 on Windows.
std::string path_shown(const std::filesystem::path& path);

// Grows the file to at least `offset + length` with the blocks of [offset, offset + length)
// reserved, so that a full disk fails here and not at a store into a hole. ENOTSUP where the file
// cannot reserve: a plain resize is the best there is then. Safe in the SIGBUS handler, errno
// changed.
error_cause reserve(int fd, std::uint64_t offset, std::uint64_t length) noexcept;

// A new temporary without a name in `directory`, open for reading and writing, with `mode` less
// the umask. ENOTSUP where the file system or the system makes none: a named one is needed.
error_cause create_unnamed_temporary(int directory, mode_t mode, descriptor& temporary) noexcept;

// Gives the unnamed temporary `temporary` the name `name` in `directory`; false with errno set
// (EEXIST when the name is taken).
bool link_unnamed(int temporary, int directory, const char* name) noexcept;

// Opens `name` in `directory`, not following a final link, to hold its inode: neither for
// reading nor for writing where the system can (a file open for writing cannot be executed).
descriptor hold(int directory, const char* name) noexcept;

// Whether `now` is the file `then` described, with the same size and the same modification and
// change times.
bool same_version(const struct stat& now, const struct stat& then) noexcept;

// A path that opens the file `fd` is open on again, in `path` of `size` bytes; false when the
// system has none.
bool name_of_open_file(int fd, char* path, std::size_t size) noexcept;

// A second descriptor for writing the file `fd` is open on, closed at exec, for a writer that
// takes it over: the file opened again by its name (name_of_open_file), on an open file
// description of its own; where the system names no open file (the portable build), a duplicate
// of fd, which shares fd's description, its offset among it. Invalid, with errno set, where
// neither can be had.
descriptor open_again(int fd) noexcept;

// ---- the C library, whose stdio and std::filebuf mapout answers as ----

// Where "a" (app) starts: at the file's end, where glibc's fopen seeks, or where the open leaves
// the offset (msvcrt's), which tellp reports until the first write.
bool append_starts_at_end() noexcept;

// Whether fdopen fits the descriptor to the mode, as glibc's does ("+" needs one open for reading
// too, "a" sets O_APPEND and moves to the end); msvcrt's takes the descriptor as it is.
bool fdopen_fits_descriptor() noexcept;

// What an fopen or fdopen mode string asks, as the C library reads it.
struct open_mode_letters {
  char access = '\0';      // 'r', 'w' or 'a'
  bool update = false;     // '+': reading and writing
  bool exclusive = false;  // 'x': the file must not exist
  bool bytes = true;       // no ",ccs=", or one naming UTF-8, whose text is the bytes as written
};
// Reads `mode` as the C library's fopen, or with `descriptor` its fdopen, reads it: false where
// that fails with EINVAL.
bool read_open_mode(const char* mode, bool descriptor, open_mode_letters& letters) noexcept;

// How the C library's printf writes what mapout_printf writes itself, where not as glibc's does.
struct printf_dialect {
  bool space_before_unsigned = false;       // "% u" puts a space where a sign would go
  bool empty_alternate_octal_zero = false;  // "%#.0o" of 0 writes nothing, not "0"
  // q, Z, L before an integer conversion and the I flag mean what they mean to glibc; where not,
  // a specification with one goes to the library with the rest of the format.
  bool glibc_lengths = true;
};
printf_dialect c_printf_dialect() noexcept;

// ---- file systems ----

// What the strategy needs to know of the file system a file is on.
enum class file_system_kind {
  unknown,    // it could not be asked
  remote,     // its pages live on another machine or in another process
  in_memory,  // tmpfs and its kind
  ext4,       // also ext2 and ext3
  local,      // any other, not measured
  unnamed,    // the system names no kind: taken as local, and as none measured
};
file_system_kind file_system_of(int fd) noexcept;

// ---- memory ----

// The calls under growing memory (growing_memory.hpp), which decides when to make each.
// The most address space a growing memory first asks for: less under a limit.
std::size_t largest_memory_reservation() noexcept;
// Reserves `size` bytes of private address space, none usable yet: its base, or null with errno
// set (ENOMEM where the system gives less).
char* reserve_address_space(std::size_t size) noexcept;
// Makes [begin, begin + length) of a reservation take stores, zero-filled; false with errno set.
bool make_usable(char* begin, std::size_t length) noexcept;
// Whether a reservation, all of it usable, can grow without its bytes being copied (mremap).
bool address_space_moves() noexcept;
// Grows such a reservation of `size` bytes to `grown`, where it may move: the new base, or null
// with errno set.
char* move_address_space(char* base, std::size_t size, std::size_t grown) noexcept;
// Gives a reservation of `size` bytes back; false with errno set.
bool release_address_space(char* base, std::size_t size) noexcept;

// Faults in [begin, begin + length) of a shared writable mapping, zero-filled or read, as stores
// would; false with errno set where the pages cannot be had or the system populates nothing
// ahead (the stores then fault them in one at a time).
bool populate_for_writing(void* begin, std::size_t length) noexcept;

// Whether a file can be cut while a view of it is mapped; where not (Windows), the writer unmaps
// its view before a cut and maps again after.
bool cuts_under_mapped_views() noexcept;

// How many more bytes the process may map, as far as the system tells; the largest value when
// it tells nothing.
std::uint64_t free_address_space() noexcept;

// ---- processes ----

// Has `prepare` run before each fork(2), then `parent` and `child` after it, each in its process,
// as pthread_atfork(3) does; nothing where the system has no fork. False where it is refused.
bool at_fork(void (*prepare)(), void (*parent)(), void (*child)()) noexcept;

// ---- time ----

// A monotonic clock in nanoseconds, the cheapest the system has: its ticks may be milliseconds
// apart (CLOCK_MONOTONIC_COARSE on Linux), enough to space a log's publishes.
std::int64_t coarse_nanoseconds() noexcept;

// ---- faults on mapped files ----

// Serves a fault at `address` in a mapping of a file (a page past the file's end, or one that
// could not be read), in the faulting thread: true when the page is good now and the access may
// be made again, false to let the fault go where it went before mapout. Atomics and the table's
// calls only: it may interrupt anything.
using fault_server = bool (*)(std::uintptr_t address) noexcept;
// Sends those faults to `serve` from now on, in the whole process; the first call decides.
error_cause catch_mapping_faults(fault_server serve) noexcept;
// Whether the system reports such a fault with this code (a signal's si_code), rather than some
// other fault or a signal sent by a process.
bool is_mapping_fault(int code) noexcept;
// Whether the calling thread blocks those faults: the system then kills the process at one
// instead of serving it.
bool mapping_faults_blocked() noexcept;
// Maps zeroed private memory over the pages [begin, begin + length) of a mapping: stores and
// reads there fault no more, and reach no file.
bool map_scratch(std::uintptr_t begin, std::size_t length) noexcept;

// ---- locks between writers ----

// A lock held on a range of offsets, by an open file description, not by the process: two
// descriptions opened by one process conflict, and closing another descriptor releases nothing.
enum class lock_kind { shared, exclusive, unlocked };
struct locked_range {
  off_t start = 0;
  off_t length = 0;  // 0: to the end of all offsets
};

// Takes (or, with lock_kind::unlocked, drops) `kind` over `range` on fd's description; with
// `wait`, waits for a conflicting lock to go. 0, or -1 with errno set (ENOTSUP where the system
// has no such locks).
int lock_range(int fd, lock_kind kind, locked_range range, bool wait) noexcept;

// The first lock another description holds that conflicts with `kind` over `range`, in `found`;
// false when there is none or the system cannot tell.
bool find_conflicting_lock(int fd, lock_kind kind, locked_range range,
                           locked_range& found) noexcept;

// ---- small attributes of a file, which every process that opens it sees ----

// The attribute `name` (mapout's own, without a system's namespace prefix) of fd's file, in
// `value` of `size` bytes: its length, or -1 with errno set (ENODATA where it has none, ENOTSUP
// where the file system keeps none).
ssize_t get_attribute(int fd, const char* name, char* value, std::size_t size) noexcept;
// Sets it to the `size` bytes at `value`: 0, or -1 with errno set.
int set_attribute(int fd, const char* name, const char* value, std::size_t size) noexcept;
// Removes it: 0, or -1 with errno set.
int remove_attribute(int fd, const char* name) noexcept;

// ---- the rules a system applies to paths, which mapout applies itself where an open cannot ----

// Whether this process may follow the symbolic link `link` (its lstat), which is in `directory`.
bool may_follow(const struct stat& link, const struct stat& directory) noexcept;

// Whether this process may replace (rename over) `file` in `directory`.
bool may_replace(const struct stat& file, const struct stat& directory) noexcept;

// The bits a new file opened with 0666 gets, without changing the umask for other threads.
mode_t new_file_mode() noexcept;

// Whether `file` is this process's user's own (its effective user's), whose contents it may trust.
bool owned_by_this_user(const struct stat& file) noexcept;

}  // namespace mapout::detail::platform
