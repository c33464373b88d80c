#!/usr/bin/env bash
# A controller change judged with the real code (docs/reviewing-a-change.md), on Apache Kafka
# 4.3.1: the KAFKA-21419 report's proposed fix and its always-write companion, each written as
# a patch (conformance/patches/), applied to 4.3.1's sources and compiled against its jars.
#  1. The JIRA repro and histories 3-5 on the stock release and on each patched build, each
#     history's shown invariants asserted exactly, with 0 disagreements against the model's
#     matching variant; then SECONDS of generated histories on each patched build.
#     The same fix built here as one's own jar and judged with --classpath.
#  2. Bad input: one line and exit 2, no JVM and no scratch folder left behind.
#  3. A local snapshot: 4.3.1's jars published to the local Maven repository as
#     4.3.99-SNAPSHOT (as ./gradlew publishToMavenLocal would lay them out) and judged.
# Usage: ci/conform-change.sh [SECONDS]   (default 20)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
cargo build --release --quiet --bin isrfuzz
bin=$PWD/target/release/isrfuzz
work=$(mktemp -d)
repo=${ISRFUZZ_MAVEN_REPOSITORY:-$HOME/.m2/repository}
snapshot=4.3.99-SNAPSHOT
cleanup() {
  rm -rf "$work"
  for a in kafka-metadata kafka-server-common kafka-clients kafka-raft kafka-storage \
    kafka-storage-api kafka_2.13 kafka-server; do
    rm -rf "$repo/org/apache/kafka/$a/$snapshot"
  done
}
trap cleanup EXIT
k=corpus/kraft_diff
fix=conformance/patches/kafka-21419.patch
always=conformance/patches/kafka-21419-always-write.patch

# verdict NAME HISTORY EXPECTED ARGS...: the history's shown invariants are exactly EXPECTED
# (comma-separated, "-" for none), with no disagreement.
verdict() {
  local name=$1 history=$2 expected=$3
  shift 3
  "$bin" conform "$@" "$history" --json --out "$work/findings" > "$work/r.json" 2> "$work/r.err" || true
  python3 - "$work/r.json" "$name" "$history" "$expected" <<'PY'
import json, sys
path, name, history, expected = sys.argv[1:]
r = json.load(open(path))
if "error" in r:
    sys.exit("conform-change: %s %s: %s" % (name, history, r["error"]))
shown = sorted(next(iter(r["shown_by_history"].values()), []))
want = sorted(x for x in expected.split(",") if x != "-")
if r["disagreements"] or shown != want:
    sys.exit("conform-change: %s %s: shown %s (wanted %s), disagreements %s"
             % (name, history, shown, want, r["disagreements"]))
print("%-44s %-45s %s" % (r["code"], history.split("/")[-1], ",".join(shown) or "-"))
PY
}

for h in kafka-21419-repro:G2,G5 history-3-override-back-to-original:S1,G7 \
  history-4-rf-up-override:G1,G4 history-5-drop-then-readd:G2,G5; do
  verdict stock "$k/${h%%:*}.json" "${h#*:}" --kafka 4.3.1
done
for h in kafka-21419-repro:- history-3-override-back-to-original:S1,G7 \
  history-4-rf-up-override:G1,G4 history-5-drop-then-readd:G2,G5; do
  verdict proposed-fix "$k/${h%%:*}.json" "${h#*:}" --kafka 4.3.1 --patch "$fix" \
    --rules kafka-4.3+derivation=kafka-21419
done
for h in kafka-21419-repro:- history-3-override-back-to-original:- \
  history-4-rf-up-override:- history-5-drop-then-readd:G2,G5; do
  verdict always-write "$k/${h%%:*}.json" "${h#*:}" --kafka 4.3.1 --patch "$always" \
    --rules kafka-4.3+derivation=kafka-21419-always-write
done
for p in "$fix:kafka-21419" "$always:kafka-21419-always-write"; do
  "$bin" conform --kafka 4.3.1 --patch "${p%%:*}" --rules "kafka-4.3+derivation=${p#*:}" \
    --seconds "$seconds" --seed 1 --json --out "$work/generated" > "$work/g.json" 2>/dev/null || true
  python3 - "$work/g.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
if "error" in r or r["disagreements"] or r["histories"] == 0:
    sys.exit("conform-change: generated on %s: %s" % (r.get("code"), r))
print("%s: %d generated histories, %d requests, 0 disagreements" % (r["code"], r["histories"], r["requests"]))
PY
done

# One's own build: the same change compiled here (GNU patch, javac, jar) as a user's build
# would be, and judged with --classpath: the proposed fix's verdict on the repro again.
mkdir -p "$work/own/src" "$work/own/classes"
(cd "$work/own/src" && unzip -q "$repo/org/apache/kafka/kafka-metadata/4.3.1/kafka-metadata-4.3.1-sources.jar" \
  org/apache/kafka/controller/ReplicationControlManager.java)
patch -s -p5 -d "$work/own/src" < "$fix"
javac --release 17 -proc:none -implicit:none -nowarn -d "$work/own/classes" \
  -cp "$(cat conformance/target/classpath-4.3.1.txt)" \
  "$work/own/src/org/apache/kafka/controller/ReplicationControlManager.java"
jar cf "$work/own/kafka-metadata-own.jar" -C "$work/own/classes" .
verdict own-build "$k/kafka-21419-repro.json" - --kafka 4.3.1 \
  --classpath "$work/own/kafka-metadata-own.jar" --rules kafka-4.3+derivation=kafka-21419

# Bad input: one line, exit 2, nothing left behind.
sed 's/originalEstimate.removeAll/originalEstimate.removeAllOf/' "$fix" > "$work/no-compile.patch"
sed 's/^-        if (!reassignment.adding().isEmpty()) {/-        if (reassignment.adding().isEmpty()) {/' \
  "$fix" > "$work/no-apply.patch"
mkdir -p "$work/no-controller"
jvms_before=$(pgrep -fc ConformanceDriver || true)
while IFS='|' read -r what args; do
  # shellcheck disable=SC2086
  rc=0; "$bin" conform $args "$k/kafka-21419-repro.json" --out "$work/bad" > "$work/o" 2> "$work/e" || rc=$?
  lines=$(wc -l < "$work/e")
  if [ "$rc" != 2 ] || [ "$lines" != 1 ] || [ -s "$work/o" ]; then
    echo "conform-change: $what: exit $rc, $lines lines on stderr:"; cat "$work/o" "$work/e"; exit 1
  fi
  printf '%-34s exit 2: %s\n' "$what" "$(cut -c1-110 "$work/e")"
done <<EOF2
a patch that does not apply|--kafka 4.3.1 --patch $work/no-apply.patch
a compile error|--kafka 4.3.1 --patch $work/no-compile.patch
a release without a sources jar|--kafka 4.4.0 --patch $fix
a snapshot not published locally|--kafka 4.3.98-SNAPSHOT
a classpath without the controller|--kafka 4.3.1 --classpath $work/no-controller
a release Maven does not serve|--kafka 4.3.99
EOF2
left=$(find conformance/target/patched -maxdepth 1 -name '.building-*' 2>/dev/null | wc -l)
jvms_after=$(pgrep -fc ConformanceDriver || true)
if [ "$left" != 0 ] || [ "$jvms_after" -gt "$jvms_before" ]; then
  echo "conform-change: bad input left $left scratch folders and $((jvms_after - jvms_before)) JVMs"
  exit 1
fi

# A local snapshot, laid out as publishToMavenLocal lays it out (the project's own version
# changed, its dependencies left as published).
for a in kafka-metadata kafka-server-common kafka-clients kafka-raft kafka-storage \
  kafka-storage-api kafka_2.13 kafka-server; do
  mkdir -p "$repo/org/apache/kafka/$a/$snapshot"
  cp "$repo/org/apache/kafka/$a/4.3.1/$a-4.3.1.jar" "$repo/org/apache/kafka/$a/$snapshot/$a-$snapshot.jar"
  python3 - "$repo/org/apache/kafka/$a/4.3.1/$a-4.3.1.pom" \
    "$repo/org/apache/kafka/$a/$snapshot/$a-$snapshot.pom" "$snapshot" <<'PY'
import sys
src, dst, version = sys.argv[1:]
text = open(src).read()
open(dst, "w").write(text.replace("<version>4.3.1</version>", "<version>%s</version>" % version, 1))
PY
done
verdict snapshot "$k/kafka-21419-repro.json" G2,G5 --kafka "$snapshot"
echo "conform-change: ok"
