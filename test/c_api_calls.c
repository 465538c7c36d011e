/* The same random calls on mapout.h and on stdio, compiled as C99 so the header is proved C. */
#define _POSIX_C_SOURCE 200809L

#include "c_api_calls.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

/* xorshift32: the same sequence on every libc, unlike rand(). */
static uint32_t next(uint32_t* state) {
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *state = x;
}

static uint32_t below(uint32_t* state, uint32_t bound) {
  return next(state) % bound;
}

/* Mostly tokens of 1 to 16 bytes, some lines, now and then a block larger than any window. */
static size_t random_length(uint32_t* state) {
  switch (below(state, 8)) {
    case 0:
      return below(state, 4);
    case 1:
      return 100 + below(state, 300);
    case 2:
      return below(state, 20) == 0 ? 70000 + below(state, 200000) : 1000 + below(state, 5000);
    default:
      return 1 + below(state, 16);
  }
}

static char buffer[300000];

static void fill(uint32_t* state, size_t length, int text) {
  size_t i;
  for (i = 0; i < length; ++i) {
    const char c = (char)next(state);
    buffer[i] = text ? (char)('a' + (unsigned char)c % 26) : c;
  }
  buffer[length] = '\0';
}

/* Both sides' result of one call: differing values or errno is a failure. */
static int alike(long long ours, long long theirs, int our_errno, int their_errno, const char* call,
                 int index, char* why, size_t why_size) {
  if (ours == theirs && (ours >= 0 || our_errno == their_errno)) return 0;
  snprintf(why, why_size, "call %d, %s: mapout %lld (errno %d), stdio %lld (errno %d)", index, call,
           ours, our_errno, theirs, their_errno);
  return -1;
}

int write_alike(const char* mapout_path, const char* stdio_path, const char* mode,
                const mapout_options* options, unsigned seed, int calls, char* why,
                size_t why_size) {
  uint32_t state = seed * 2654435761u + 1;
  const int appending = strchr(mode, 'a') != NULL;
  /* In "a+" mapout's tell counts as std::fstream's does, from 0 until the buffer is written;
   * glibc's counts from the end. msvcrt's counts from the descriptor's offset in "a" too, which
   * reaches the end only as each buffer is written: mapout's says where the bytes land. */
#ifdef _WIN32
  const int tells = !appending;
#else
  const int tells = !appending || strchr(mode, '+') == NULL;
#endif
  long long written = 0; /* an upper bound of the file's size, for seeks */
  int i;
  int failed = 0;
  mapout_file* ours = mapout_open(mapout_path, mode, options);
  FILE* theirs;
#ifdef _WIN32
  /* mapout writes the bytes as given, which Windows' stdio does only in binary mode. */
  char binary_mode[16];
  snprintf(binary_mode, sizeof binary_mode, "%sb", mode);
  theirs = fopen(stdio_path, binary_mode);
#else
  theirs = fopen(stdio_path, mode);
#endif
  if (ours == NULL || theirs == NULL) {
    snprintf(why, why_size, "open \"%s\": mapout %s, stdio %s", mode, ours ? "ok" : "failed",
             theirs ? "ok" : "failed");
    if (ours != NULL) mapout_close(ours);
    if (theirs != NULL) fclose(theirs);
    return -1;
  }
  for (i = 0; i < calls && !failed; ++i) {
    long long our_result;
    long long their_result;
    int our_errno;
    const char* call;
    const uint32_t choice = below(&state, 20);
    errno = 0;
    if (choice < 6) {
      const int c = (int)below(&state, 256);
      call = "putc";
      our_result = mapout_putc(c, ours);
      our_errno = errno;
      errno = 0;
      their_result = putc(c, theirs);
      written += 1;
    } else if (choice < 12) {
      const size_t length = random_length(&state);
      fill(&state, length, 0);
      call = "write";
      our_result = (long long)mapout_write(buffer, 1, length, ours);
      our_errno = errno;
      errno = 0;
      their_result = (long long)fwrite(buffer, 1, length, theirs);
      written += (long long)length;
    } else if (choice < 15) {
      const size_t length = random_length(&state);
      fill(&state, length, 1);
      call = "puts";
      /* fputs promises only a nonnegative number. */
      our_result = mapout_puts(buffer, ours) < 0 ? -1 : 0;
      our_errno = errno;
      errno = 0;
      their_result = fputs(buffer, theirs) < 0 ? -1 : 0;
      written += (long long)length;
    } else if (choice < 18 && !appending) {
      /* Anywhere up to past the end, now and then before the start (EINVAL). */
      static const int whences[] = {SEEK_SET, SEEK_CUR, SEEK_END};
      const int whence = whences[below(&state, 3)];
      const long long span = written + 2000;
      long long offset =
          (long long)below(&state, (uint32_t)span) - (whence == SEEK_SET ? 0 : span / 2);
      if (below(&state, 50) == 0) offset = -(span + 1);
      call = "seek";
      our_result = mapout_seek(ours, offset, whence);
      our_errno = errno;
      errno = 0;
      their_result = fseeko(theirs, (off_t)offset, whence);
    } else if (choice < 19 && tells) {
      call = "tell";
      our_result = mapout_tell(ours);
      our_errno = errno;
      errno = 0;
      their_result = (long long)ftello(theirs);
    } else if (below(&state, 2) == 0) {
      call = "flush";
      our_result = mapout_flush(ours);
      our_errno = errno;
      errno = 0;
      their_result = fflush(theirs);
    } else {
      call = "publish";
      our_result = mapout_publish(ours);
      our_errno = errno;
      errno = 0;
      their_result = fflush(theirs);
    }
    failed = alike(our_result, their_result, our_errno, errno, call, i, why, why_size);
  }
  errno = 0;
  {
    const int our_close = mapout_close(ours);
    const int our_errno = errno;
    const int their_close = fclose(theirs);
    if (!failed)
      failed = alike(our_close, their_close, our_errno, errno, "close", i, why, why_size);
  }
  return failed;
}
