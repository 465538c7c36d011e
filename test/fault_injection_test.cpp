// Every error path of the core, made to run by system calls that fail on purpose through the seam
// in lib/sys.hpp.
#include <gtest/gtest.h>
