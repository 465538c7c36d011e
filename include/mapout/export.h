/* What mapout's shared library exports: only what is marked MAPOUT_API. On Windows the library
 * is static and MAPOUT_API is empty (a DLL build would define it itself), as it is for a compiler
 * without GNU attributes. */
#pragma once

#ifndef MAPOUT_API
#if defined(_WIN32) || !defined(__GNUC__)
#define MAPOUT_API
#else
#define MAPOUT_API __attribute__((visibility("default")))
#endif
#endif
