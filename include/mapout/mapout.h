/* mapout's C API: stdio's shape over mapout::output_file, for C99 and C++.
 *
 *   mapout_file* out = mapout_open("gen/tables.c", "w", NULL);
 *   if (out == NULL) {
 *     perror("gen/tables.c");
 *     return 1;
 *   }
 *   mapout_puts("const int n = 42;", out);
 *   mapout_printf(out, "const double ratio = %.3f;\n", 1.5);
 *   if (mapout_close(out) != 0) perror("gen/tables.c");
 *
 *   mapout_file* stdout_file = mapout_fdopen(1, "w", NULL);  // a file, a pipe or a terminal
 *
 * Every call that fails returns stdio's failure value with errno set, and mapout_error() gives the
 * first failure's message; nothing aborts or prints. A failed write, like any failure that loses
 * bytes, is sticky: later writes fail too, and mapout_close() reports it. A file is not locked:
 * the calls are putc_unlocked's kind, for one thread at a time. The inline functions take the
 * file as putc_unlocked does; the others refuse a NULL file with EINVAL (mapout_flush(NULL)
 * flushes every file). A file closed or discarded is gone, as a FILE after fclose. */
#ifndef MAPOUT_MAPOUT_H
#define MAPOUT_MAPOUT_H

#if !defined(__cplusplus) && (!defined(__STDC_VERSION__) || __STDC_VERSION__ < 199901L)
#error "mapout.h needs C99 (-std=c99 or later): its fast paths are inline functions"
#endif

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mapout/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* mapout::strategy and mapout::extension, with the same meaning (include/mapout/options.hpp). */
enum mapout_strategy { MAPOUT_AUTOMATIC = 0, MAPOUT_MAPPED = 1, MAPOUT_BUFFERED = 2 };
enum mapout_extension { MAPOUT_EXTEND_AHEAD = 0, MAPOUT_EXTEND_ON_SIGBUS = 1 };

/* mapout::options; mapout_options_init() fills in the defaults (and does nothing with NULL). */
typedef struct mapout_options {
  size_t mapping_size; /* bytes of address space mapped over the file at once */
  size_t buffer_size;  /* bytes buffered before each write(2) on the buffered strategy */
  int strategy;        /* an enum mapout_strategy */
  int extension;       /* an enum mapout_extension */
  /* nonzero: mapout::options' guard_faults; a store into a page the file lacks (truncated by
   * another process, a full copy-on-write disk) is EIO or ENOSPC at the next call, not SIGBUS */
  int guard_truncation;
  /* nonzero: mapout::options' atomic, write_if_changed and durable; they need mode "w" or "w+" */
  int atomic;
  int write_if_changed;
  int durable;
  /* nonzero: mapout::options' flush_publishes: mapout_flush() shows the bytes and the size to
   * other readers, as fflush does (a log under tail -f) */
  int flush_publishes;
  /* nonzero: mapout::options' crash_safe: every byte a returned call stored is in the file, so a
   * process that dies loses none of it (docs/logs.md) */
  int crash_safe;
  /* mapout::options' publish_every, in milliseconds: with flush_publishes, mapout_flush() publishes
   * only once this long has passed since the last publish, the lines flushed in between kept in a
   * tail file beside the output that a death does not lose (docs/live-readers.md); 0: every flush
   * publishes. Negative: EINVAL. */
  long publish_every_ms;
} mapout_options;

/* An open file, made by mapout_open() or mapout_fdopen(). `put` is the cursor and `end` the end of
 * the window the inline functions below store into; the rest of the object is the library's. */
typedef struct mapout_file {
  char* put;
  char* end;
} mapout_file;

MAPOUT_API void mapout_options_init(mapout_options* options);

/* Opens like the platform's fopen (on Windows msvcrt's: docs/c-api.md) and, below, glibc's:
 * "w", "a", "r+", "w+", "a+", then letters as glibc reads them: "x"
 * after "w" or "a" (fail with EEXIST when the file exists), "b", "m", "c", "e" and others ignored.
 * EINVAL for "r" and what glibc reads as "r" ("rw"): mapout only writes; and for ",ccs=" with a
 * character set other than UTF-8: mapout writes bytes and converts to no other set (glibc fails
 * with EINVAL for an empty or unknown set after creating the file, and opens a wide stream for a
 * set it knows). ",ccs=UTF-8" writes what fputws of the same text would.
 * `options` may be NULL for the defaults. NULL with errno set on failure, and no file left that the
 * open created; errno untouched on success. */
MAPOUT_API mapout_file* mapout_open(const char* path, const char* mode,
                                    const mapout_options* options);
/* Takes over `fd` like the platform's fdopen (msvcrt's on Windows: it checks no access and "a"
 * changes nothing) and, below, glibc's: "w", "a", "r+", "w+", "a+" (other letters ignored), EINVAL
 * for "r", for a read-only descriptor, and for "+" on one not open for reading; EBADF for one not
 * open. Nothing is truncated: writing starts at the descriptor's offset; "a" sets O_APPEND and,
 * without "+", moves to the end, and with O_APPEND every write goes to the end. mapout_close()
 * closes fd, as fclose does; after a failure fd is still the caller's. A pipe, a terminal, a
 * socket, an O_WRONLY or O_APPEND descriptor takes the buffer, written out by mapout_flush() (a
 * terminal is not line-buffered); an O_RDWR regular file may be mapped, as by mapout_open. The
 * atomic and write_if_changed options need a path: EINVAL. Messages name the file "/dev/fd/N". */
MAPOUT_API mapout_file* mapout_fdopen(int fd, const char* mode, const mapout_options* options);

/* The library side of the inline functions, for when the window is used up. */
MAPOUT_API int mapout_putc_slow(int c, mapout_file* file);
MAPOUT_API size_t mapout_write_slow(const void* data, size_t size, size_t count, mapout_file* file);

/* fputc: c as an unsigned char, or -1 (EOF). */
static inline int mapout_putc(int c, mapout_file* file) {
  if (file->put != file->end) {
    *file->put++ = (char)c;
    return (unsigned char)c;
  }
  return mapout_putc_slow(c, file);
}

/* fwrite: `count`, or 0 when size or count is 0 or the write failed (then some of the bytes may
 * be in the file). */
static inline size_t mapout_write(const void* data, size_t size, size_t count, mapout_file* file) {
  size_t bytes;
#if defined(__GNUC__) || defined(__clang__)
  const int overflows = __builtin_mul_overflow(size, count, &bytes);
#else
  const int overflows = count != 0 && size > (size_t)-1 / count;
  bytes = size * count;
#endif
  /* Strictly less: an empty window never reaches memcpy. */
  if (!overflows && bytes != 0 && bytes < (size_t)(file->end - file->put)) {
    memcpy(file->put, data, bytes);
    file->put += bytes;
    return count;
  }
  return mapout_write_slow(data, size, count, file);
}

/* fputs: 0, or -1 (EOF). */
static inline int mapout_puts(const char* text, mapout_file* file) {
  const size_t length = strlen(text);
  return length == 0 || mapout_write(text, length, 1, file) == 1 ? 0 : -1;
}

/* vfprintf: C99's conversions with glibc's extensions, the same bytes as the platform's vfprintf
 * (glibc's; mingw-w64's on Windows, which C++ calls) in the thread's locale, and its return value:
 * the bytes written, or a negative value with errno set (EOVERFLOW past INT_MAX, EINVAL for a
 * format that ends inside a specification, after the bytes before it, EILSEQ for a wide character
 * with no multibyte form, or the write's errno). %n stores the count, as glibc does without
 * _FORTIFY_SOURCE: the format must be the program's own text. Numbered arguments and conversions
 * mapout does not know (glibc's %b, those of register_printf_specifier) go with the rest of the
 * format to the platform's vsnprintf; a %n after one counts from it. */
MAPOUT_API int mapout_vprintf(mapout_file* file, const char* format, va_list args)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 0)))
#endif
    ;
/* fprintf, as mapout_vprintf. */
MAPOUT_API int mapout_printf(mapout_file* file, const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* fseeko with SEEK_SET, SEEK_CUR or SEEK_END: 0, or -1. Past the end and writing leaves zeros
 * between. A failed seek is not sticky. */
MAPOUT_API int mapout_seek(mapout_file* file, int64_t offset, int whence);
/* ftello: the cursor's offset, or -1 (ESPIPE where the target cannot seek). In "a+" it counts as
 * std::fstream's tellp does, from where the file was opened until the bytes are written; ftello
 * counts from the end. */
MAPOUT_API int64_t mapout_tell(mapout_file* file);
/* fflush: 0, or -1. Free on a regular file mapout_open() opened unless the flush_publishes option
 * asks for mapout_publish(); on a pipe, a terminal, an appended file or a descriptor on the buffer
 * that mapout_fdopen() took over it writes. NULL flushes every open file, as fflush(NULL) does:
 * -1 with the first failure's errno if one failed; no file may be in use by another thread
 * meanwhile. */
MAPOUT_API int mapout_flush(mapout_file* file);
/* The file's size and bytes as close would leave them, for a reader in another process: 0 or -1. */
MAPOUT_API int mapout_publish(mapout_file* file);
/* mapout_publish(), then fsync: the bytes are on the disk. 0, or -1. */
MAPOUT_API int mapout_persist(mapout_file* file);
/* fclose: cuts the file to the largest offset written, closes and frees, even on failure. 0, or -1
 * with errno set by the first failure of the file's life. */
MAPOUT_API int mapout_close(mapout_file* file);

/* With the atomic or write_if_changed option: throws the bytes away, leaves the file as it was,
 * and frees; otherwise mapout_close(). 0, or -1 with errno set. */
MAPOUT_API int mapout_discard(mapout_file* file);
/* mapout::recover(): cuts the zeros a mapped writer that died left past its bytes, and writes in
 * the lines a writer with publish_every_ms left in its tail file (docs/logs.md). 0, or -1 with
 * errno set. */
MAPOUT_API int mapout_recover(const char* path);
/* "mapout: <operation> '<path>': <reason>" for the first failure, or "" when there is none. Valid
 * until mapout_close(). */
MAPOUT_API const char* mapout_error(mapout_file* file);
/* fileno: the descriptor, borrowed (mapout closes it); for fstat, fchmod, flock, fdatasync. */
MAPOUT_API int mapout_fileno(mapout_file* file);

#ifdef __cplusplus
}
#endif

#endif
