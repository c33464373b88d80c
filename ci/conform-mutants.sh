#!/usr/bin/env bash
# The conformance mutation benchmark: each planted model mutant of ci/conform-mutants.json
# (a controller rule, an error path or a registration field made wrong in the model) is
# applied to a scratch copy of the committed tree, built, and run under generated conform
# (`conform --kafka V --seconds S --seed 1`) on the release its entry names. Caught: the
# run reports a disagreement; the figure is the seconds to the first one. A mutant that
# does not build is unviable; one that ends the run otherwise (a panic, a JVM failure) is
# listed as such, not as caught. Writes the table into docs/conformance-mutants.md between
# its markers (a re-run of every mutant replaces it) and prints it.
# Usage: ci/conform-mutants.sh [SECONDS] [JOBS] [ID-PREFIX...]   (default 60 2, every mutant)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
jobs=${2:-2}
shift 2 || true
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$@" > "$work/ids" <<'PY'
import json, sys
wanted = sys.argv[1:]
for m in json.load(open("ci/conform-mutants.json")):
    if not wanted or any(m["id"].startswith(w) for w in wanted):
        print(m["id"])
PY
total=$(wc -l < "$work/ids")
echo "conform-mutants: $total mutants, $seconds s each, $jobs at a time"
# The driver's classpath of each release named, built once before the workers share it.
cargo build --release --quiet --bin isrfuzz
for v in $(python3 -c 'import json; print(" ".join(sorted({m["kafka"] for m in json.load(open("ci/conform-mutants.json"))})))'); do
  target/release/isrfuzz conform --kafka "$v" --max-histories 1 --seed 1 --json --out "$work/warm" > /dev/null 2>&1 || true
done

worker() {
  local n=$1 tree="$work/tree-$n" target="$work/target-$n"
  mkdir -p "$tree"
  git archive HEAD | tar -x -C "$tree"
  local i=0
  while read -r id; do
    i=$((i + 1))
    [ $(( (i - 1) % jobs )) -eq $((n - 1)) ] || continue
    # A mutant whose text is gone (a refactor moved it) is reported as stale, and the
    # worker goes on with the next one.
    python3 - "$tree" "$id" apply <<'PY' || { echo '{"stale": true}' > "$work/result-$id.json"; echo "  $id stale"; continue; }
import json, sys
tree, wanted, _ = sys.argv[1:]
m = next(m for m in json.load(open("ci/conform-mutants.json")) if m["id"] == wanted)
path = tree + "/" + m["file"]
text = open(path).read()
assert text.count(m["old"]) == 1, wanted + ": its text is not once in " + m["file"]
open(path + ".orig", "w").write(text)
open(path, "w").write(text.replace(m["old"], m["new"]))
PY
    local file kafka result="$work/result-$id.json"
    read -r file kafka < <(python3 -c "import json,sys; m=next(m for m in json.load(open('ci/conform-mutants.json')) if m['id']==sys.argv[1]); print(m['file'], m['kafka'])" "$id")
    # Incremental and without debug info: a mutant rebuilds in about half the time, and
    # the run's pace is the JVM's (the model is a few per cent of it).
    if (cd "$tree" && CARGO_TARGET_DIR="$target" CARGO_INCREMENTAL=1 CARGO_PROFILE_RELEASE_DEBUG=false \
      cargo build --release --quiet --bin isrfuzz) > "$work/build-$id.log" 2>&1; then
      "$target/release/isrfuzz" conform --kafka "$kafka" --seconds "$seconds" --seed 1 --json \
        --driver "$root/conformance" --out "$work/findings-$id" > "$result" 2> "$work/run-$id.err" || true
    else
      echo '{"unviable": true}' > "$result"
    fi
    mv "$tree/$file.orig" "$tree/$file"
    echo "  $id done"
  done < "$work/ids"
}
for n in $(seq "$jobs"); do worker "$n" & done
wait

python3 - "$work" "$seconds" "$(git rev-parse --short HEAD)" <<'PY'
import json, os, sys, datetime
work, seconds, commit = sys.argv[1], sys.argv[2], sys.argv[3]
mutants = json.load(open("ci/conform-mutants.json"))
ids = open(work + "/ids").read().split()
rows, caught, viable = [], 0, 0
for m in (m for m in mutants if m["id"] in ids):
    try:
        r = json.load(open("%s/result-%s.json" % (work, m["id"])))
    except (OSError, ValueError):
        r = {"error": "no result (the run printed nothing readable)"}
    if r.get("stale"):
        verdict, first = "stale (its text is not once in its file)", "–"
    elif r.get("unviable"):
        verdict, first = "unviable (does not build)", "–"
    elif r.get("disagreements"):
        viable += 1; caught += 1
        verdict = "caught: " + ", ".join(sorted(r["disagreements"]))[:60]
        first = "%.1f" % r["first_disagreement_seconds"]
    elif r.get("error"):
        viable += 1
        verdict, first = "not caught: the run failed (%s)" % r["error"][:60], "–"
    else:
        viable += 1
        verdict, first = "not caught (%d histories)" % r.get("histories", 0), "–"
    rows.append("| %s | %s | %s | %s | %s |" % (m["id"], m["covers"], m["kafka"], verdict, first))
date = datetime.date.today().isoformat()
table = "\n".join([
    "`ci/conform-mutants.sh %s` (%s, commit %s, %d cores): **%d of %d viable mutants caught (%.0f %%)**."
    % (seconds, date, commit, os.cpu_count(), caught, viable, 100.0 * caught / max(viable, 1)),
    "",
    "| mutant | covers | release | verdict | seconds to the first disagreement |",
    "|---|---|---|---|---|",
] + rows)
print(table)
path = "docs/conformance-mutants.md"
begin, end = "<!-- conform-mutants: begin -->", "<!-- conform-mutants: end -->"
text = open(path).read() if os.path.exists(path) else ""
if len(ids) == len(mutants) and begin in text and end in text:
    head, rest = text.split(begin, 1)
    open(path, "w").write(head + begin + "\n\n" + table + "\n\n" + end + rest.split(end, 1)[1])
    print("written to " + path)
PY
