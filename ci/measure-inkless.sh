#!/usr/bin/env bash
# Time to first detection of each Inkless counterexample class (docs/model/inkless.md#counterexamples),
# by the built-in hunt, buggy variant against the complete rule set, over 10 seeds:
# median and max seconds, and how many seeds found it within the budget.
# Usage: ci/measure-inkless.sh [budget-seconds-per-run]
set -euo pipefail
cd "$(dirname "$0")/.."
budget=${1:-30}
cargo build --release --quiet
bin=target/release/isrfuzz
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

classes=(
  "CE-a|INV-1|inkless-main"
  "CE-b1|INV-3|pr756-commit1+lag=uncapped"
  "CE-b2|INV-3|pr756-commit1+leader-change=diversion"
  "CE-c1|INV-4|pr756-commit1+leader-change=none"
  "CE-c2|INV-4|pr756-commit1"
  "CE-c3|INV-5|pr756+leader-change=diversion-no-evict"
  "CE-c4|INV-4b|pr756+leader-change=epoch-bump"
  "CE-d|INV-6|pr756"
  "CE-e|INV-2|pr756+pr760"
  "CE-f|INV-2|inkless-complete+unfence-expansion=pre-754"
)
printf '%-6s %-7s %-44s %8s %8s %6s\n' class inv rules median_s max_s found
for c in "${classes[@]}"; do
  IFS='|' read -r name inv rules <<< "$c"
  : > "$tmp/t"
  for seed in $(seq 1 10); do
    out=$("$bin" hunt --rules "$rules:complete" --until "$inv" --seconds "$budget" --seed "$seed" --known none --out "$tmp/f" || true)
    t=$(printf '%s\n' "$out" | awk -v inv="$inv" '$2==inv && $3=="new" {print $5; exit}')
    echo "${t:-inf}" >> "$tmp/t"
  done
  found=$(grep -vc inf "$tmp/t" || true)
  med=$(sort -g "$tmp/t" | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')
  max=$(sort -g "$tmp/t" | tail -n 1)
  printf '%-6s %-7s %-44s %8s %8s %4s/10\n' "$name" "$inv" "$rules" "$med" "$max" "$found"
done
