// mingw-w64's <sys/stat.h> with the POSIX names it lacks.
#pragma once
// Its #include_next is a GCC extension, which mingw-w64's compilers all have.
#pragma GCC system_header

#include_next <sys/stat.h>

#include "../posix_extras.h"
