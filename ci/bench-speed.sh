#!/usr/bin/env bash
# Model speed, before and after: builds BASE_REV (from `git archive`, in a scratch folder)
# and the current tree, release builds, then measures both on one core (taskset -c
# $BENCH_CPU, default 1), alternating base and current run by run, RUNS runs each:
#  - hunt: histories/s on the default pairs, trunk:transients-tracked, trunk:complete and
#    complete alone (--seed 7 --max-histories $HISTORIES);
#  - libfuzzer: exec/s of kraft_diff and of trivial (the engine's own cost), $FUZZ_SECONDS
#    (default 10) each, `cargo fuzz build --sanitizer none` as ci/bench.sh; kraft_diff on complete:complete
#    so that it never stops; and kraft_diff's exec/s replaying a fixed corpus of 3,000
#    600-byte inputs once (`-runs=0`; inputs past 512 bytes are never padded, python3 makes them);
#  - afl (only if asked): the same under AFL++ (cargo-afl);
#  - exhaust: wall and CPU time of `exhaust --rules complete --depth 6` from the `kraft`
#    start (where the reassignment histories begin) pinned to the one core, and its wall
#    time unpinned (every core), $EXHAUST_RUNS runs (default 1), capped
#    at $EXHAUST_TIMEOUT_SECONDS (default 180; a capped run is recorded as "timeout") and
#    $EXHAUST_STATES_MAX states (default 5,000,000; about 3 GB per million).
# Rows are appended to $CSV (default docs/benchmarks-speed.csv) as they are measured, one
# session per run of this script; then `isrfuzz speed-report` rewrites the generated part
# of docs/benchmarks.md's "Model speed" section and docs/benchmarks-speed.svg from the
# latest session.
# Usage: ci/bench-speed.sh BASE_REV [RUNS] [HISTORIES]    (also: ci/bench.sh speed ...)
#   PARTS=hunt,libfuzzer,afl,exhaust,report (default: all but afl).
# Installs cargo-fuzz (and cargo-afl with PARTS containing afl) if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: ci/bench-speed.sh BASE_REV [RUNS 1..50] [HISTORIES 1000..10000000]"
fail() { echo "error: $1 ($usage)" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 3 ] || fail "expected 1 to 3 arguments, got $#"
base_arg=$1
runs=${2:-3}
histories=${3:-30000}
[[ $runs =~ ^[0-9]+$ ]] && [ "$runs" -ge 1 ] && [ "$runs" -le 50 ] || fail "RUNS \`$runs\` is not 1..50"
[[ $histories =~ ^[0-9]+$ ]] && [ "$histories" -ge 1000 ] && [ "$histories" -le 10000000 ] ||
  fail "HISTORIES \`$histories\` is not 1000..10000000"
parts=${PARTS:-hunt,libfuzzer,exhaust,report}
for p in ${parts//,/ }; do
  case $p in hunt|libfuzzer|afl|exhaust|report) ;; *) fail "unknown part \`$p\` in PARTS" ;; esac
done
for v in FUZZ_SECONDS EXHAUST_TIMEOUT_SECONDS EXHAUST_RUNS; do
  val=${!v:-1}
  [[ $val =~ ^[0-9]+$ ]] && [ "$val" -ge 1 ] && [ "$val" -le 3600 ] || fail "$v \`$val\` is not 1..3600"
done
[[ ${EXHAUST_STATES_MAX:-1} =~ ^[0-9]+$ ]] && [ "${EXHAUST_STATES_MAX:-1}" -ge 1 ] &&
  [ "${EXHAUST_STATES_MAX:-1}" -le 50000000 ] || fail "EXHAUST_STATES_MAX is not 1..50000000"
[[ ${BENCH_CPU:-1} =~ ^[0-9]+$ ]] && [ "${BENCH_CPU:-1}" -lt "$(nproc --all)" ] ||
  fail "BENCH_CPU \`${BENCH_CPU:-1}\` is not a core of this machine"
base=$(git rev-parse --verify --quiet "$base_arg^{commit}") || fail "BASE_REV \`$base_arg\` is not a commit"
fuzz_s=${FUZZ_SECONDS:-10}
exhaust_cap_s=${EXHAUST_TIMEOUT_SECONDS:-180}
exhaust_runs=${EXHAUST_RUNS:-1}
exhaust_states_max=${EXHAUST_STATES_MAX:-5000000}
cpu=${BENCH_CPU:-1}
csv=${CSV:-docs/benchmarks-speed.csv}
want() { [[ ",$parts," == *",$1,"* ]]; }
pinning=()
command -v taskset >/dev/null 2>&1 && pinning=(taskset -c "$cpu")
pin() { "${pinning[@]}" "$@"; }
if want exhaust && ! [ -x /usr/bin/time ]; then fail "PARTS has exhaust: it needs GNU time at /usr/bin/time"; fi

current=$(git rev-parse --short=7 HEAD)
# The current tree may have uncommitted changes to what is built: say so in its label.
[ -z "$(git status --porcelain -- src Cargo.toml Cargo.lock fuzz)" ] || current="$current+dirty"
base_short=$(git rev-parse --short=7 "$base")
session=$(date -u +%FT%TZ)
machine="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//; s/,/ /g') x$(nproc)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
t_script=$(date +%s)

# --- builds -------------------------------------------------------------------------
want libfuzzer && { command -v cargo-fuzz >/dev/null 2>&1 || cargo install --locked cargo-fuzz; }
want afl && { command -v cargo-afl >/dev/null 2>&1 || cargo install --locked cargo-afl; }
# A base revision is built once and kept in target/bench-speed/<commit>/ (a commit does not
# change); its dependencies build into target/bench-speed/build, shared between revisions.
cache="target/bench-speed/$base"
build_base() { # builds into $cache only what it lacks
  local src="$work/base-src" dir
  dir=$(pwd)
  mkdir -p "$cache" "$src"
  git archive "$base" | tar -x -C "$src"
  if ! [ -x "$cache/isrfuzz" ]; then
    (cd "$src" && CARGO_TARGET_DIR="$dir/target/bench-speed/build" cargo build --release --locked --quiet)
    cp "$dir/target/bench-speed/build/release/isrfuzz" "$cache/isrfuzz"
  fi
  if want libfuzzer && ! [ -x "$cache/trivial" ]; then
    for t in kraft_diff trivial; do
      (cd "$src" && cargo fuzz build --sanitizer none --target-dir "$dir/target/bench-speed/fuzz" "$t" >/dev/null 2>&1)
      cp "$dir/target/bench-speed/fuzz/x86_64-unknown-linux-gnu/release/$t" "$cache/$t"
    done
  fi
  if want afl && ! [ -x "$cache/afl_trivial" ]; then
    (cd "$src/fuzz/afl" && CARGO_TARGET_DIR="$dir/target/bench-speed/afl" cargo afl build --release >/dev/null 2>&1)
    for t in kraft_diff trivial; do cp "$dir/target/bench-speed/afl/release/afl_$t" "$cache/afl_$t"; done
  fi
}
need_base=false
[ -x "$cache/isrfuzz" ] || need_base=true
want libfuzzer && { [ -x "$cache/trivial" ] || need_base=true; }
want afl && { [ -x "$cache/afl_trivial" ] || need_base=true; }
if $need_base; then echo "building base $base_short"; build_base; fi
echo "building current $current"
cargo build --release --locked --quiet
mkdir -p "$work/current"
cp target/release/isrfuzz "$work/current/isrfuzz"
if want libfuzzer; then
  for t in kraft_diff trivial; do
    cargo fuzz build --sanitizer none "$t" >/dev/null 2>&1
    cp "fuzz/target/x86_64-unknown-linux-gnu/release/$t" "$work/current/$t"
  done
fi
if want afl; then
  (cd fuzz/afl && cargo afl build --release >/dev/null 2>&1)
  for t in kraft_diff trivial; do cp "fuzz/afl/target/release/afl_$t" "$work/current/afl_$t"; done
fi
t_built=$(date +%s)
dir_of() { if [ "$1" = base ]; then echo "$cache"; else echo "$work/current"; fi; }
# Each build reads the known findings of its own revision: a newer corpus/known.json can
# name invariants an older build does not have (it refuses the file).
git show "$base:corpus/known.json" > "$work/base-known.json"
cp corpus/known.json "$work/current-known.json"
known_of() { echo "$work/$1-known.json"; }
# `exhaust` reads corpus/known.json from where it runs: one folder per side with its own.
for side in base current; do
  mkdir -p "$work/$side-cwd/corpus"
  cp "$(known_of "$side")" "$work/$side-cwd/corpus/known.json"
done
abs_bin() { echo "$(cd "$(dir_of "$1")" && pwd)/isrfuzz"; }
rev_of() { if [ "$1" = base ]; then echo "$base_short"; else echo "$current"; fi; }

[ -f "$csv" ] || echo "session,machine,side,revision,measurement,run,value,unit,result" > "$csv"
row() { # side measurement run value unit result
  [ -n "$4" ] || { echo "error: no figure for $1 $2 run $3" >&2; exit 1; }
  echo "$session,$machine,$1,$(rev_of "$1"),$2,$3,$4,$5,$6" >> "$csv"
  echo "$1 $(rev_of "$1") $2 run $3: $4 $5 ($6)"
}
# Alternation: odd runs base first, even runs current first.
sides_of() { if [ $(($1 % 2)) = 1 ]; then echo base current; else echo current base; fi; }

# --- measurements ---------------------------------------------------------------------
hunt_rate() { # bin [--rules R] -> histories/s as hunt prints it
  local out one=()
  # One worker on the pinned core (a build from before `--jobs` has one anyway).
  "$1" hunt --help 2>/dev/null | grep -q -- '--jobs' && one=(--jobs 1)
  out=$(pin "$@" "${one[@]}" --seed 7 --max-histories "$histories" --seconds 600 --out "$work/hunt-out" 2>/dev/null || true)
  rm -rf "$work/hunt-out"
  grep -Eo '^[0-9]+ histories in [0-9.]+ s \([0-9]+/s\)' <<<"$out" | grep -Eo '[0-9]+/s' | tr -d '/s' ||
    { echo "error: no hunt rate from $*" >&2; exit 1; }
}
if want hunt; then
  for r in $(seq 1 "$runs"); do
    for side in $(sides_of "$r"); do
      b="$(dir_of "$side")/isrfuzz"
      k=$(known_of "$side")
      row "$side" hunt-default "$r" "$(hunt_rate "$b" hunt --known "$k")" histories/s ok
      for rules in trunk:transients-tracked trunk:complete complete; do
        row "$side" "hunt-$rules" "$r" "$(hunt_rate "$b" hunt --known "$k" --rules "$rules")" histories/s ok
      done
    done
  done
fi

libfuzzer_rate() { # binary -> execs/s over $fuzz_s seconds from an empty corpus
  rm -rf "$work/lf"; mkdir -p "$work/lf/corpus"
  local s e execs
  s=$(date +%s.%N)
  ISRFUZZ_RULES=complete:complete pin "$1" "$work/lf/corpus" -use_value_profile=1 -len_control=0 \
    -max_len=512 -seed=1 -max_total_time="$fuzz_s" -print_final_stats=1 \
    -artifact_prefix="$work/lf/" > "$work/lf.log" 2>&1 || true
  e=$(date +%s.%N)
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/lf.log" | grep -o '[0-9]*$' || true)
  [ -n "$execs" ] || { echo "error: no libFuzzer stats from $1" >&2; tail -n 5 "$work/lf.log" >&2; exit 1; }
  echo "$execs $e $s" | awk '{printf "%.0f", $1 / ($2 - $3)}'
}
# A fixed corpus: 3,000 inputs of 600 bytes from a seeded stream. Past 512 bytes no input is
# padded, so every build that decodes alike runs the same histories on it.
fixed_corpus() {
  mkdir -p "$work/fixed"
  python3 - "$work/fixed" <<'PY'
import random, sys
r = random.Random(1)
for i in range(3000):
    open(f"{sys.argv[1]}/in{i:05d}", "wb").write(bytes(r.getrandbits(8) for _ in range(600)))
PY
}
libfuzzer_replay() { # binary -> execs/s running every input of the fixed corpus once
  local s e
  s=$(date +%s.%N)
  ISRFUZZ_RULES=complete:complete pin "$1" -runs=0 "$work/fixed" > "$work/lfr.log" 2>&1 || true
  e=$(date +%s.%N)
  grep -q INITED "$work/lfr.log" || { echo "error: $1 did not replay the corpus" >&2; tail -n 5 "$work/lfr.log" >&2; exit 1; }
  echo "3000 $e $s" | awk '{printf "%.0f", $1 / ($2 - $3)}'
}
afl_rate() { # binary -> execs/s over $fuzz_s seconds from one seed, start-up included
  rm -rf "$work/afl"; mkdir -p "$work/afl/in"; printf 'seed' > "$work/afl/in/seed"
  local s e execs
  s=$(date +%s.%N)
  AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1 AFL_FAST_CAL=1 \
    AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_SKIP_CRASHES=1 ISRFUZZ_RULES=complete:complete \
    pin cargo afl fuzz -i "$work/afl/in" -o "$work/afl/out" -s 1 -V "$fuzz_s" "$1" > "$work/afl.log" 2>&1 || true
  e=$(date +%s.%N)
  execs=$(awk '/^execs_done/ {print $3}' "$work"/afl/out/*/fuzzer_stats 2>/dev/null | head -n 1)
  [ -n "$execs" ] || { echo "error: no AFL++ stats from $1" >&2; tail -n 5 "$work/afl.log" >&2; exit 1; }
  echo "$execs $e $s" | awk '{printf "%.0f", $1 / ($2 - $3)}'
}
for engine in libfuzzer afl; do
  want "$engine" || continue
  for r in $(seq 1 "$runs"); do
    for side in $(sides_of "$r"); do
      for t in kraft_diff trivial; do
        if [ "$engine" = libfuzzer ]; then v=$(libfuzzer_rate "$(dir_of "$side")/$t")
        else v=$(afl_rate "$(dir_of "$side")/afl_$t"); fi
        row "$side" "$engine-$t" "$r" "$v" execs/s ok
      done
      if [ "$engine" = libfuzzer ]; then
        [ -d "$work/fixed" ] || fixed_corpus
        row "$side" libfuzzer-kraft_diff-replay "$r" "$(libfuzzer_replay "$(dir_of "$side")/kraft_diff")" execs/s ok
      fi
    done
  done
done

# One exhaust run of a side, from the folder with that side's known findings; `pin` or
# nothing before the binary. Sets wall, user, sys and result (ok or timeout).
exhaust_run() { # side pin|free
  local bin rc
  bin=$(abs_bin "$1")
  local pinned=()
  [ "$2" = pin ] && pinned=("${pinning[@]}")
  set +e
  (cd "$work/$1-cwd" && /usr/bin/time -f '%e %U %S' -o "$work/exhaust.time" \
    timeout "$exhaust_cap_s" "${pinned[@]}" "$bin" exhaust \
    --rules complete --start kraft --depth 6 --states-max "$exhaust_states_max" \
    --out "$work/exhaust-out") > "$work/exhaust.log" 2>&1
  rc=$?
  set -e
  rm -rf "$work/exhaust-out"
  case $rc in
    0|1) result=ok ;;
    124) result=timeout ;;
    *) echo "error: exhaust exited $rc" >&2; tail -n 3 "$work/exhaust.log" >&2; exit 1 ;;
  esac
  read -r wall user sys < <(grep -E '^[0-9.]+ [0-9.]+ [0-9.]+$' "$work/exhaust.time")
  [ "$result" = timeout ] && wall=$exhaust_cap_s
  return 0
}
if want exhaust; then
  for r in $(seq 1 "$exhaust_runs"); do
    capped=0
    for side in $(sides_of "$r"); do
      # Wall time as the issue asks, and CPU time (user + system), which a shared core
      # disturbs less. About 0.9 M states at depth 6 (2026-12-01).
      exhaust_run "$side" pin
      [ "$result" = timeout ] && capped=$((capped + 1))
      row "$side" exhaust-complete-depth6 "$r" "$wall" s "$result"
      row "$side" exhaust-complete-depth6-cpu "$r" "$(echo "$user $sys" | awk '{printf "%.2f", $1 + $2}')" s "$result"
      # Unpinned: a build whose exhaust spreads over the cores (`--jobs`, default all)
      # uses them; a single-threaded one gets the same time as pinned.
      exhaust_run "$side" free
      row "$side" exhaust-complete-depth6-all-cores "$r" "$wall" s "$result"
    done
    # Both sides capped: more runs would only repeat the cap.
    [ "$capped" = 2 ] && break
  done
fi

echo "built in $((t_built - t_script)) s, measured in $(($(date +%s) - t_built)) s"
if want report; then
  target/release/isrfuzz speed-report --csv "$csv" --md docs/benchmarks.md --svg docs/benchmarks-speed.svg \
    --command "FUZZ_SECONDS=$fuzz_s EXHAUST_TIMEOUT_SECONDS=$exhaust_cap_s ci/bench.sh speed $base_arg $runs $histories" \
    --cpu "$cpu"
fi
