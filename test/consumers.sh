#!/usr/bin/env bash
# Consumer tests: mapout installed into a temporary prefix, then built against as a new user
# would, once with the shared and once with the static library: a g++ line and a C99 line with
# pkg-config, the optional parts (format.hpp with fmt, boost.hpp with Boost.Iostreams, spdlog.hpp
# with spdlog), a CMake project with find_package(mapout), add_subdirectory and FetchContent (from
# a local git URL of this tree), a meson project with mapout as a subproject; the shared library's
# exported symbols; every installed header compiled alone with GCC and Clang; every C++ and C
# snippet of README.md; a consumer cross-built for Windows through pkg-config and one through
# CMake, run under Wine. Then `meson setup` of mapout itself on a machine without GoogleTest, and
# meson.build against CMakeLists.txt: the same sources in both.
# Prints one line per check and `consumers: N passed, N failed`; exits non-zero on a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
source_dir=$PWD
consumers=$source_dir/test/consumers

"$source_dir/build.sh" packages g++ gcc clang meson ninja-build pkg-config cmake binutils \
  util-linux git libfmt-dev libboost-iostreams-dev libspdlog-dev g++-mingw-w64-x86-64-posix \
  gcc-mingw-w64-x86-64-posix wine wine64

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

# The shared library names its ABI and exports the public API only: the C API (mapout_*), and
# members, vtables and type information of mapout's public classes; no mapout::detail, no member
# of a pimpl's state, no instance of a standard library template.
exports_public_api_only() {
  local library unexpected
  library=$(pkg-config --variable=libdir mapout)/libmapout.so
  readelf -d "$library" | grep -E 'SONAME.*\[libmapout\.so\.[0-9]' || return 1
  nm -D --defined-only "$library" | c++filt | cut -d' ' -f3- | sort -u >"$work/exported"
  grep -qx 'mapout_open' "$work/exported" &&
    grep -qx 'mapout::ostream::close()' "$work/exported" || return 1
  local public='^mapout_[a-z_]+$'
  public+='|^((typeinfo( name)?|vtable|VTT|(virtual|non-virtual) thunk) (to|for) )?mapout::'
  unexpected=$(grep -Ev "$public" "$work/exported" | cat
    grep -E 'mapout::(detail::|[a-z_]+::state::)' "$work/exported" | cat)
  if [ -n "$unexpected" ]; then
    echo "exported, not public API:"
    echo "$unexpected"
    return 1
  fi
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

# format.hpp, boost.hpp and spdlog.hpp with the modules that add their libraries.
parts_with_pkg_config() {
  local dir=$work/parts-$1
  mkdir -p "$dir"
  # shellcheck disable=SC2046
  g++ -std=c++17 "${strict[@]}" "$consumers/app_parts.cpp" -o "$dir/app_parts" \
    $(pkg-config --cflags --libs mapout-format mapout-boost mapout-spdlog) &&
    "$dir/app_parts" "$dir"
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
  for header in $(cd "$include" && find mapout -type f | sort); do
    for compiler in g++:c++17 g++:c++20 g++:c++23 clang++:c++17 clang++:c++20; do
      std=${compiler#*:}
      echo "#include <$header>" |
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

# blocks LANGUAGE DIR: each fenced block of that language in README.md, as DIR/1.LANGUAGE, ...
blocks() {
  awk -v fence="\`\`\`$1" -v dir="$2" -v ext="$1" '
    $0 == fence { inside = 1; n++; next }
    inside && /^```/ { inside = 0; next }
    inside { print > (dir "/" n "." ext) }' "$source_dir/README.md"
}

# Every C++ snippet of README.md compiles as its own file, and those with a main() link and run;
# every C snippet compiles, links and runs inside a main(). A snippet that stops compiling fails.
readme_snippets() {
  local dir=$work/readme-$1 snippet flags
  mkdir -p "$dir/cpp" "$dir/c" "$dir/run/gen"
  blocks cpp "$dir/cpp"
  blocks c "$dir/c"
  ls "$dir"/cpp/*.cpp "$dir"/c/*.c >/dev/null || return 1
  flags=$(pkg-config --cflags --libs mapout-format mapout-boost)
  for snippet in "$dir"/cpp/*.cpp; do
    echo "README C++ snippet ${snippet##*/}"
    if grep -q '^int main' "$snippet"; then
      # shellcheck disable=SC2086
      g++ -std=c++17 "${strict[@]}" "$snippet" -o "${snippet%.cpp}" $flags &&
        (cd "$dir/run" && "${snippet%.cpp}") || return 1
    else
      # shellcheck disable=SC2086
      g++ -std=c++17 "${strict[@]}" -c "$snippet" -o "${snippet%.cpp}.o" $flags || return 1
    fi
  done
  for snippet in "$dir"/c/*.c; do
    echo "README C snippet ${snippet##*/}"
    { printf '#include <stdio.h>\n#include <mapout/mapout.h>\nint main(void) {\n'
      cat "$snippet"
      printf 'return 0;\n}\n'; } >"${snippet%.c}.main.c"
    # shellcheck disable=SC2046
    gcc -std=c99 "${strict[@]}" "${snippet%.c}.main.c" -o "${snippet%.c}" \
      $(pkg-config --cflags --libs mapout) &&
      (cd "$dir/run" && "${snippet%.c}") || return 1
  done
  grep -q 'const int n = 42;' "$dir/run/gen/tables.cpp" &&
    grep -q 'const int n = 42;' "$dir/run/gen/tables.c"
}

# cmake_consumer DIR ARGS...: configures and builds test/consumers with ARGS, runs what it built.
cmake_consumer() {
  local dir=$1
  shift
  cmake -S "$consumers" -B "$dir" "$@" &&
    cmake --build "$dir" -j2 &&
    "$dir/app" "$dir/out.txt" && "$dir/app_c" "$dir/out_c.txt" && "$dir/app_parts" "$dir"
}

cmake_find_package() {
  cmake_consumer "$work/cmake-$1" -DCMAKE_PREFIX_PATH="$work/$1"
}

# mapout's own CMakeLists.txt as a subdirectory, built with warnings as errors.
cmake_add_subdirectory() {
  local shared=OFF
  [ "$1" = shared ] && shared=ON
  cmake_consumer "$work/cmake-subdirectory-$1" -DMAPOUT_FROM=subdirectory \
    -DMAPOUT_SOURCE_DIR="$source_dir" -DBUILD_SHARED_LIBS=$shared \
    -DCMAKE_CXX_FLAGS="${strict[*]}"
}

# mapout built and installed by its CMakeLists.txt, then found as meson's install is found.
cmake_install_then_find_package() {
  local shared=OFF prefix=$work/cmake-installed-$1
  [ "$1" = shared ] && shared=ON
  cmake -S "$source_dir" -B "$work/cmake-build-$1" -DBUILD_SHARED_LIBS=$shared \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_CXX_FLAGS="${strict[*]}" &&
    cmake --build "$work/cmake-build-$1" -j2 &&
    cmake --install "$work/cmake-build-$1" &&
    LD_LIBRARY_PATH=$prefix/lib cmake_consumer "$work/cmake-installed-consumer-$1" \
      -DCMAKE_PREFIX_PATH="$prefix"
}

# FetchContent from a git URL on this machine: a repository holding this tree as it is now,
# committed edits or not, so that no network is needed and what is tested is what is here.
cmake_fetchcontent() {
  local shared=OFF repo=$work/mapout.git commit
  [ "$1" = shared ] && shared=ON
  if [ ! -d "$repo" ]; then
    git init -q --bare "$repo" &&
      git --git-dir="$repo" --work-tree="$source_dir" add -A &&
      commit=$(git --git-dir="$repo" --work-tree="$source_dir" -c user.name=consumers \
        -c user.email=consumers@localhost commit-tree -m "the tree under test" \
        "$(git --git-dir="$repo" write-tree)") &&
      git --git-dir="$repo" update-ref refs/heads/main "$commit" || return 1
  fi
  cmake_consumer "$work/cmake-fetchcontent-$1" -DMAPOUT_FROM=fetchcontent \
    -DMAPOUT_GIT_URL="file://$repo" -DMAPOUT_GIT_TAG=main -DBUILD_SHARED_LIBS=$shared
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

# Windows, cross-built with mingw-w64 and run under Wine: mapout installed by meson with the cross
# file, a C++ program built against it with pkg-config; mapout built and installed by
# CMakeLists.txt with the toolchain file, a CMake project (C++ and C) on find_package(mapout).
windows_pkg_config() {
  local dir=$work/windows-pkg-config
  meson setup "$work/build-windows" "$source_dir" --prefix "$work/windows" \
    --cross-file "$source_dir/cross/x86_64-w64-mingw32.ini" -Dtests=disabled \
    -Dexamples=disabled -Dwerror=true &&
    ninja -C "$work/build-windows" -j2 &&
    meson install -C "$work/build-windows" --quiet || return 1
  mkdir -p "$dir"
  # Only the target's .pc files: the host's would hand Linux libraries to the linker.
  # shellcheck disable=SC2046
  x86_64-w64-mingw32-g++-posix -std=c++17 "${strict[@]}" "$consumers/app.cpp" -o "$dir/app.exe" \
    $(PKG_CONFIG_LIBDIR=$(dirname "$(find "$work/windows" -name mapout.pc)") \
      pkg-config --static --cflags --libs mapout) -static &&
    wine "$dir/app.exe" "$dir/out.txt"
}

windows_cmake() {
  local prefix=$work/windows-cmake-installed dir=$work/windows-cmake-consumer
  local toolchain=-DCMAKE_TOOLCHAIN_FILE=$source_dir/cmake/mingw-w64.cmake
  cmake -S "$source_dir" -B "$work/windows-cmake-build" "$toolchain" \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_CXX_FLAGS="${strict[*]}" &&
    cmake --build "$work/windows-cmake-build" -j2 &&
    cmake --install "$work/windows-cmake-build" &&
    cmake -S "$consumers" -B "$dir" "$toolchain" \
      -Dmapout_DIR="$(dirname "$(find "$prefix" -name mapoutConfig.cmake)")" &&
    cmake --build "$dir" -j2 &&
    wine "$dir/app.exe" "$dir/out.txt" && wine "$dir/app_c.exe" "$dir/out_c.txt"
}

for kind in shared static; do
  check "$kind: meson install into a prefix" install_mapout "$kind"
  libdir=$(dirname "$(find "$work/$kind" -name mapout.pc)")
  export PKG_CONFIG_PATH=$libdir LD_LIBRARY_PATH=${libdir%/pkgconfig}
  if [ "$kind" = shared ]; then
    check "shared: versioned SONAME, only the public API exported" exports_public_api_only
    check "every installed header alone: g++ C++17/20/23, clang++ C++17/20, C99" \
      headers_compile_alone "$kind"
    check "README's C++ and C snippets, as written" readme_snippets "$kind"
  fi
  check "$kind: g++ -std=c++17 with pkg-config" gxx_with_pkg_config "$kind"
  check "$kind: gcc -std=c99 with pkg-config and mapout.h" c99_with_pkg_config "$kind"
  check "$kind: format.hpp, boost.hpp, spdlog.hpp with pkg-config mapout-{format,boost,spdlog}" \
    parts_with_pkg_config "$kind"
  check "$kind: CMake find_package(mapout), C++, C and the optional parts" \
    cmake_find_package "$kind"
  unset PKG_CONFIG_PATH LD_LIBRARY_PATH
  check "$kind: CMake add_subdirectory(mapout)" cmake_add_subdirectory "$kind"
  check "$kind: CMake FetchContent from a local git URL" cmake_fetchcontent "$kind"
  check "$kind: CMake install, then find_package" cmake_install_then_find_package "$kind"
  check "$kind: meson subproject, C++ and C" meson_subproject "$kind"
done
# Wine's prefix of ./build.sh windows when there is one; its first start is quiet either way.
export WINEPREFIX=${WINEPREFIX:-$source_dir/build-windows/wine} WINEDEBUG=-all WINEARCH=win64
check "Windows: meson cross build installed, g++ with pkg-config, run under Wine" \
  windows_pkg_config
check "Windows: CMake toolchain build installed, then find_package, C++ and C under Wine" \
  windows_cmake
check "meson setup without GoogleTest: tests skipped" setup_without_gtest
check "meson.build and CMakeLists.txt build the same sources" "$source_dir/test/same_sources.sh"

echo "consumers: $passed passed, $failed failed"
[ "$failed" = 0 ]
