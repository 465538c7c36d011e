// mingw-w64's <fcntl.h> with the POSIX names it lacks.
#pragma once
// Its #include_next is a GCC extension, which mingw-w64's compilers all have.
#pragma GCC system_header

#include_next <fcntl.h>

#include "posix_extras.h"
