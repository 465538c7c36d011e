// <sys/mman.h>, which mingw-w64 lacks: its names in posix_extras.h.
#pragma once

#include "../posix_extras.h"
