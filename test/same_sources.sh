#!/usr/bin/env bash
# The library's sources as meson.build's library() lists them and as CMakeLists.txt's
# MAPOUT_SOURCES does: the two builds must build the same library, so a file in one list and not
# the other fails, named. Also every lib/<folder>/*.cpp must be in them.
set -euo pipefail
cd "$(dirname "$0")/.."
# With each system's files of lib/platform/, every system's: meson's platform_sources, CMake's
# MAPOUT_PLATFORM_SOURCES.
meson_list=$( (awk '/^mapout_sources = \[$/ { inside = 1; next }
  inside && /^  \047lib\/.*\.cpp\047,$/ { gsub(/[\047,[:space:]]/, ""); print; next }
  inside && /^  #/ { next }
  inside { exit }' meson.build
  sed -n "s/^    '\(lib\/platform\/[^']*\.cpp\)',$/\1/p" meson.build) | sort)
cmake_list=$( (awk '/^set\(MAPOUT_SOURCES$/ { inside = 1; next } inside && /^\)/ { exit }
  inside && !/\$\{/ && !/^ *#/ { gsub(/[[:space:]]/, ""); print }' CMakeLists.txt
  sed -n 's/^    \(lib\/platform\/[^ ]*\.cpp\)$/\1/p' CMakeLists.txt) | sort)
on_disk=$(ls lib/*/*.cpp | sort)
status=0
report() {
  local only
  only=$(comm -23 <(echo "$2") <(echo "$4"))
  if [ -n "$only" ]; then
    echo "in $1 and not in $3:" $only >&2
    status=1
  fi
}
report meson.build "$meson_list" CMakeLists.txt "$cmake_list"
report CMakeLists.txt "$cmake_list" meson.build "$meson_list"
report lib/ "$on_disk" meson.build "$meson_list"
[ -n "$meson_list" ] || { echo "no sources found in meson.build's mapout_sources" >&2; status=1; }
exit $status
