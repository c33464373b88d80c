#!/usr/bin/env bash
# Behaviour fingerprints for refactors: run on the commit before a change and on the change,
# then compare (`diff`). Identical output means identical verdicts on the whole corpus, on
# 10,000 histories decoded from fixed seeds under every preset against `complete`, on a
# fixed-seed hunt (the findings it writes, minimized) and on two bounded exhaustive runs.
# Timings are stripped. Usage: ci/fingerprints.sh OUT_FILE
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: ci/fingerprints.sh OUT_FILE}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cargo build --release --quiet --bin isrfuzz --example fingerprints
target_dir=${CARGO_TARGET_DIR:-target}
bin=$target_dir/release/isrfuzz
# Wall-clock figures: durations, rates, and the summary table's "first s" column.
strip_times() { sed -E 's/[0-9]+\.[0-9]+ s\b/T s/g; s/\([0-9]+\/s\)//g; s/, [0-9]+\/s//g; s/ [0-9]+\.[0-9]{3}  (\/|-)/ T  \1/g'; }
{
  echo "## verdicts"
  "$target_dir"/release/examples/fingerprints
  echo "## hunt --seed 7 --max-histories 3000"
  "$bin" hunt --seed 7 --jobs 1 --max-histories 3000 --seconds 600 --out "$tmp/hunt" --known corpus/known.json \
    | strip_times | sed "s#$tmp#TMP#g" || true
  for f in "$tmp"/hunt/*.json; do echo "$(basename "$f") $(sha256sum < "$f" | cut -c1-16)"; done
  echo "## exhaust trunk:complete depth 3"
  "$bin" exhaust --rules trunk:complete --depth 3 --out "$tmp/ex1" | strip_times | sed "s#$tmp#TMP#g" || true
  echo "## exhaust pr756:complete switched depth 4"
  "$bin" exhaust --rules pr756:complete --start switched --depth 4 --out "$tmp/ex2" | strip_times | sed "s#$tmp#TMP#g" || true
  for f in "$tmp"/ex*/*.json; do echo "$(basename "$f") $(sha256sum < "$f" | cut -c1-16)"; done
} > "$out"
wc -l "$out"
