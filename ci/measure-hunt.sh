#!/usr/bin/env bash
# Measures the built-in search: histories per second (median of 3 runs of the default
# pairs) and time to the first KAFKA-21419 finding on trunk:complete over 10 seeds
# (median and max, for G2 = list completeness and G5 = safe completion).
# Usage: ci/measure-hunt.sh [seconds-per-rate-run]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
cargo build --release --quiet
bin=target/release/isrfuzz
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. ci/stats.sh
max() { sort -g | tail -n 1; }

echo "== histories/s, default pairs, ${secs} s per run, 3 runs"
for run in 1 2 3; do
  # hunt exits 1 when it finds something, which the default pairs always do.
  { "$bin" hunt --seconds "$secs" --seed "$run" --out "$tmp/rate$run" || true; } |
    awk '/histories in/ {gsub(/[()\/s]/, "", $6); print $6}'
done | tee "$tmp/rates" | tr '\n' ' '
echo; echo "median: $(median < "$tmp/rates") histories/s"

echo "== time to first KAFKA-21419 finding, trunk:complete, seeds 1..10"
for seed in $(seq 1 10); do
  "$bin" hunt --rules trunk:complete --seconds 10 --seed "$seed" --out "$tmp/ttf$seed" > "$tmp/ttf$seed.txt" || true
  # Summary rows: rule set, invariant, new|known ID, histories, first s, witness.
  g2=$(awk '$1=="trunk+inkless-main" && $2=="G2" && $3=="new" {print $5}' "$tmp/ttf$seed.txt")
  g5=$(awk '$1=="trunk+inkless-main" && $2=="G5" && $3=="new" {print $5}' "$tmp/ttf$seed.txt")
  echo "seed $seed: G2 after ${g2:-never} s, G5 after ${g5:-never} s"
  echo "${g2:-inf}" >> "$tmp/g2"; echo "${g5:-inf}" >> "$tmp/g5"
done
echo "G2: median $(median < "$tmp/g2") s, max $(max < "$tmp/g2") s"
echo "G5: median $(median < "$tmp/g5") s, max $(max < "$tmp/g5") s"
