#!/usr/bin/env bash
# exhaust's time and memory, written to docs/benchmarks-exhaust.md: `--jobs 1` against
# `--jobs 2` at depth 6 from `kraft` (alternating, RUNS pairs), then depths 7 and 8 from
# `kraft` and depth 8 from `switched` on two jobs. Medians of the runs, peak resident
# memory as GNU time reports it. Each run is a row of docs/benchmarks-exhaust.csv (the
# file is rewritten), from which the page is rendered; RENDER_ONLY=1 renders the CSV
# again without measuring. Usage: ci/bench-exhaust.sh [RUNS] [DEEP_RUNS]
# (defaults 3 and 1). DEEP lists the deep runs (default `kraft-7 kraft-8 switched-8`;
# `kraft-8` alone takes tens of minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
deep=${2:-1}
for n in "$runs" "$deep"; do
  [[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 20 ] || { echo "error: runs must be 1..20, got \`$n\`" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "error: needs GNU time at /usr/bin/time" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
csv=docs/benchmarks-exhaust.csv
rows=$tmp/rows
# One run: label, then exhaust's arguments. Appends "label wall_s rss_kb states transitions".
one() {
  local label=$1
  shift
  local rc=0
  /usr/bin/time -f '%e %M' -o "$tmp/time" "$bin" exhaust --known none --out "$tmp/out" "$@" > "$tmp/log" || rc=$?
  rm -rf "$tmp/out"
  # 0: nothing violated, 1: something violated (with --known none, every hole counts).
  [ "$rc" -le 1 ] || { echo "error: $label exited $rc" >&2; tail -n 3 "$tmp/log" >&2; exit 1; }
  local line
  line=$(grep -m1 'explored completely' "$tmp/log")
  grep -q "depth \([0-9]*\) of \1 " <<< "$line" || { echo "error: $label did not complete: $line" >&2; exit 1; }
  local states transitions
  transitions=$(sed -E 's/.*completely, ([0-9]+) transitions.*/\1/' <<< "$line")
  states=$(sed -E 's/.*transitions, ([0-9]+) distinct.*/\1/' <<< "$line")
  # GNU time puts "Command exited with non-zero status 1" first when exhaust found something.
  local measured
  measured=$(tail -n 1 "$tmp/time")
  echo "$label,${measured/ /,},$states,$transitions" >> "$csv.new"
  echo "$label: $measured ($states states, $transitions transitions)" >&2
}
if [ "${RENDER_ONLY:-0}" != 1 ]; then
  cargo build --release --quiet --bin isrfuzz
  bin=$PWD/target/release/isrfuzz
  echo "label,wall_s,max_rss_kb,states,transitions" > "$csv.new"
  echo "# commit $(git rev-parse --short=7 HEAD), $(date -u +%Y-%m-%dT%H:%MZ), DEEP='${DEEP:-kraft-7 kraft-8 switched-8}' ci/bench-exhaust.sh $runs $deep" >> "$csv.new"
  for r in $(seq 1 "$runs"); do
    one "kraft-6-jobs1" --rules complete --depth 6 --jobs 1
    one "kraft-6-jobs2" --rules complete --depth 6 --jobs 2
  done
  deep_runs=${DEEP:-kraft-7 kraft-8 switched-8}
  for r in $(seq 1 "$deep"); do
    for d in $deep_runs; do
      case $d in
        kraft-7) one "kraft-7-jobs2" --rules complete --depth 7 --jobs 2 ;;
        kraft-8) one "kraft-8-jobs2" --rules complete --depth 8 --jobs 2 ;;
        switched-8) one "switched-8-jobs2" --rules complete --start switched --depth 8 --jobs 2 ;;
        *) echo "error: DEEP has \`$d\`: known are kraft-7, kraft-8, switched-8" >&2; exit 2 ;;
      esac
    done
  done
  mv "$csv.new" "$csv"
fi
[ -f "$csv" ] || { echo "error: no $csv to render" >&2; exit 2; }
grep -v '^#' "$csv" | tail -n +2 | tr ',' ' ' > "$rows"
how=$(sed -n 's/^# //p' "$csv")
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
col() { awk -v l="$1" -v c="$2" '$1==l {print $c}' "$rows"; }
row() { # label description (nothing when the label was not run)
  [ -n "$(col "$1" 2)" ] || return 0
  local w m
  w=$(col "$1" 2 | median)
  m=$(col "$1" 3 | median)
  printf '| %s | %s | %.1f s | %.0f MB | %s | %s |\n' "$2" "$(col "$1" 2 | wc -l)" "$w" "$(echo "$m / 1000" | bc -l)" \
    "$(col "$1" 4 | head -1)" "$(col "$1" 5 | head -1)"
}
ratios=$(paste <(col kraft-6-jobs1 2) <(col kraft-6-jobs2 2) | awk '{printf "%.2f\n", $1/$2}')
{
  echo "# exhaust: time and memory"
  echo
  echo "Written by \`ci/bench-exhaust.sh\` from [benchmarks-exhaust.csv](benchmarks-exhaust.csv) (measured at $how), $(nproc) cores ($(lscpu | sed -n 's/^Model name: *//p' | head -1)). Wall time and peak resident memory (GNU time's maximum RSS) are medians of the runs; \`exhaust --rules complete --known none\`, every run to completion. The engine stores 8 bytes of path and one 64-bit fingerprint per state and rebuilds states by re-execution (src/search/bfs.rs)."
  echo
  echo "| run | runs | wall | peak memory | states | transitions |"
  echo "|---|---:|---:|---:|---:|---:|"
  row kraft-6-jobs1 "\`--depth 6\` from \`kraft\`, \`--jobs 1\`"
  row kraft-6-jobs2 "\`--depth 6\` from \`kraft\`, \`--jobs 2\`"
  row kraft-7-jobs2 "\`--depth 7\` from \`kraft\`, \`--jobs 2\`"
  row kraft-8-jobs2 "\`--depth 8\` from \`kraft\`, \`--jobs 2\`"
  row switched-8-jobs2 "\`--depth 8\` from \`switched\`, \`--jobs 2\`"
  echo
  echo "\`--jobs 2\` against \`--jobs 1\` at depth 6, pair by pair (jobs 1 wall / jobs 2 wall): $(echo $ratios | sed 's/ /, /g'); median $(echo "$ratios" | median)×."
} > docs/benchmarks-exhaust.md
cat docs/benchmarks-exhaust.md
