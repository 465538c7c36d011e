// Forwards to mapout/detail/copy_short.hpp, where this detail of the inline path lives now: the old
// path keeps compiling until mapout 1.0.
#pragma once

#include "mapout/detail/copy_short.hpp"
