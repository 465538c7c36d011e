#!/usr/bin/env bash
# Whether the portable build's library (build-posix/ by default) uses anything of Linux's own:
# the calls it imports, the paths among its strings, and the constants and headers in the
# sources it was compiled from (comments left out). Prints each use found and fails.
set -euo pipefail
dir=${1:-build-posix}
library=$(find "$dir" -maxdepth 1 -name 'libmapout.so.*.*' -type f | head -n 1)
[ -n "$library" ] || { echo "posix_leak_check: no libmapout.so in $dir/" >&2; exit 2; }

# Linux's calls, and glibc's names for them with large-file and internal spellings.
calls=(fallocate memfd_create mremap fstatfs statfs getxattr fgetxattr lgetxattr setxattr
  fsetxattr lsetxattr removexattr fremovexattr lremovexattr listxattr flistxattr
  name_to_handle_at open_by_handle_at splice tee vmsplice copy_file_range sync_file_range
  syncfs pipe2 dup3 accept4 epoll_create1 inotify_init1 signalfd timerfd_create eventfd
  statx renameat2 prlimit getrandom syscall)
# Paths only Linux has.
paths=('/proc/' '/sys/' '/dev/shm')
# Linux's constants and headers, as the sources spell them.
tokens=(O_TMPFILE O_PATH AT_EMPTY_PATH MADV_POPULATE_WRITE MADV_POPULATE_READ MAP_POPULATE
  MAP_NORESERVE MREMAP_ F_OFD_SETLK F_OFD_SETLKW F_OFD_GETLK MFD_CLOEXEC FALLOC_FL_ _SUPER_MAGIC
  TMPFS_MAGIC BUS_MCEERR 'linux/' 'sys/statfs.h' 'sys/vfs.h' 'sys/xattr.h' 'sys/sendfile.h')

found=0
imported=$(nm -D --undefined-only "$library" | awk '{print $2}' | sed 's/@.*//')
for call in "${calls[@]}"; do
  for name in "$call" "${call}64" "__${call}" "__${call}64"; do
    if grep -qx -- "$name" <<<"$imported"; then
      echo "posix_leak_check: $library imports $name" >&2
      found=1
    fi
  done
done
held=$(strings -a "$library")
for path in "${paths[@]}"; do
  if grep -qF -- "$path" <<<"$held"; then
    echo "posix_leak_check: $library holds the path $path" >&2
    found=1
  fi
done

# The repository's files the library's objects were compiled from, as ninja recorded them
# (relative to the build directory, or absolute for a file named on the command line).
root=$(cd "$(dirname "$0")/.." && pwd)
objects=$(ninja -C "$dir" -t targets all | sed -n 's|^\(libmapout\.so\.[^:]*\.p/[^:]*\.o\):.*|\1|p')
# shellcheck disable=SC2086
sources=$(ninja -C "$dir" -t deps $objects | sed -n 's|^ *\(\.\./.*\)$|\1|p; s|^ *\('"$root"'/.*\)$|\1|p' |
  sort -u)
[ -n "$sources" ] || { echo "posix_leak_check: ninja recorded no sources in $dir/" >&2; exit 2; }
for source in $sources; do
  # Comments out, macros and includes kept as written.
  text=$(cd "$dir" && g++ -x c++ -w -fpreprocessed -dD -E -P "$source")
  for token in "${tokens[@]}"; do
    if grep -qF -- "$token" <<<"$text"; then
      echo "posix_leak_check: ${source#../} uses $token" >&2
      found=1
    fi
  done
done
[ "$found" = 0 ] || exit 1
echo "posix_leak_check: $(wc -w <<<"$sources") sources and $(basename "$library"): none of Linux's calls, paths or constants"
