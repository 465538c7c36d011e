// mingw-w64's <unistd.h> with the POSIX names it lacks.
#pragma once
// Its #include_next is a GCC extension, which mingw-w64's compilers all have.
#pragma GCC system_header

#include_next <unistd.h>

#include "posix_extras.h"
