/* Where mapout builds, and what its shared library exports: only what is marked MAPOUT_API. */
#pragma once

#ifndef __linux__
#error "mapout runs on Linux only: it maps files with MAP_SHARED, fallocate and madvise"
#endif

#define MAPOUT_API __attribute__((visibility("default")))
