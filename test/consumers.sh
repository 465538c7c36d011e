#!/usr/bin/env bash
# Consumer tests: mapout installed into a temporary prefix, then built against as a new user
# would, once with the shared and once with the static library: a g++ line and a C99 line with
# pkg-config, a CMake project with find_package(mapout), a meson project with mapout as a
# subproject; and every installed header compiled alone with GCC and Clang. Then `meson setup` of
# mapout itself on a machine without GoogleTest.
# Prints one line per check and `consumers: N passed, N failed`; exits non-zero on a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
source_dir=$PWD
consumers=$source_dir/test/consumers

"$source_dir/build.sh" packages g++ gcc clang meson ninja-build pkg-config cmake binutils \
  util-linux

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
strict=(-Wall -Wextra -Wpedantic -Werror)
passed=0
failed=0

# check NAME COMMAND...: one line for the check; the command's output only when it fails.
check() {
  local name=$1
  shift
  if "$@" >"$work/log" 2>&1; then
    passed=$((passed + 1))
    echo "ok    $name"
  else
    failed=$((failed + 1))
    echo "FAIL  $name"
    sed 's/^/      /' "$work/log"
  fi
}

# install_mapout KIND: builds mapout alone (no tests, no examples) and installs it in $work/KIND.
install_mapout() {
  local kind=$1
  meson setup "$work/build-$kind" "$source_dir" --prefix "$work/$kind" \
    -Ddefault_library="$kind" -Dtests=disabled -Dexamples=disabled -Dwerror=true &&
    ninja -C "$work/build-$kind" -j2 &&
    meson install -C "$work/build-$kind" --quiet
}

# The shared library names its ABI and exports the API only: no mapout::detail.
exports_public_api_only() {
  local library
  library=$(pkg-config --variable=libdir mapout)/libmapout.so
  readelf -d "$library" | grep -E 'SONAME.*\[libmapout\.so\.[0-9]' &&
    nm -D --defined-only "$library" | grep -q ' T mapout_open$' &&
    ! nm -D --defined-only -C "$library" | grep 'mapout::detail'
}

# The lines README.md gives, with warnings as errors; each program checks the bytes it wrote.
gxx_with_pkg_config() {
  local dir=$work/gxx-$1
  mkdir -p "$dir"
  # shellcheck disable=SC2046
  g++ -std=c++17 "${strict[@]}" "$consumers/app.cpp" -o "$dir/app" \
    $(pkg-config --cflags --libs mapout) &&
    "$dir/app" "$dir/out.txt"
}

c99_with_pkg_config() {
  local dir=$work/c99-$1 static=()
  [ "$1" = static ] && static=(--static)
  mkdir -p "$dir"
  # shellcheck disable=SC2046
  gcc -std=c99 "${strict[@]}" "$consumers/app.c" -o "$dir/app_c" \
    $(pkg-config "${static[@]}" --cflags --libs mapout) &&
    "$dir/app_c" "$dir/out.txt"
}

# Each installed header on its own, as the first include of a file, under every standard the
# README names; mapout.h as C99 and C++ too.
headers_compile_alone() {
  local include=$work/$1/include header compiler std
  for header in "$include"/mapout/*; do
    for compiler in g++:c++17 g++:c++20 g++:c++23 clang++:c++17 clang++:c++20; do
      std=${compiler#*:}
      echo "#include <mapout/${header##*/}>" |
        "${compiler%:*}" -std="$std" "${strict[@]}" -I"$include" -x c++ -fsyntax-only - ||
        return 1
    done
  done
  for compiler in gcc clang; do
    for header in mapout.h export.h version.hpp; do
      # C forbids an empty translation unit, which a header of macros alone leaves.
      printf '#include <mapout/%s>\ntypedef int declared;\n' "$header" |
        "$compiler" -std=c99 "${strict[@]}" -I"$include" -x c -fsyntax-only - || return 1
    done
  done
}

# block LANGUAGE: the first fenced block of that language in README.md.
block() {
  awk -v fence="\`\`\`$1" '$0 == fence { inside = 1; next } inside && /^```/ { exit } inside' \
    "$source_dir/README.md"
}

# The README's first C++ snippet as written, and its C snippet inside a main().
readme_snippets() {
  local dir=$work/readme-$1
  mkdir -p "$dir/gen"
  block cpp >"$dir/snippet.cpp"
  { printf '#include <stdio.h>\n#include <mapout/mapout.h>\nint main(void) {\n'
    block c
    printf 'return 0;\n}\n'; } >"$dir/snippet.c"
  # shellcheck disable=SC2046
  g++ -std=c++17 "${strict[@]}" "$dir/snippet.cpp" -o "$dir/snippet" \
    $(pkg-config --cflags --libs mapout) &&
    gcc -std=c99 "${strict[@]}" "$dir/snippet.c" -o "$dir/snippet_c" \
      $(pkg-config --cflags --libs mapout) &&
    (cd "$dir" && ./snippet && ./snippet_c) &&
    grep -q 'const int n = 42;' "$dir/gen/tables.cpp" &&
    grep -q 'const int n = 42;' "$dir/gen/tables.c"
}

cmake_find_package() {
  local dir=$work/cmake-$1
  cmake -S "$consumers" -B "$dir" -DCMAKE_PREFIX_PATH="$work/$1" &&
    cmake --build "$dir" -j2 &&
    "$dir/app" "$dir/out.txt" && "$dir/app_c" "$dir/out_c.txt"
}

meson_subproject() {
  local dir=$work/meson-$1
  mkdir -p "$dir/subprojects"
  cp "$consumers"/{meson.build,app.cpp,app.c} "$dir/"
  ln -s "$source_dir" "$dir/subprojects/mapout"
  meson setup "$dir/build" "$dir" --wrap-mode=forcefallback -Ddefault_library="$1" &&
    ninja -C "$dir/build" -j2 &&
    "$dir/build/app" "$dir/out.txt" && "$dir/build/app_c" "$dir/out_c.txt"
}

# Plain `meson setup` of mapout where GoogleTest is missing: configured, built, tests skipped.
setup_without_gtest() {
  local dir=$work/no-gtest
  mkdir -p "$work/scratch"
  unshare -m "$consumers/without_gtest.sh" "$work/scratch" meson setup "$dir" "$source_dir" |
    tee "$dir.log" &&
    grep -q 'GoogleTest not found: the tests are skipped' "$dir.log" &&
    ninja -C "$dir" -j2 &&
    ! meson introspect --targets "$dir" | grep -q '"name": "mapout_tests"'
}

for kind in shared static; do
  check "$kind: meson install into a prefix" install_mapout "$kind"
  libdir=$(dirname "$(find "$work/$kind" -name mapout.pc)")
  export PKG_CONFIG_PATH=$libdir LD_LIBRARY_PATH=${libdir%/pkgconfig}
  if [ "$kind" = shared ]; then
    check "shared: versioned SONAME, no mapout::detail exported" exports_public_api_only
    check "every installed header alone: g++ C++17/20/23, clang++ C++17/20, C99" \
      headers_compile_alone "$kind"
    check "README's C++ and C snippets, as written" readme_snippets "$kind"
  fi
  check "$kind: g++ -std=c++17 with pkg-config" gxx_with_pkg_config "$kind"
  check "$kind: gcc -std=c99 with pkg-config and mapout.h" c99_with_pkg_config "$kind"
  check "$kind: CMake find_package(mapout), C++ and C" cmake_find_package "$kind"
  unset PKG_CONFIG_PATH LD_LIBRARY_PATH
  check "$kind: meson subproject, C++ and C" meson_subproject "$kind"
done
check "meson setup without GoogleTest: tests skipped" setup_without_gtest

echo "consumers: $passed passed, $failed failed"
[ "$failed" = 0 ]
