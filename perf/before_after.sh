#!/usr/bin/env bash
# Measures a change: perf/compare built at REV and at the checkout, run in alternating rounds on
# the same machine, then the median of each row for both and their ratio.
#   perf/before_after.sh REV ROUNDS [perf/compare arguments, without --rounds or --out]
# e.g. perf/before_after.sh v0.3.0 5 --fs disk,tmpfs --sizes 256M --workloads tokens,lines
# --writers mapout
# "noise" is the widest spread of one side's rounds (slowest over fastest wall) for the row.
# Needs ./build.sh perf run once (build/perf/compare). REV is built in build-before/, from a
# worktree of its own there.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 2 ]; then
  sed -n '2,8p' "$0" >&2
  exit 2
fi
rev=$1
rounds=$2
shift 2

after=build/perf/compare
[ -x "$after" ] || {
  echo "run ./build.sh perf --list first" >&2
  exit 1
}
ninja -C build perf/compare >/dev/null

# REV's tree and build stay in build-before/ for the next run against the same REV.
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
root=$PWD/build-before
commit=$(git rev-parse --verify "$rev^{commit}")
if [ "$(cat "$root/commit" 2>/dev/null)" != "$commit" ]; then
  echo "building perf/compare at $rev in build-before/"
  git worktree remove --force "$root/src" >/dev/null 2>&1 || true
  rm -rf "$root"
  mkdir -p "$root"
  git worktree add --detach "$root/src" "$commit" >/dev/null 2>&1
  meson setup "$root/build" "$root/src" -Dperf=enabled >/dev/null
  echo "$commit" >"$root/commit"
fi
ninja -C "$root/build" perf/compare >/dev/null
before=$root/build/perf/compare

for round in $(seq 1 "$rounds"); do
  # Alternating which goes first, so that neither always finds the page cache the other left.
  order=(before after)
  [ $((round % 2)) = 0 ] && order=(after before)
  for which in "${order[@]}"; do
    binary=$before
    [ "$which" = after ] && binary=$after
    echo "round $round/$rounds: $which"
    log=$results/$which.$round.log
    "$binary" --rounds 1 --out "$results/$which.$round" "$@" >"$log" 2>&1 || {
      cat "$log" >&2
      exit 1
    }
  done
done

python3 - "$results" "$rounds" <<'EOF'
import csv, statistics, sys
root, rounds = sys.argv[1], int(sys.argv[2])
rows = {}
for which in ("before", "after"):
    for r in range(1, rounds + 1):
        with open(f"{root}/{which}.{r}/results.csv") as f:
            for row in csv.DictReader(f):
                if row["error"] or row["verified"] != "1":
                    continue
                key = (row["fs"], row["size_mib"], row["workload"], row["writer"])
                cpu = float(row["user_median_s"]) + float(row["sys_median_s"])
                rows.setdefault(key, {}).setdefault(which, []).append(
                    (float(row["wall_median_s"]), cpu))
print(f"{'fs':6} {'MiB':>5} {'workload':12} {'writer':18} {'wall before':>11} {'after':>7} "
      f"{'ratio':>6} {'cpu before':>10} {'after':>7} {'ratio':>6} {'noise':>6}")
for key in sorted(rows):
    got = rows[key]
    if "before" not in got or "after" not in got:
        print(f"{key[0]:6} {key[1]:>5} {key[2]:12} {key[3]:18} missing on one side")
        continue
    wb = statistics.median(w for w, _ in got["before"])
    wa = statistics.median(w for w, _ in got["after"])
    cb = statistics.median(c for _, c in got["before"])
    ca = statistics.median(c for _, c in got["after"])
    noise = max(max(w for w, _ in got[s]) / min(w for w, _ in got[s]) for s in got)
    print(f"{key[0]:6} {key[1]:>5} {key[2]:12} {key[3]:18} {wb:11.3f} {wa:7.3f} {wa / wb:6.3f} "
          f"{cb:10.3f} {ca:7.3f} {ca / cb:6.3f} {noise:6.3f}")
EOF
