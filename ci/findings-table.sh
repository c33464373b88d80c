#!/usr/bin/env bash
# The KRaft findings judged by the real controller of every release: each finding's
# regression history replayed with `isrfuzz conform --kafka V` (the release preset), one
# Markdown row per history. A cell says what the real controller showed on it: the
# control-plane invariants it violated while agreeing with the model at every request
# ("shows ..."), "agrees, nothing violated", or the first disagreement's class.
# Usage: ci/findings-table.sh [VERSION...]   (default: every release the driver knows)
set -euo pipefail
cd "$(dirname "$0")/.."
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(4.0 4.1 4.2 4.3 4.4)
cargo build --release --quiet --bin isrfuzz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
files=(f1-unclean-election-completes f2-zk-style-lone-adding-isr f2-zk-style-lone-adding-isr-elr-on
  f9-cancel-reorders-replicas f14-always-write-override-clears-lists f17-elr-names-a-removed-replica
  f18-stale-elr-member-elected f18-readded-elr-member-elected-with-an-empty-log
  f18-stale-elr-member-elected-while-healing f19-last-known-leader-not-a-replica
  f19-non-replica-leader-strands-a-reassignment f19-4.0-elects-a-fenced-non-replica
  f20-last-known-leader-elected-after-its-power-loss f23-min-isr-change-forgets-the-last-leader
  f24-elr-turned-off-keeps-an-empty-isr f25-deleted-topic-in-the-elr-index-fails-the-registration
  f25-deleted-topic-in-the-elr-index-fails-the-unregistration f26-elr-turned-back-on-elects-a-stale-elr-member
  f27-a-stale-elr-with-elr-off-shrinks-the-completing-isr
  f28-elr-turned-on-over-a-leaderless-partition-keeps-no-last-leader
  f29-a-failed-directory-assignment-leaves-leader-and-isr-outside-the-replicas
  kafka-21419-repro kafka-21419-repro-elr-on kafka-21419-override-drops-targeted-replicas)
printf '| history |'; for v in "${versions[@]}"; do printf ' %s |' "$v"; done; echo
printf '|---|'; for _ in "${versions[@]}"; do printf -- '---|'; done; echo
for f in "${files[@]}"; do
  printf '| `%s` |' "$f"
  for v in "${versions[@]}"; do
    set +e
    target/release/isrfuzz conform --kafka "$v" "corpus/regressions/$f.json" --json \
      --out "$work/out" > "$work/r.json" 2> /dev/null
    set -e
    python3 - "$work/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
if r["skipped"]:
    cell = "not expressible"
elif r["disagreements"]:
    cell = "differs: " + ", ".join(sorted(r["disagreements"]))
elif r["shown"]:
    cell = "shows " + ", ".join(sorted(r["shown"]))
else:
    cell = "agrees, nothing violated"
print(f" {cell} ({r['requests']} req.) |", end="")
PY
  done
  echo
done
