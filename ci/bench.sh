#!/usr/bin/env bash
# The planted-bug benchmark, end to end, on one core (taskset -c $BENCH_CPU, default 0):
#  1. `isrfuzz bench`: model throughput per family, and time to detection by hunt and exhaust;
#  2. engine throughput: exec/s of every cargo-fuzz target and of `trivial` (the engine's
#     own per-execution cost), under libFuzzer and AFL++, in the same run;
#  3. time to detection of every planted bug from an empty corpus by libFuzzer, AFL++ and
#     AFL++ with state feedback (ISRFUZZ_STATE_FEEDBACK=1), $TRIALS trials of $BUDGET s;
#  4. `isrfuzz bench-report`: docs/benchmarks.md and docs/benchmarks.svg from the CSV.
# PARTS=rediscover (not in the default): time to rediscovery of every known mechanism and
# planted bug, `isrfuzz bench --parts rediscover`, 10 seeds of 60 s, with --jobs 1 pinned to
# core $BENCH_CPU and --jobs 2 pinned to cores $BENCH_CPUS (default 0,1).
# Rows go to $REDISCOVERY_CSV (default docs/rediscovery.csv); `report` renders its section.
# Rows are appended to $CSV (default docs/benchmarks.csv) as they are measured.
# Usage: ci/bench.sh [trials] [budget-seconds]   (installs cargo-fuzz and cargo-afl if missing)
#   PARTS=model,throughput,engines,report  choose steps; BUGS=CE-a,CE-d  choose bugs;
#   ENGINES=libfuzzer,afl,afl-state  choose the engines of the engines step (default all).
#        ci/bench.sh speed BASE_REV [RUNS] [HISTORIES]
#   model speed of the current tree against BASE_REV, before/after (ci/bench-speed.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = speed ]; then shift; exec ci/bench-speed.sh "$@"; fi
usage="usage: ci/bench.sh [TRIALS 1..1000] [BUDGET_SECONDS 1..3600] | ci/bench.sh speed BASE_REV [RUNS] [HISTORIES]"
[ $# -le 2 ] || { echo "error: expected at most 2 arguments, got $# ($usage)" >&2; exit 2; }
trials=${1:-10}
budget=${2:-10}
[[ $trials =~ ^[0-9]+$ ]] && [ "$trials" -ge 1 ] && [ "$trials" -le 1000 ] ||
  { echo "error: TRIALS \`$trials\` is not 1..1000 ($usage)" >&2; exit 2; }
[[ $budget =~ ^[0-9]+$ ]] && [ "$budget" -ge 1 ] && [ "$budget" -le 3600 ] ||
  { echo "error: BUDGET_SECONDS \`$budget\` is not 1..3600 ($usage)" >&2; exit 2; }
csv=${CSV:-docs/benchmarks.csv}
cpu=${BENCH_CPU:-0}
parts=${PARTS:-model,throughput,engines,report}
tput_s=${THROUGHPUT_SECONDS:-10}
want() { [[ ",$parts," == *",$1,"* ]]; }
pin() { taskset -c "$cpu" "$@"; }

command -v cargo-fuzz >/dev/null 2>&1 || cargo install --locked cargo-fuzz
command -v cargo-afl >/dev/null 2>&1 || cargo install --locked cargo-afl
cargo build --release --quiet
bin=target/release/isrfuzz
if want throughput || want engines; then
  cargo fuzz build --sanitizer none >/dev/null 2>&1
  (cd fuzz/afl && cargo afl build --release >/dev/null 2>&1)
fi
lf=fuzz/target/x86_64-unknown-linux-gnu/release
afl=fuzz/afl/target/release
date=$(date -u +%F)
machine="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//; s/,/ /g') x$(nproc)"
[ -f "$csv" ] || echo "date,machine,engine,bug,invariant,trial,result,seconds,execs,triggered_s" > "$csv"
row() { echo "$date,$machine,$*" >> "$csv"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1 AFL_FAST_CAL=1 \
  AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_SKIP_CRASHES=1
bugs_arg=()
[ -n "${BUGS:-}" ] && bugs_arg=(--bugs "$BUGS")

if want rediscover; then
  rcsv=${REDISCOVERY_CSV:-docs/rediscovery.csv}
  cpus=${BENCH_CPUS:-0,1}
  pin "$bin" bench --parts rediscover --trials 10 --jobs 1 --csv "$rcsv"
  taskset -c "$cpus" "$bin" bench --parts rediscover --trials 10 --jobs 2 --csv "$rcsv"
fi

if want model; then
  pin "$bin" bench --trials "$trials" --budget-seconds 20 "${bugs_arg[@]}" --csv "$csv"
fi

# libFuzzer: time one run; prints "<seconds> <execs> <crashed 0/1>".
libfuzzer_run() { # target seconds seed [extra env...]
  local t=$1 secs=$2 seed=$3; shift 3
  rm -rf "$work/lf"; mkdir -p "$work/lf/corpus"
  local s e
  s=$(date +%s.%N)
  env "$@" taskset -c "$cpu" "$lf/$t" "$work/lf/corpus" -use_value_profile=1 -len_control=0 \
    -max_len=512 -seed="$seed" -max_total_time="$secs" -print_final_stats=1 \
    -artifact_prefix="$work/lf/" > "$work/lf.log" 2>&1 || true
  e=$(date +%s.%N)
  local execs crashed=0
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/lf.log" | grep -o '[0-9]*$' || true)
  [ -n "$execs" ] || execs=$(grep -Eo '#[0-9]+' "$work/lf.log" | tail -n 1 | tr -d '#' || true)
  ls "$work/lf/" | grep -q '^crash-' && crashed=1
  echo "$(echo "$e - $s" | bc) ${execs:-0} $crashed"
}

# AFL++: one run until the first crash or the budget; prints "<seconds> <execs> <crashed>".
afl_run() { # target seconds seed [extra env...]
  local t=$1 secs=$2 seed=$3; shift 3
  rm -rf "$work/afl"; mkdir -p "$work/afl/in"; printf 'seed' > "$work/afl/in/seed"
  local s e
  s=$(date +%s.%N)
  env "$@" AFL_BENCH_UNTIL_CRASH=1 taskset -c "$cpu" cargo afl fuzz -i "$work/afl/in" \
    -o "$work/afl/out" -s "$seed" -V "$secs" "$afl/afl_$t" > "$work/afl.log" 2>&1 || true
  e=$(date +%s.%N)
  local execs crashed
  execs=$(grep -h '^execs_done' "$work"/afl/out/*/fuzzer_stats 2>/dev/null | awk '{print $3}' | head -n 1)
  crashed=$(find "$work/afl/out" -path '*/crashes*/id:*' -type f | wc -l)
  echo "$(echo "$e - $s" | bc) ${execs:-0} $([ "$crashed" -gt 0 ] && echo 1 || echo 0)"
}

if want throughput; then
  # Diff targets on complete:complete so that nothing crashes; same code path and cost.
  for t in trivial kraft_diff inkless_diff cluster fixed_holds decode; do
    read -r secs execs _ < <(libfuzzer_run "$t" "$tput_s" 1 ISRFUZZ_RULES=complete:complete)
    row "libfuzzer,$t,,1,throughput,$secs,$execs,"
    echo "libfuzzer $t: $execs execs in $secs s"
    read -r secs execs _ < <(afl_run "$t" "$tput_s" 1 ISRFUZZ_RULES=complete:complete)
    row "afl,$t,,1,throughput,$secs,$execs,"
    echo "afl       $t: $execs execs in $secs s"
  done
fi

if want engines; then
  while IFS='|' read -r name rules inv _start fix; do
    if [ -n "${BUGS:-}" ] && [[ ",$BUGS," != *",$name,"* ]]; then continue; fi
    for trial in $(seq 1 "$trials"); do
      for engine in libfuzzer afl afl-state; do
        [[ ",${ENGINES:-libfuzzer,afl,afl-state}," == *",$engine,"* ]] || continue
        env_args=(ISRFUZZ_RULES="$rules:complete" ISRFUZZ_UNTIL="$inv")
        # The bug's own violations only, where its rule set's known holes share them.
        [ -n "$fix" ] && env_args+=(ISRFUZZ_PLANTED_FIX="$fix")
        case $engine in
          libfuzzer) read -r secs execs crashed < <(libfuzzer_run kraft_diff "$budget" "$trial" "${env_args[@]}") ;;
          afl) read -r secs execs crashed < <(afl_run kraft_diff "$budget" "$trial" "${env_args[@]}") ;;
          afl-state) read -r secs execs crashed < <(afl_run kraft_diff "$budget" "$trial" "${env_args[@]}" ISRFUZZ_STATE_FEEDBACK=1) ;;
        esac
        result=timeout; [ "$crashed" = 1 ] && result=detected
        row "$engine,$name,$inv,$trial,$result,$secs,$execs,"
        echo "$engine $name $inv trial $trial: $result after $secs s ($execs execs)"
      done
    done
  done < <("$bin" bench --list-bugs)
fi

if want report; then
  "$bin" bench-report --csv "$csv" --md docs/benchmarks.md --svg docs/benchmarks.svg \
    --rediscovery "${REDISCOVERY_CSV:-docs/rediscovery.csv}"
fi
