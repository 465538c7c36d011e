#!/usr/bin/env bash
# header_macros.sh CXX...: every public header, compiled alone, defines no macro beyond the ones
# that are mapout's API (below); a helper macro left defined would reach every user's code.
# Macros that the standard, Boost or fmt headers define are not counted: those the headers include
# are compiled alone first, and what they define is taken away.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- "${CXX:-c++}"
public_macros='MAPOUT_API MAPOUT_MAPOUT_H MAPOUT_VERSION MAPOUT_VERSION_MAJOR MAPOUT_VERSION_MINOR
MAPOUT_VERSION_PATCH'
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
macros() { "$@" -std=c++17 -Iinclude -dM -E -x c++ - | awk '{ print $2 }' | sed 's/(.*//' | sort -u; }
grep -h '^#include <' include/mapout/*.h include/mapout/*.hpp include/mapout/detail/*.hpp | sort -u | macros "$@" \
  >"$work/outside"
tr ' ' '\n' <<<"$public_macros" | grep . | sort -u >"$work/public"
status=0
for header in include/mapout/*.h include/mapout/*.hpp include/mapout/detail/*.hpp; do
  leaked=$(echo "#include \"${header#include/}\"" | macros "$@" |
    comm -23 - "$work/outside" | comm -23 - "$work/public")
  if [ -n "$leaked" ]; then
    echo "$header defines" $leaked >&2
    status=1
  fi
done
exit $status
