#!/usr/bin/env bash
# header_macros.sh CXX...: every public header, compiled alone, defines no macro beyond the ones
# that are mapout's API (below); a helper macro left defined would reach every user's code.
# Macros that the standard, Boost, fmt or spdlog headers define are not counted: those the headers
# include are compiled first, all together and each alone, and what they define is taken away (each
# alone too, since one may take back what another left: <atomic> undefines a helper macro that
# libstdc++'s <memory> leaves defined). A header whose library is not installed is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- "${CXX:-c++}"
public_macros='MAPOUT_API MAPOUT_MAPOUT_H MAPOUT_VERSION MAPOUT_VERSION_MAJOR MAPOUT_VERSION_MINOR
MAPOUT_VERSION_PATCH'
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
macros() { "$@" -std=c++17 -Iinclude -dM -E -x c++ - | awk '{ print $2 }' | sed 's/(.*//' | sort -u; }
compiles() { "$@" -std=c++17 -Iinclude -E -x c++ - >/dev/null 2>&1; }
grep -h '^#include <' include/mapout/*.h include/mapout/*.hpp include/mapout/detail/*.hpp |
  sort -u >"$work/all_includes"
while read -r include; do
  if compiles "$@" <<<"$include"; then echo "$include"; fi
done <"$work/all_includes" >"$work/includes"
{
  macros "$@" <"$work/includes"
  while read -r include; do macros "$@" <<<"$include"; done <"$work/includes"
} | sort -u >"$work/outside"
tr ' ' '\n' <<<"$public_macros" | grep . | sort -u >"$work/public"
status=0
for header in include/mapout/*.h include/mapout/*.hpp include/mapout/detail/*.hpp; do
  if ! compiles "$@" <<<"#include \"${header#include/}\""; then
    # Excused only where a library it includes is missing (Boost, fmt, spdlog).
    if cmp -s "$work/includes" "$work/all_includes"; then
      echo "$header does not compile alone" >&2
      status=1
    fi
    continue
  fi
  leaked=$(echo "#include \"${header#include/}\"" | macros "$@" |
    comm -23 - "$work/outside" | comm -23 - "$work/public")
  if [ -n "$leaked" ]; then
    echo "$header defines" $leaked >&2
    status=1
  fi
done
exit $status
