#!/usr/bin/env bash
# The include rule of lib/README.md: each folder of lib/ includes only itself, the folders its row
# of the table names, and the public headers. Fails, naming the file and the include, on any other
# include of a lib/ folder, on a row that names a folder below it in the table (an arrow up), and
# on a source file that sits in no folder or in a folder the table does not name.
set -euo pipefail
cd "$(dirname "$0")/../lib"

declare -A allowed rank
order=()
while IFS='|' read -r _ folder _ includes _; do
  folder=$(echo "$folder" | tr -d ' `/')
  [ -n "$folder" ] && [ -d "$folder" ] || continue
  rank[$folder]=${#order[@]}
  order+=("$folder")
  allowed[$folder]=$(echo "$includes" | tr -d ' ' | tr ',' ' ')
done < <(grep '^| `' README.md)
[ ${#order[@]} -gt 0 ] || { echo "lib/README.md: no table of folders" >&2; exit 1; }

status=0
fail() {
  echo "$1" >&2
  status=1
}

for folder in "${order[@]}"; do
  for below in ${allowed[$folder]}; do
    if [ -z "${rank[$below]+set}" ]; then
      fail "lib/README.md: $folder/ may include $below/, which the table does not name"
    elif [ "${rank[$below]}" -ge "${rank[$folder]}" ]; then
      fail "lib/README.md: $folder/ may include $below/, which is not below it"
    fi
  done
done

for file in $(find . -mindepth 1 -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) | sort); do
  file=${file#./}
  folder=${file%%/*}
  if [ "$folder" = "$file" ] || [ -z "${rank[$folder]+set}" ]; then
    fail "lib/$file: in no folder that lib/README.md names"
    continue
  fi
  while read -r included; do
    # A path beside the file (windows_posix/, ../posix_extras.h) stays inside its folder.
    if [ -e "$(dirname "$file")/$included" ]; then
      resolved=$(realpath -m --relative-to=. "$(dirname "$file")/$included")
      [ "${resolved%%/*}" = "$folder" ] || fail "lib/$file: includes \"$included\", outside $folder/"
      continue
    fi
    target=${included%%/*}
    [ "$target" = mapout ] && continue
    [ "$target" = "$folder" ] && continue
    if [ -z "${rank[$target]+set}" ]; then
      fail "lib/$file: includes \"$included\", in no folder of lib/"
    elif [[ " ${allowed[$folder]} " != *" $target "* ]]; then
      fail "lib/$file: includes \"$included\": $folder/ may not include $target/ (lib/README.md)"
    fi
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
done
exit $status
