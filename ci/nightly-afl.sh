#!/usr/bin/env bash
# Nightly AFL++ campaign over all cores: one -M main and -S secondaries, a time budget,
# resume from the previous output folder, then triage: every crash is promoted (minimized,
# deduplicated by content hash, named by rule set and invariant) into $FINDINGS, and a
# summary is printed. afl-fuzz exits 0 even when it saved crashes, so crashes are counted
# from the output folder.
# Usage: ci/nightly-afl.sh [seconds] [target]   target: cluster (default), fixed_holds, ...
set -euo pipefail
cd "$(dirname "$0")/.."
budget=${1:-3600}
target=${2:-cluster}
out=${AFL_OUT:-fuzz/afl-out/$target}
findings=${FINDINGS:-findings/afl-$target}
command -v cargo-afl >/dev/null 2>&1 || cargo install --locked cargo-afl
(cd fuzz/afl && cargo afl build --release)
bin=fuzz/afl/target/release/afl_$target
cargo build --release --quiet
mkdir -p "$out" "$findings" "corpus/$target"
if [ -d "$out/main/queue" ]; then
  input=-              # resume (old crashes move to crashes.<date>/, counted below)
else
  input=corpus/$target
  [ -n "$(ls -A "$input")" ] || printf 'seed' > "$input/seed"
fi
cores=$(nproc)
export AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_AUTORESUME=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1
pids=()
cargo afl fuzz -i "$input" -o "$out" -M main -V "$budget" "$bin" > "$out/main.log" 2>&1 & pids+=($!)
for i in $(seq 2 "$cores"); do
  cargo afl fuzz -i "$input" -o "$out" -S "s$i" -p exploit -V "$budget" "$bin" > "$out/s$i.log" 2>&1 & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || true; done
mapfile -t crashes < <(find "$out" -path '*/crashes*/id:*' -type f | sort)
echo "== $target: ${#crashes[@]} crash file(s) in $out"
if [ "${#crashes[@]}" -gt 0 ]; then
  # One promote over every crash: it keeps one minimized regression per (rule set,
  # invariant), skips what corpus/known.json lists, and never overwrites.
  target/release/isrfuzz promote "${crashes[@]}" --out "$findings" --target "$target" || true
fi
cargo afl whatsup -s "$out" || true
