#!/usr/bin/env bash
# Every cargo-fuzz target for a short budget, on stable (--sanitizer none, value profile).
# Fails if fixed_holds or decode crash (a hole in the complete rules, or a harness bug),
# or if kraft_diff does NOT crash with the KAFKA-21419 divergence (the harness still bites).
# Usage: ci/fuzz-smoke.sh [seconds-per-target]     (installs cargo-fuzz if missing)
# SMOKE_JOBS=N runs N targets at a time (default: every core).
# libFuzzer's seed is fixed (SMOKE_SEED, default 1), so a run is a prefix of one fixed
# sequence of inputs whatever the machine's speed: a crash here replays on any machine
# with the same seed (campaigns, not this smoke, are where new inputs come from).
set -euo pipefail
cd "$(dirname "$0")/.."
budget=${1:-30}
command -v cargo-fuzz >/dev/null 2>&1 || cargo install --locked cargo-fuzz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
jobs=${SMOKE_JOBS:-$(nproc)}
[[ $jobs =~ ^[0-9]+$ ]] && [ "$jobs" -ge 1 ] || { echo "error: SMOKE_JOBS \`$jobs\` is not a count >= 1" >&2; exit 2; }
# One build of every target first: the runs below then only start binaries, $jobs at a
# time (one core each; libFuzzer's fixed seed keeps each run a prefix of one sequence).
cargo fuzz build --sanitizer none >/dev/null
run_one() { # target
  local t=$1 seeds=()
  mkdir -p "$work/$t"
  # New inputs go to the scratch folder. fixed_holds and decode also read their committed
  # seeds; the diff targets start empty, so a crash is found by fuzzing, not by a seed.
  case "$t" in decode|fixed_holds) seeds=("corpus/$t") ;; esac
  cargo fuzz run --sanitizer none "$t" "$work/$t" "${seeds[@]}" -- \
    -max_total_time="$budget" -seed="${SMOKE_SEED:-1}" -use_value_profile=1 -artifact_prefix="$work/$t-" \
    > "$work/$t.log" 2>&1 || true
}
targets=(decode fixed_holds inkless_diff cluster kraft_diff)
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  run_one "$t" &
done
wait
status=0
for t in "${targets[@]}"; do
  crashes=$(find "$work" -maxdepth 1 -name "$t-crash-*" | wc -l)
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/$t.log" | grep -o '[0-9]*$' || true)
  # A target that crashes on its first input prints no status line at all (with padded
  # inputs the empty one is already a full history): then the count is unknown, not an error.
  [ -n "$execs" ] || execs=$(grep -Eo '#[0-9]+' "$work/$t.log" | tail -n 1 | tr -d '#' || true)
  what=$(grep -m1 -o 'isrfuzz [a-z_]*: .* violates [A-Z0-9-]* at step [0-9]*' "$work/$t.log" || true)
  echo "$t: ${execs:-?} executions, $crashes crash(es) ${what:+($what)}"
  case "$t" in
    decode|fixed_holds)
      if [ "$crashes" -ne 0 ]; then
        echo "FAIL: $t crashed"; tail -n 60 "$work/$t.log"; status=1
      fi ;;
    kraft_diff)
      if [ "$crashes" -eq 0 ] || ! grep -Eq 'violates (G2|G5|G1|G4|G6|G7|S1|E1)' "$work/$t.log"; then
        echo "FAIL: kraft_diff did not find the KAFKA-21419 divergence in ${budget}s"; status=1
      fi ;;
  esac
done
exit $status
