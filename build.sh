#!/usr/bin/env bash
# mapout in two commands on a fresh Debian machine:
#   ./build.sh test      install what is missing, configure, build, run every test
#   ./build.sh perf      the same set-up, then the headline comparison against stdio and the other
#                        writers, one size on both file systems, and its chart; and the log's
#                        rows (1,000,000 lines through ofstream, stdio, spdlog and mapout)
#   ./build.sh perf --full   every size, writer and mode instead (about 80 minutes); other
#                        arguments go to perf/compare (--fs, --sizes, --writers, --list, ...)
#   ./build.sh perf-read the same set-up, then the read side (perf/read): flat-file loads, line
#                        counts, random seeks and the write-then-read round trip (about 90 seconds)
#   ./build.sh sanitize  the test suites again, built with AddressSanitizer and UBSan (CI runs it)
#   ./build.sh tsan      the suites that write from several threads, under ThreadSanitizer (CI too)
#   ./build.sh cxx20     the stream, number, cursor and format suites built as C++20, with GCC and
#                        with Clang (CI too)
#   ./build.sh posix     the library from the portable POSIX files alone (macOS, the BSDs), the
#                        check that nothing of Linux's leaks in, every public header alone with
#                        clang, and every test suite against the library but the Linux-only tests
#                        (test/posix_excluded.txt says why) (CI too)
#   ./build.sh windows   the library and the test suites cross-built for Windows x86-64 with
#                        mingw-w64 (build-windows/), the suites run under Wine, the tests that
#                        cannot apply there left out as test/windows_excluded.txt says (CI too)
#   ./build.sh windows perf  perf/compare built for Windows, its rows at one size under Wine;
#                        arguments after perf go to perf/compare (--sizes, --workloads, ...)
#   ./build.sh packages NAME...  install only the named Debian packages, for test/consumers.sh
# One line per step that does work (installing, configuring, building, each test suite, each
# measured row); a step that fails prints its log.
set -euo pipefail
cd "$(dirname "$0")"

mode=${1:-}
case "$mode" in
  test | perf | perf-read | sanitize | tsan | cxx20 | posix | windows | packages) ;;
  *)
    echo "usage: ./build.sh test|perf|perf-read|sanitize|tsan|cxx20|posix|windows|packages" >&2
    exit 2
    ;;
esac

# A first ./build.sh perf installs LLVM and gnuplot and builds everything before the runs.
if [ "$mode" = perf ] && [ ! -x build/perf/compare ]; then
  echo "first run: installing, about 5 min of building on 2 cores, then the runs" \
    "(4 min for the headline)"
fi

test_packages=(g++ meson ninja-build pkg-config python3 googletest libgtest-dev xfsprogs btrfs-progs
  libboost-iostreams-dev libboost-serialization-dev zlib1g-dev libfmt-dev libspdlog-dev)
perf_packages=(libbenchmark-dev llvm-dev gnuplot-nox)
packages=("${test_packages[@]}")
[ "$mode" = perf ] || [ "$mode" = perf-read ] && packages+=("${perf_packages[@]}")
[ "$mode" = cxx20 ] || [ "$mode" = posix ] && packages+=(clang)
# Wine's 64-bit loader is Debian's wine64; googletest ships the sources the cross build compiles.
[ "$mode" = windows ] && packages=(meson ninja-build python3 googletest libfmt-dev
  g++-mingw-w64-x86-64-posix gcc-mingw-w64-x86-64-posix wine wine64)
[ "$mode" = packages ] && packages=("${@:2}")

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' ||
    missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "mapout needs: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  echo "installing with apt-get: ${missing[*]}"
  log=$(mktemp)
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
  fi
  rm -f "$log"
fi
[ "$mode" = packages ] && exit 0

# Runs a step silently; prints its output only when it fails.
quietly() {
  local log
  log=$(mktemp)
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    return 1
  fi
  rm -f "$log"
}

# configure DIR MESON-OPTIONS...: sets DIR up once, and again only when the options change.
configure() {
  local dir=$1
  shift
  local wanted="$*"
  if [ -f "$dir/build.ninja" ] && [ "$(cat "$dir/.mapout-options" 2>/dev/null)" = "$wanted" ]; then
    return
  fi
  echo "configuring $dir/: meson setup $wanted"
  if [ -f "$dir/build.ninja" ]; then
    quietly meson setup --reconfigure "$dir" "$@"
  else
    quietly meson setup "$dir" "$@"
  fi
  echo "$wanted" >"$dir/.mapout-options"
}

# build DIR [TARGET...]: builds what is out of date (of the targets named, or everything), saying
# how many targets that is first.
build() {
  local dir=$1 count
  shift
  count=$(ninja -C "$dir" -n "$@" 2>/dev/null | sed -n 's|^\[[0-9]*/\([0-9]*\)\].*|\1|p' | tail -n 1)
  if [ -n "$count" ]; then echo "building $dir/: $count targets"; fi
  quietly ninja -C "$dir" "$@"
}

# excluded_tests FILE: the GoogleTest patterns FILE names, one a line before its reason, joined as a
# negative filter; a pattern GoogleTest would not read as written (a stray comma or carriage
# return) stops the run rather than leaving a test in.
excluded_tests() {
  local patterns bad
  patterns=$(grep -v '^#' "$1" | awk 'NF && $1 !~ /\.cpp$/ {print $1}')
  bad=$(printf '%s\n' "$patterns" | grep -v '^[A-Za-z0-9_./*]*$' || true)
  if [ -n "$bad" ]; then
    echo "$1: not a test pattern: $(printf '%s' "$bad" | cat -A | head -n 3)" >&2
    exit 1
  fi
  printf '%s\n' "$patterns" | paste -sd:
}

# run_tests DIR [SUITE...]: each test suite (those named, or every one) with its result on one
# line, then one summary line counted from the GoogleTest reports.
run_tests() {
  local dir=$1 reports=$1/test-reports
  shift
  rm -rf "$reports"
  mkdir -p "$reports"
  local status=0
  local suites=$#
  [ "$suites" -gt 0 ] || suites=$(meson test -C "$dir" --list --no-rebuild 2>/dev/null | grep -vc '^ninja:')
  echo "running $suites test suites (mapout_tests takes the longest)"
  GTEST_OUTPUT="json:${report_drive:-}$PWD/$reports/" meson test -C "$dir" --print-errorlogs --no-rebuild "$@" |
    grep --line-buffered -Ev \
      '^(Ok|Expected Fail|Fail|Unexpected Pass|Skipped|Timeout): +[0-9]+ *$|^Full log written|^$' ||
    status=$?
  python3 - "$reports" <<'PY'
import json, pathlib, sys
passed = failed = skipped = 0
for report in pathlib.Path(sys.argv[1]).glob("*.json"):
    for suite in json.loads(report.read_text()).get("testsuites", []):
        for case in suite.get("testsuite", []):
            if case.get("result") == "SKIPPED" or case.get("status") == "NOTRUN":
                skipped += 1
            elif case.get("failures"):
                failed += 1
            else:
                passed += 1
print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")
PY
  return $status
}

case "$mode" in
  test)
    configure build -Dwerror=true -Dperf=disabled
    build build
    run_tests build
    ;;
  sanitize)
    configure build-sanitize -Dwerror=true -Dperf=disabled -Dbuildtype=debugoptimized \
      -Db_sanitize=address,undefined -Db_lundef=false -Dcpp_args=-fno-sanitize-recover=all
    build build-sanitize
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
      LSAN_OPTIONS=suppressions=$PWD/test/lsan.supp \
      run_tests build-sanitize
    ;;
  tsan)
    configure build-tsan -Dperf=disabled -Dbuildtype=debugoptimized -Db_sanitize=thread \
      -Db_lundef=false
    # Only the suites that hold the threaded tests.
    threaded=(mapout_tests parallel_tests mapout_fault_tests)
    build build-tsan "${threaded[@]/#/test/}"
    GTEST_FILTER='Concurrency.*:Parallel*:SigbusMode.*:BackgroundPopulate.LargeFile*:BackgroundPopulate.Refused*' TSAN_OPTIONS=halt_on_error=1 run_tests build-tsan "${threaded[@]}"
    ;;
  cxx20)
    # The suites of the headers users compile in their own standard. Not the whole tree: GCC 12
    # warns falsely (-Wrestrict) on std::string's operator+ under C++20.
    suites=(fast_path_tests number_tests cursor_tests format_tests)
    configure build-cxx20 -Dwerror=true -Dperf=disabled -Dcpp_std=c++20
    CXX=clang++ CC=clang configure build-cxx20-clang -Dwerror=true -Dperf=disabled -Dcpp_std=c++20
    for dir in build-cxx20 build-cxx20-clang; do
      quietly ninja -C "$dir" "${suites[@]/#/test/}"
      for suite in "${suites[@]}"; do quietly "$dir/test/$suite"; done
      echo "$dir: ${suites[*]} passed"
    done
    ;;
  posix)
    configure build-posix -Dwerror=true -Dperf=disabled -Dplatform=posix
    build build-posix
    quietly test/posix_leak_check.sh build-posix
    echo "build-posix/: none of Linux's calls, paths or constants (test/posix_leak_check.sh)"
    quietly test/header_compilers.sh
    echo "public headers: each alone with clang, C++17, C++20, C11, C99; none GNU-only unguarded"
    excluded=$(excluded_tests test/posix_excluded.txt)
    GTEST_FILTER="-$excluded" run_tests build-posix
    ;;
  windows)
    # Wine's own prefix, made once and quietly (its first start takes seconds and prints much),
    # before configuring: meson's sanity check runs a program through Wine.
    export WINEPREFIX=$PWD/build-windows/wine WINEDEBUG=-all WINEARCH=win64
    if [ ! -f "$WINEPREFIX/system.reg" ]; then
      echo "starting Wine once, its prefix in build-windows/wine/"
      mkdir -p "$WINEPREFIX"
      quietly wineboot --init
    fi
    if [ "${2:-}" = perf ]; then
      configure build-windows-perf --cross-file cross/x86_64-w64-mingw32.ini -Dwerror=true \
        -Dperf=enabled -Dtests=disabled -Dexamples=disabled
      quietly ninja -C build-windows-perf perf/compare.exe
    else
      # Not the examples: they show glibc's unlocked stdio beside mapout.
      configure build-windows --cross-file cross/x86_64-w64-mingw32.ini -Dwerror=true \
        -Dperf=disabled -Dexamples=disabled
      build build-windows
    fi
    if [ "${2:-}" = perf ]; then
      mkdir -p build-windows-perf/perf
      # Wine reaches Linux's tmpfs through its Z: drive.
      wine build-windows-perf/perf/compare.exe --out build-windows-perf/perf --tmpfs-dir Z:/dev/shm \
        "${@:3}"
      exit 0
    fi
    # Small file systems for the full-disk tests, which cannot mount from inside Wine: they reach
    # them through Wine's Z: drive, the Linux root. One each, since two suites run at once.
    disks=("$PWD/build-windows/full-disk" "$PWD/build-windows/small-disk")
    if [ "$(id -u)" = 0 ]; then
      for disk in "${disks[@]}"; do
        mkdir -p "$disk"
        mountpoint -q "$disk" || mount -t tmpfs -o size=1m mapout-test "$disk"
      done
      trap 'umount "${disks[@]}"' EXIT
      export MAPOUT_TEST_FULL_DISK="Z:${disks[0]}" MAPOUT_SMALL_DISK="Z:${disks[1]}"
    else
      echo "not root: the full-disk tests skip, for want of a small file system mounted"
    fi
    # The tests test/windows_excluded.txt names by pattern, as GoogleTest's negative filter.
    excluded=$(excluded_tests test/windows_excluded.txt)
    echo "leaving out $(grep -v '^#' test/windows_excluded.txt | awk 'NF' | grep -vc '\.cpp ')" \
      "tests and $(grep -c '^[a-z_]*\.cpp ' test/windows_excluded.txt) source files" \
      "(test/windows_excluded.txt says why)"
    GTEST_FILTER="-$excluded" report_drive=Z: run_tests build-windows
    ;;
  perf)
    configure build -Dwerror=true -Dperf=enabled
    build build
    mkdir -p build/perf
    preset=(--headline)
    arguments=("${@:2}")
    if [ "${arguments[0]:-}" = --full ]; then
      preset=()
      arguments=("${arguments[@]:1}")
    fi
    build/perf/compare --out build/perf "${preset[@]}" "${arguments[@]}"
    echo
    echo "The original experiment: 32 MiB of random bytes, one at a time (perf/seed_table)"
    build/perf/seed_table
    ;;
  perf-read)
    configure build -Dwerror=true -Dperf=enabled
    build build
    build/perf/read "${@:2}"
    ;;
esac
