// mapout's version, as meson.build's project() gives it (the build checks that they agree).
#pragma once

#define MAPOUT_VERSION_MAJOR 0
#define MAPOUT_VERSION_MINOR 3
#define MAPOUT_VERSION_PATCH 0
// MAJOR * 10000 + MINOR * 100 + PATCH, for #if.
#define MAPOUT_VERSION 300
