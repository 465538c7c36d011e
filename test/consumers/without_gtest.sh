#!/usr/bin/env bash
# without_gtest.sh SCRATCH-DIR COMMAND...: runs the command with GoogleTest hidden, as on a machine
# without it. Run it inside `unshare -m`: in that mount namespace only, GoogleTest's directories
# are covered with an empty one, and its libraries and pkg-config files are removed from view by
# an overlay whose whiteouts hide them (meson looks for the files themselves, so covering them
# with another file is not enough).
set -euo pipefail
scratch=$1
shift
mount -t tmpfs mapout-no-gtest "$scratch"
mkdir "$scratch/empty"
for dir in /usr/include/gtest /usr/src/googletest /usr/src/gtest /usr/lib/*/cmake/GTest; do
  if [ -d "$dir" ]; then mount --bind "$scratch/empty" "$dir"; fi
done
for libdir in /usr/lib/*-linux-gnu; do
  hidden=$(find "$libdir" -maxdepth 2 \( -name 'libgtest*' -o -name 'gtest*.pc' \) -printf '%P\n')
  [ -n "$hidden" ] || continue
  layer=$scratch/$(basename "$libdir")
  mkdir -p "$layer/upper/pkgconfig" "$layer/work"
  for name in $hidden; do mknod "$layer/upper/$name" c 0 0; done
  mount -t overlay mapout-no-gtest \
    -o "lowerdir=$libdir,upperdir=$layer/upper,workdir=$layer/work" "$libdir"
done
"$@"
