#!/usr/bin/env bash
# The reproducers in Apache Kafka's own test class. For each release asked, isrfuzz conform
# --junit writes a ReplicationControlManagerTest method per violation the release's real
# controller shows on corpus/regressions. Every method any release wrote (the source the
# newest release asked wrote, as ci/conformance.sh does) is spliced into each release's own
# copy of that class (its published kafka-metadata test sources), compiled against the
# release's main and test jars (conformance/upstream/pom.xml) and run: each must fail on
# exactly the releases that show its violation and pass on the others.
# Usage: ci/upstream-tests.sh [VERSION...]  (default 4.0.2 4.1.2 4.3.1: the supported
# releases that publish test sources; 4.2.2 and 4.4.0 publish none)
set -euo pipefail
cd "$(dirname "$0")/.."
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(4.0.2 4.1.2 4.3.1)
command -v java >/dev/null || { echo "upstream-tests: java not found (install a JDK 17)"; exit 2; }
command -v mvn >/dev/null || { echo "upstream-tests: mvn not found (install Maven 3.8)"; exit 2; }
cargo build --release --quiet --bin isrfuzz
work=$(mktemp -d)
# UPSTREAM_TESTS_KEEP=1 keeps the scratch folder (the spliced class, the reports) and names it.
if [ -n "${UPSTREAM_TESTS_KEEP:-}" ]; then echo "upstream-tests: scratch folder $work"; else trap 'rm -rf "$work"' EXIT; fi
pom=conformance/upstream/pom.xml
methods="$work/methods"
mkdir -p "$methods"
for v in "${versions[@]}"; do
  # Exit 1 means violations were shown, which is what is wanted here; 0 too. A
  # disagreement would be exit 3, and ci/conformance.sh's business; here it stops the run.
  set +e
  target/release/isrfuzz conform --kafka "$v" corpus/regressions --json --out "$work/findings-$v" \
    --junit "$work/repro-$v" > "$work/conform-$v.json" 2> "$work/conform-$v.err"
  rc=$?
  set -e
  if [ "$rc" -gt 1 ]; then
    echo "upstream-tests: conform on Kafka $v exited $rc"
    cat "$work/conform-$v.err"
    exit 1
  fi
  dir="$work/repro-$v/ReplicationControlManagerTest"
  [ -d "$dir" ] && cp "$dir"/*.txt "$methods/"
done
names=$(cd "$methods" && ls -- *.txt 2>/dev/null | sed 's/\.txt$//' | sort)
count=$(echo "$names" | grep -c . || true)
[ "$count" -gt 0 ] || { echo "upstream-tests: no release showed a violation to reproduce"; exit 1; }
selector="ReplicationControlManagerTest#$(echo "$names" | paste -sd+ -)"
passed=0
failed=0
for v in "${versions[@]}"; do
  started=$(date +%s)
  build="$work/build-$v"
  src="$build/upstream-src"
  mkdir -p "$build"
  # The release's own test class, from its test-sources jar.
  if ! mvn -q -B -f "$pom" -Dkafka.version="$v" dependency:unpack \
      -Dartifact="org.apache.kafka:kafka-metadata:$v:jar:test-sources" \
      -DoutputDirectory="$build/sources" \
      -Dmdep.unpack.includes='org/apache/kafka/controller/ReplicationControlManagerTest.java' \
      > "$work/unpack-$v.log" 2>&1; then
    failed=$((failed + 1))
    echo "upstream-tests: Kafka $v publishes no kafka-metadata test sources Maven could fetch"
    tail -n 20 "$work/unpack-$v.log"
    continue
  fi
  class="$build/sources/org/apache/kafka/controller/ReplicationControlManagerTest.java"
  mkdir -p "$src/org/apache/kafka/controller"
  # Every method before the class's closing brace (its last line that is one `}`).
  last=$(grep -n '^}[[:space:]]*$' "$class" | tail -n 1 | cut -d: -f1)
  {
    head -n "$((last - 1))" "$class"
    for n in $names; do echo; cat "$methods/$n.txt"; done
    tail -n "+$last" "$class"
  } > "$src/org/apache/kafka/controller/ReplicationControlManagerTest.java"
  # Failing tests are the point: Maven is told to carry on, the report is judged here.
  if ! mvn -q -B -f "$pom" -Dkafka.version="$v" -Dupstream.src="$src" \
      -DbuildDirectory="$build/target" -Dtest="$selector" \
      -Dsurefire.failIfNoSpecifiedTests=false -Dmaven.test.failure.ignore=true test > "$work/test-$v.log" 2>&1; then
    failed=$((failed + 1))
    echo "upstream-tests: ReplicationControlManagerTest of Kafka $v with the methods did not build"
    grep -E 'ERROR|error:' "$work/test-$v.log" | head -n 30
    continue
  fi
  report="$build/target/surefire-reports/TEST-org.apache.kafka.controller.ReplicationControlManagerTest.xml"
  # One line per test case: its name and passes, fails (an assertion) or error.
  awk '
    /<testcase / {
      if (name != "") print name, status
      match($0, /name="[^"]*"/); name = substr($0, RSTART + 6, RLENGTH - 7); status = "passes"
    }
    /<failure/ { status = "fails" }
    /<error/ { status = "error" }
    END { if (name != "") print name, status }
  ' "$report" > "$work/outcomes-$v.txt" 2>/dev/null || true
  mismatches=0
  fails=0
  for n in $names; do
    outcome=$(awk -v n="$n" '$1 == n { print $2 }' "$work/outcomes-$v.txt")
    [ -n "$outcome" ] || outcome=missing
    [ "$outcome" = fails ] && fails=$((fails + 1))
    shows=no
    [ -f "$work/repro-$v/ReplicationControlManagerTest/$n.txt" ] && shows=yes
    if { [ "$shows" = yes ] && [ "$outcome" != fails ]; } || { [ "$shows" = no ] && [ "$outcome" != passes ]; }; then
      mismatches=$((mismatches + 1))
      echo "upstream-tests: $n $outcome on Kafka $v, which $([ "$shows" = yes ] && echo shows || echo does not show) its violation"
    fi
  done
  if [ "$mismatches" -eq 0 ]; then
    passed=$((passed + 1))
    echo "upstream-tests: Kafka $v's own ReplicationControlManagerTest: $fails of $count methods fail, as the release shows ($(( $(date +%s) - started )) s)"
  else
    failed=$((failed + 1))
    echo "upstream-tests: Kafka $v FAILED: $mismatches of $count methods disagree with the release"
  fi
done
echo "upstream-tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
