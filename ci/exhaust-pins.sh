#!/usr/bin/env bash
# What `exhaust` finds, per preset, start and depth: the report line (timings stripped),
# each shortest counterexample's invariant and the digest of its history file. Run on two
# commits and `diff` to show a search-engine change finds the same verdicts and the same
# shortest counterexamples; .ci/run diffs depths 4 and 5 against
# tests/it/snapshots/exhaust-pins.txt, written by the exact-state engine of 96d2365 (the
# collision bound that `holds to depth` now carries is left out, as that engine had none).
# Usage: ci/exhaust-pins.sh BIN DEPTH... > OUT (KRAFT_PRESETS, INKLESS_PRESETS: other lists;
# DATA=0: not the data start)
set -euo pipefail
bin=${1:?usage: ci/exhaust-pins.sh BIN DEPTH...}
shift
[ $# -gt 0 ] || { echo "usage: ci/exhaust-pins.sh BIN DEPTH..." >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
kraft="${KRAFT_PRESETS:-trunk 3.8-4.2 3.0-3.7 kafka-21419 kafka-21419-always-write zk-style transients-tracked kafka-4.0 kafka-4.1 kafka-4.3 complete}"
inkless="${INKLESS_PRESETS:-inkless-main pr756-commit1 pr756 pr756+pr760 inkless-complete complete}"
run() { # START RULES DEPTH
  local out="$tmp/$1-$2-$3"
  echo "## $2 from $1, depth $3"
  "$bin" exhaust --start "$1" --rules "$2" --depth "$3" --known none --out "$out" \
    | grep -E 'explored|counterexample|holds to|INCOMPLETE' | sed -E 's/, [0-9]+\.[0-9]+ s$//; s/ \(up to fingerprint.*$//' \
    | sed -E "s#$tmp/[^ ]*/##" || true
  for f in "$out"/*.json; do [ -e "$f" ] && echo "  $(basename "$f") $(sha256sum < "$f" | cut -c1-16)"; done
  return 0
}
for d in "$@"; do
  for r in $kraft; do run kraft "$r" "$d"; done
  for r in $inkless; do run switched "$r" "$d"; done
  [ "${DATA:-1}" = 0 ] || run data complete "$d"
done
