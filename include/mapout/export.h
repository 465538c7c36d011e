/* What mapout's shared library exports: only what is marked MAPOUT_API. On Windows the library
 * is static, and MAPOUT_API is empty; a DLL build would define MAPOUT_API itself. */
#pragma once

#ifndef MAPOUT_API
#if defined(_WIN32)
#define MAPOUT_API
#else
#define MAPOUT_API __attribute__((visibility("default")))
#endif
#endif
