#!/usr/bin/env bash
# Every public header compiles alone with clang, warnings as errors: as C++17 and C++20, mapout.h
# also as C11 and C99 (C89 gets its one refusal), and for mingw-w64 where export.h takes it.
# Then what a compiler without GNU extensions (MSVC) would read of mapout's own lines: with
# __GNUC__ and __clang__ undefined, no __attribute__, builtin, [[gnu::...]] or GNU keyword.
set -euo pipefail
cd "$(dirname "$0")/.."
warnings=(-Wall -Wextra -Wpedantic -Werror)
status=0
# compile WHAT COMMAND...: reports the first lines of a failure under WHAT.
compile() {
  local what=$1 log
  shift
  if ! log=$("$@" 2>&1); then
    echo "header_compilers: $what" >&2
    head -n 20 <<<"$log" >&2
    status=1
  fi
}

headers=(include/mapout/*.h include/mapout/*.hpp include/mapout/detail/*.hpp)
cxx_flags=(-fsyntax-only -Iinclude "$(pkg-config --cflags-only-I fmt 2>/dev/null || true)")
mingw=(clang++ --target=x86_64-w64-mingw32)
mingw_target=yes
if ! echo '#include <cstddef>' | "${mingw[@]}" -fsyntax-only -x c++ - 2>/dev/null; then
  # Debian's clang targets mingw-w64 without its C++ library; ./build.sh windows builds with g++.
  mingw_target="no: clang finds no C++ library for mingw-w64 here"
elif ! echo '#include "mapout/export.h"' | "${mingw[@]}" -fsyntax-only -Iinclude -x c++ - 2>/dev/null
then
  mingw_target="no: export.h refuses it"
fi
for header in "${headers[@]}"; do
  name=${header#include/}
  # boost.hpp needs Boost.Iostreams, format.hpp fmt, spdlog.hpp spdlog: each only where installed.
  case $name in
    mapout/boost.hpp) [ -d /usr/include/boost/iostreams ] || continue ;;
    mapout/format.hpp | mapout/detail/format_pieces.hpp | mapout/detail/print_paths.hpp)
      pkg-config --exists fmt || continue ;;
    mapout/spdlog.hpp) pkg-config --exists spdlog || continue ;;
  esac
  for standard in c++17 c++20; do
    compile "$name as $standard" clang++ -std=$standard "${warnings[@]}" "${cxx_flags[@]}" \
      -x c++ - <<<"#include \"$name\""
  done
  case $name in
    mapout/boost.hpp | mapout/format.hpp | mapout/spdlog.hpp | mapout/detail/*) continue ;;
  esac
  if [ "$mingw_target" = yes ]; then
    compile "$name for mingw-w64" "${mingw[@]}" -std=c++17 "${warnings[@]}" "${cxx_flags[@]}" \
      -x c++ - <<<"#include \"$name\""
  fi
done
compile "mapout.h as C11" clang -std=c11 "${warnings[@]}" -fsyntax-only -Iinclude -x c - \
  <<<'#include "mapout/mapout.h"'
compile "mapout.h as C99" clang -std=c99 "${warnings[@]}" -fsyntax-only -Iinclude -x c - \
  <<<'#include "mapout/mapout.h"'
# C89 has no inline functions: mapout.h refuses it with its one message.
refusal=$(clang -std=c89 -fsyntax-only -Iinclude -x c - <<<'#include "mapout/mapout.h"' 2>&1 || true)
if ! grep -q 'mapout.h needs C99' <<<"$refusal"; then
  echo "header_compilers: mapout.h as C89 does not say that it needs C99" >&2
  status=1
fi

# The lines of include/mapout/ that a compiler defining neither __GNUC__ nor __clang__ keeps.
gnu_spellings='__attribute__|__builtin_|\[\[gnu::|__PRETTY_FUNCTION__|__extension__|__typeof__|__restrict__|__asm__|__int128'
for header in "${headers[@]}"; do
  kept=$(clang++ -std=c++17 -E -Iinclude -U__GNUC__ -U__GNUC_MINOR__ -U__GNUC_PATCHLEVEL__ \
    -U__GNUG__ -U__clang__ -U__clang_major__ -x c++ - <<<"#include \"${header#include/}\"" 2>/dev/null |
    awk '/^# [0-9]+ "/ { mine = index($3, "include/mapout/") > 0; next } mine' || true)
  if found=$(grep -E "$gnu_spellings" <<<"$kept"); then
    echo "header_compilers: $header keeps GNU extensions without __GNUC__:" >&2
    head -n 5 <<<"$found" >&2
    status=1
  fi
done
[ "$status" = 0 ] && echo "header_compilers: ${#headers[@]} headers alone, C++17 and C++20," \
  "mapout.h as C11 and C99, mingw-w64: $mingw_target; nothing GNU without __GNUC__"
exit $status
