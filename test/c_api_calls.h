/* The C half of the C API's tests: the same randomized calls on mapout.h and on stdio, in C99. */
#pragma once

#include "mapout/mapout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opens `mapout_path` with mapout_open and `stdio_path` with fopen, both in `mode`, and makes the
 * same `calls` random calls (putc, write, puts, seek, tell, flush, publish) on both from `seed`.
 * Returns 0 when every call returned alike, with errno alike on failure; otherwise -1 with the
 * first difference described in `why`. Appending modes make no seeks, and "a+" no tells (on
 * Windows, no appending mode). */
int write_alike(const char* mapout_path, const char* stdio_path, const char* mode,
                const mapout_options* options, unsigned seed, int calls, char* why,
                size_t why_size);

#ifdef __cplusplus
}
#endif
