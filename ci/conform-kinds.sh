#!/usr/bin/env bash
# What generated histories send to the real controller of each release: `isrfuzz conform
# --kafka V --seconds S --seed SEED` (controller only, one core: `taskset -c 0`), one
# Markdown row per request kind and option, one column per release, and the histories,
# requests, disagreements and new violations shown of each run. A kind a release never received is marked
# "0"; docs/conformance.md says which are impossible there.
# Usage: ci/conform-kinds.sh [SECONDS] [SEED] [VERSION...]   (default 60 3 4.0 4.1 4.2 4.3 4.4)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
seed=${2:-3}
shift 2 || true
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(4.0 4.1 4.2 4.3 4.4)
cargo build --release --quiet --bin isrfuzz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for v in "${versions[@]}"; do
  taskset -c 0 target/release/isrfuzz conform --kafka "$v" --seconds "$seconds" --seed "$seed" --json \
    --out "$work/findings-$v" > "$work/$v.json" 2> "$work/$v.err" || true
done
python3 - "$work" "${versions[@]}" <<'PY'
import json, sys
work, versions = sys.argv[1], sys.argv[2:]
runs = [json.load(open("%s/%s.json" % (work, v))) for v in versions]
for r in runs:
    if "error" in r:
        sys.exit("conform-kinds: a run failed: " + r["error"])
kinds = sorted({k for r in runs for k in r["sent_by_kind"] if k != "reset"})
fmt = lambda n: "{:,}".format(n)
print("| request | " + " | ".join(r["release"] for r in runs) + " |")
print("|---|" + "---|" * len(runs))
for k in kinds:
    print("| %s | %s |" % (k, " | ".join(fmt(r["sent_by_kind"].get(k, 0)) for r in runs)))
print("| **histories** | %s |" % " | ".join(fmt(r["histories"]) for r in runs))
print("| **requests compared** | %s |" % " | ".join(fmt(r["requests"]) for r in runs))
print("| **disagreements** | %s |" % " | ".join(fmt(sum(r["disagreements"].values())) for r in runs))
print("| **violations shown, new (rule set x invariant)** | %s |" % " | ".join(fmt(r["shown_new"]) for r in runs))
PY
