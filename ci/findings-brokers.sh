#!/usr/bin/env bash
# The data-plane findings judged by the real brokers of every release: each finding's
# witness history replayed with `isrfuzz conform --kafka V --brokers` (the release preset;
# the real controller and the real Partitions, logs and fetches, compared after every
# step). A cell says what the real brokers showed: the invariants violated while they
# agreed with the model at every step ("shows ..."), "agrees, nothing violated", the first
# disagreement's class, a stop at a step beyond the model, or "not expressible" (an
# Inkless-only event). One Markdown row per history.
# Usage: ci/findings-brokers.sh [VERSION...]   (default: every release the driver knows)
set -euo pipefail
cd "$(dirname "$0")/.."
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(4.0 4.1 4.2 4.3 4.4)
cargo build --release --quiet --bin isrfuzz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
files=(kip-101-scenario-1-truncate-to-hw-loses-an-acked-record
  kip-101-scenario-1-elr-on-an-isr-member-truncated-below-an-acked-record
  kip-101-scenario-2-truncate-to-hw-diverges kip-279-corner-case-kip-101-keeps-a-diverged-record
  complete_truncation_hw--D1--7e23d049ce6b0c8b complete_truncation_hw--D2--803fe075e77174ac
  complete_truncation_hw--D3--184d2955a817c1cc complete_truncation_kip-101--D4--1001fbbfd97e6a5b
  f18-stale-elr-member-elected-while-healing f18-readded-elr-member-elected-with-an-empty-log
  restarted-leader-forgets-its-waiting-acks-all-produce
  delete-records-catch-up-takes-the-leaders-log-start
  delete-records-follower-starts-over-at-the-leaders-log-start
  asserted-catch-up-drops-an-empty-epoch-at-the-end f22-restart-drops-the-empty-epoch-entry
  f21-operator-seal-leaves-a-follower-failed f22-unplaced-epoch-keeps-a-follower-out-for-good
  power-loss-on-a-lone-switched-replica-loses-the-unflushed-prefix)
printf '| history | rules it was found under |'; for v in "${versions[@]}"; do printf ' %s |' "$v"; done; echo
printf '|---|---|'; for _ in "${versions[@]}"; do printf -- '---|'; done; echo
for f in "${files[@]}"; do
  rules=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1])).get('rules') or 'trunk:complete')" \
    "corpus/regressions/$f.json")
  printf '| `%s` | `%s` |' "$f" "$rules"
  for v in "${versions[@]}"; do
    set +e
    target/release/isrfuzz conform --kafka "$v" --brokers "corpus/regressions/$f.json" --json \
      --out "$work/out" > "$work/r.json" 2> /dev/null
    set -e
    python3 - "$work/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
if r.get("error") and "Inkless-only" in r["error"]:
    cell = "not expressible (Inkless-only events)"
elif r.get("error"):
    cell = "error: " + r["error"]
elif r["skipped"]:
    cell = "not expressible (" + ", ".join(sorted(r["skipped_by_reason"])) + ")"
elif r["disagreements"]:
    cell = "differs: " + ", ".join(sorted(r["disagreements"]))
elif r.get("stopped_by_reason"):
    cell = "stopped: " + ", ".join(sorted(r["stopped_by_reason"]))
elif r["shown"]:
    cell = "shows " + ", ".join(sorted(r["shown"]))
else:
    cell = "agrees, nothing violated"
# An Inkless history is judged up to its first Inkless-only step; say what was left out,
# so a prefix that agrees is never read as the whole history agreeing.
unjudged = sum(r.get("unjudged_steps_by_reason", {}).values())
if unjudged and not r.get("error") and cell.startswith("stopped"):
    cell = f"{cell}; {unjudged} steps from the first Inkless-only step not expressible"
elif unjudged and not r.get("error"):
    cell = f"{cell} up to the first Inkless-only step; {unjudged} steps from it not expressible"
print(f" {cell} ({r.get('broker_calls', 0)} calls) |", end="")
PY
  done
  echo
done
