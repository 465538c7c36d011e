#!/bin/sh
# A real build: ninja runs examples/codegen (mapout with write_if_changed) to make a header that a
# compile step depends on, with restat = 1. Regenerating the same header must not compile again;
# a changed header must. Without --if-changed the same regeneration does compile again, which
# shows that the check can fail. Exit 77 (skipped) where ninja or a C++ compiler is missing.
#   ninja_restat.sh CODEGEN
set -eu
codegen=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
command -v ninja 2>&1 || { echo "SKIP: ninja is not installed (Debian: ninja-build)"; exit 77; }
command -v c++ >/dev/null 2>&1 || { echo "SKIP: no C++ compiler (c++) for the compile step"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"

cat >user.cpp <<'CPP'
#include "table.hpp"
int first_value() { return static_cast<int>(generated::lookup(generated::keys[0])); }
CPP
write_build() {
  cat >build.ninja <<NINJA
rule generate
  command = $codegen $1 \$in \$out
  restat = 1
rule compile
  command = echo compiled >>compiles && c++ -std=c++17 -c \$in -o \$out
build table.hpp: generate table.spec
build user.o: compile user.cpp | table.hpp
NINJA
}
compiles() { [ -f compiles ] && wc -l <compiles | tr -d ' ' || echo 0; }
expect_compiles() {
  if [ "$(compiles)" != "$1" ]; then
    echo "FAIL: $2: expected $1 compiles, saw $(compiles)"
    ninja -n -d explain || true
    exit 1
  fi
  echo "ok: $2"
}

write_build "--atomic --if-changed"
echo "2000 1" >table.spec
ninja
expect_compiles 1 "first build"

# The spec is newer, so the generator runs again, and writes the same header.
touch table.spec
before=$(stat -c %Y.%y table.hpp)
ninja
[ "$(stat -c %Y.%y table.hpp)" = "$before" ] || { echo "FAIL: the same header got a new mtime"; exit 1; }
expect_compiles 1 "same header: no compile"
explain=$(ninja -n -d explain 2>&1)
case "$explain" in
  *"no work to do"*) echo "ok: ninja -n -d explain: no work to do" ;;
  *) echo "FAIL: ninja would still do work:"; echo "$explain"; exit 1 ;;
esac

echo "2000 2" >table.spec
ninja
expect_compiles 2 "changed header: compiled again"

# The control: without --if-changed every regeneration compiles again.
write_build "--atomic"
ninja
touch table.spec
ninja
expect_compiles 4 "without --if-changed: compiled again"
