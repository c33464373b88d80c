#!/usr/bin/env bash
# Hostile-input campaign: mutate the corpus histories structure-aware (numbers to extremes,
# fields dropped or duplicated, huge arrays, events repeated) and write random raw bytes,
# then run `replay` and `promote` on each under a memory and CPU bound (prlimit: 512 MiB,
# 10 s of CPU; a 20 s wall-clock timeout on top). Counts outcomes by exit code; fails if any
# run panicked (101), aborted (134 or another signal) or timed out.
# Usage: ci/hostile.sh [BUDGET_SECONDS]   (default 300)
set -euo pipefail
cd "$(dirname "$0")/.."
budget=${1:-300}
cargo build --release --quiet --bin isrfuzz
bin=${CARGO_TARGET_DIR:-target}/release/isrfuzz
command -v prlimit >/dev/null || { echo "ci/hostile.sh needs prlimit (util-linux)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "ci/hostile.sh needs python3" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "ci/hostile.sh needs /usr/bin/time (GNU time)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
seeds=$(find corpus -name '*.json' ! -name known.json | sort)
declare -A counts
bad=0
end=$((SECONDS + budget))
round=0
while [ $SECONDS -lt $end ]; do
  round=$((round + 1))
  rm -rf "$tmp/in" "$tmp/out"; mkdir -p "$tmp/in" "$tmp/out"
  # 40 mutated histories and 10 raw byte files per round.
  python3 - "$tmp/in" "$round" $seeds <<'PY'
import json, os, random, sys
out, rnd, seeds = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
r = random.Random(rnd)
EXTREMES = [0, -1, 1, 2, -2, 2**31 - 1, -2**31, 2**31, 2**63 - 1, -2**63, 2**64, 1e308, 0.5,
            86_400_000, 86_400_001, 3_600_000, 1_000_000_000, 1_000_001]
def mutate(v, depth=0):
    if isinstance(v, bool) or v is None:
        return r.choice([True, False, None, 0, "x"])
    if isinstance(v, (int, float)):
        return r.choice(EXTREMES)
    if isinstance(v, str):
        return r.choice(["", "x" * r.choice([1, 1000, 100000]), v + "+" + v, "complete+" * 50, v])
    if isinstance(v, list):
        op = r.randrange(5)
        if op == 0 and v:
            return [mutate(x, depth + 1) if r.random() < 0.3 else x for x in v]
        if op == 1 and v:
            return v * r.choice([2, 10, 100, 1100])
        if op == 2 and v:
            return v[: r.randrange(len(v))]
        if op == 3:
            return [r.choice(EXTREMES) for _ in range(r.choice([65, 1000]))]
        return [mutate(x, depth + 1) for x in v]
    if isinstance(v, dict):
        v = dict(v)
        keys = list(v)
        op = r.randrange(4)
        if op == 0 and keys:
            del v[r.choice(keys)]
        elif op == 1 and keys:
            k = r.choice(keys); v[k] = mutate(v[k], depth + 1)
        elif op == 2:
            v[r.choice(["extra", "format", "ms", "partition", "broker_config"])] = r.choice(EXTREMES)
        elif keys:
            for k in keys:
                if r.random() < 0.3:
                    v[k] = mutate(v[k], depth + 1)
        return v
    return v
for i in range(40):
    h = json.load(open(r.choice(seeds)))
    for _ in range(r.choice([0, 1, 1, 2, 3])):
        h = mutate(h)
    text = json.dumps(h)
    if r.random() < 0.1:  # a key given twice
        text = text.replace('"format": 1', '"format": 1, "format": 1', 1)
    if r.random() < 0.05:  # truncated
        text = text[: r.randrange(len(text) + 1)]
    if r.random() < 0.1:  # long idle steps at a tiny lag
        text = json.dumps({"format": 1, "brokers": list(range(1, r.choice([4, 17]))),
            "broker_config": {"replica_lag_time_max_ms": r.choice([2, 3, 30000])},
            "events": [{"op": "create_partition", "replicas": [1, 2, 3]}] * r.choice([1, 8])
                      + [{"op": "advance_time", "ms": r.choice([86_400_000, 10**6])}] * r.choice([1, 5, 1000])})
    open(os.path.join(out, f"m{i}.json"), "w").write(text)
for i in range(10):
    n = r.choice([0, 1, 7, 64, 4096, 65536])
    open(os.path.join(out, f"crash-{i}"), "wb").write(os.urandom(n))
PY
  for f in "$tmp"/in/*; do
    for cmd in replay promote; do
      [ $SECONDS -lt $end ] || break 2
      set +e
      extra=(); [ "$cmd" = promote ] && extra=(--out "$tmp/out")
      timeout -s KILL 20 prlimit --as=536870912 --cpu=10 -- \
        "$bin" "$cmd" "$f" "${extra[@]}" >/dev/null 2>"$tmp/err"
      rc=$?
      set -e
      counts[$cmd:$rc]=$(( ${counts[$cmd:$rc]:-0} + 1 ))
      lines=$(wc -l < "$tmp/err")
      case $rc in
        0|1|3) ;;
        2) if [ "$lines" -ne 1 ]; then echo "not one line ($lines): $cmd $(basename "$f")"; bad=$((bad + 1)); fi ;;
        *) echo "exit $rc: $cmd $f"; cp "$f" "hostile-failure-$cmd-$rc-$round-$(basename "$f")"; bad=$((bad + 1)) ;;
      esac
    done
  done
  ls -a "$tmp/out" | grep -q '^\.tmp-' && { echo "temp file left in round $round"; bad=$((bad + 1)); }
done
# Worst-case histories (a fixed section, whatever the budget): valid histories at the work
# budget (TASK_WORK_MAX) and the event limit, in the shapes that cost most: 1,023 time steps
# each full of notes on 2 or 3 brokers and one partition, 2 brokers on 8 partitions (most
# notes), 16 brokers on one (most time), and produces between the steps. Measured in
# docs/benchmarks.md#worst-case-history (at most 3.4 s, 171 MB); a run over these limits
# (about twice that) fails the campaign.
worst_seconds_max=7
worst_rss_kb_max=$((350 * 1024))
mkdir -p "$tmp/worst"
python3 - "$tmp/worst" <<'PY'
import json, sys
WORK_MAX, EVENTS_MAX = 4_000_000, 1024  # check::history::{TASK_WORK_MAX, EVENTS_MAX}
def history(brokers, partitions, produce_every=0, lag_ms=2):
    ev = [{"op": "create_partition", "replicas": brokers}] * partitions
    left = EVENTS_MAX - len(ev)
    steps = left - (left + produce_every - 1) // produce_every if produce_every else left
    runs = WORK_MAX // (steps * len(brokers) * partitions)
    advance = {"op": "advance_time", "ms": (runs - 1) * max(lag_ms // 2, 1)}
    for i in range(left):
        ev.append({"op": "produce", "records": 1000} if produce_every and i % produce_every == 0 else advance)
    return {"format": 3, "brokers": brokers,
            "broker_config": {"replica_lag_time_max_ms": lag_ms}, "events": ev}
shapes = {"b2-idle": history([1, 2], 1), "b3-idle": history([1, 2, 3], 1),
          "b3-produce": history([1, 2, 3], 1, 2), "b2p8-idle": history([1, 2], 8),
          "b16-idle": history(list(range(1, 17)), 1)}
for name, h in shapes.items():
    json.dump(h, open(f"{sys.argv[1]}/{name}.json", "w"))
PY
for f in "$tmp"/worst/*.json; do
  for mode in plain md svg; do
    args=(); [ $mode = md ] && args=(--report md); [ $mode = svg ] && args=(--svg "$tmp/worst/out.svg")
    set +e
    /usr/bin/time -f "%e %M" -o "$tmp/time" "$bin" replay "$f" "${args[@]}" >/dev/null 2>"$tmp/err"
    rc=$?
    set -e
    read -r secs rss_kb < <(tail -1 "$tmp/time")
    echo "  worst case $(basename "$f" .json) $mode: exit $rc, $secs s, $((rss_kb / 1024)) MB"
    if [ $rc -gt 1 ] || awk -v s="$secs" -v m="$worst_seconds_max" 'BEGIN { exit !(s > m) }' \
        || [ "$rss_kb" -gt "$worst_rss_kb_max" ]; then
      echo "worst case over the bound ($worst_seconds_max s, $((worst_rss_kb_max / 1024)) MB) or failing: $(basename "$f") $mode"
      bad=$((bad + 1))
    fi
  done
done
echo "hostile campaign: $budget s, $round rounds; outcomes by command and exit code (137 = killed: timeout or CPU limit):"
for k in $(printf '%s\n' "${!counts[@]}" | sort); do echo "  $k ${counts[$k]}"; done
if [ "$bad" -gt 0 ]; then echo "FAILED: $bad bad outcomes (inputs copied to ./hostile-failure-*)"; exit 1; fi
echo "ok: no panic, abort, timeout or multi-line error"
