#!/usr/bin/env bash
# Conformance throughput on one core: `isrfuzz conform --seconds S` (the Rust side and the
# release's JVM both pinned to CPU 0) against `isrfuzz hunt` on the same generator settings
# (the release preset alone, ELR drawn, the same core), TRIALS runs each, alternating.
# Prints a Markdown table of medians: generated histories/s, the share of conform's time
# spent waiting for the JVM, and the ratio to hunt. The first run of each release warms
# Maven's cache and the JIT is warm after a few seconds of each run.
# Usage: ci/bench-conform.sh [SECONDS] [TRIALS] [VERSION...]   (default 20 3 4.0 4.4)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
trials=${2:-3}
shift 2 || true
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(4.0 4.4)
cargo build --release --quiet --bin isrfuzz
bin=target/release/isrfuzz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. ci/stats.sh
echo "| release | preset | conform histories/s | JVM share | hunt histories/s | conform / hunt |"
echo "|---|---|---|---|---|---|"
for v in "${versions[@]}"; do
  : > "$work/c"; : > "$work/j"; : > "$work/h"
  for t in $(seq "$trials"); do
    taskset -c 0 "$bin" conform --kafka "$v" --seconds "$seconds" --seed "$t" --json --out "$work/f" \
      > "$work/c.json" 2>/dev/null || true
    python3 -c "import json;r=json.load(open('$work/c.json'));print(r['histories']/r['seconds'])" >> "$work/c"
    python3 -c "import json;r=json.load(open('$work/c.json'));print(r['jvm_seconds']/r['seconds'])" >> "$work/j"
    preset=$(python3 -c "import json;print(json.load(open('$work/c.json'))['rules'].split('+')[0])")
    taskset -c 0 "$bin" hunt --jobs 1 --rules "$preset" --seconds "$seconds" --seed "$t" --json --known none \
      --out "$work/h-out" > "$work/h.json" 2>/dev/null || true
    python3 -c "import json;r=json.load(open('$work/h.json'));print(r['histories']/r['seconds'])" >> "$work/h"
  done
  c=$(median < "$work/c"); j=$(median < "$work/j"); h=$(median < "$work/h")
  python3 -c "print('| $v | $preset | %.0f | %.0f %% | %.0f | %.3f |' % ($c, 100 * $j, $h, $c / $h))"
done
