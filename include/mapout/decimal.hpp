// Forwards to mapout/detail/decimal.hpp, where this detail of the inline path lives now: the old
// path keeps compiling until mapout 1.0.
#pragma once

#include "mapout/detail/decimal.hpp"
