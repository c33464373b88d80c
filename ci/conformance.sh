#!/usr/bin/env bash
# The conformance suite: every history of corpus/regressions replayed against Apache Kafka's
# real controller classes and real brokers (Partitions over real logs, conformance/BROKERS.md),
# one release at a time, compared with the release's preset at every controller request and
# every replica after each step (isrfuzz conform --brokers; the Java driver in conformance/,
# built by Maven, which fetches the Kafka jars). Fails on any disagreement, or when Java or Maven is
# missing. On the oldest and newest release asked, also the driver's own JUnit tests and
# the model's leader-epoch cache against LeaderEpochFileCache. Then the reproducers: every
# violation a release shows gets a JUnit test (isrfuzz conform --junit), all of them run in
# one `mvn test` per release on a scratch copy of conformance/, and each must fail on
# exactly the releases that show its violation and pass on the others.
# Usage: ci/conformance.sh [--record] [VERSION...]
#   VERSION: a release line (4.0) or version (4.0.2); default: every release the driver knows.
#   --record: write the measured agreement to conformance/measured.json (what `isrfuzz
#   rules` prints as the releases each preset and variant matches).
set -euo pipefail
cd "$(dirname "$0")/.."
record=0
if [ "${1:-}" = --record ]; then record=1; shift; fi
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(4.0 4.1 4.2 4.3 4.4)
command -v java >/dev/null || { echo "conformance: java not found (install a JDK 17)"; exit 2; }
command -v mvn >/dev/null || { echo "conformance: mvn not found (install Maven 3.8)"; exit 2; }
cargo build --release --quiet --bin isrfuzz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
for v in "${versions[@]}"; do
  set +e
  target/release/isrfuzz conform --kafka "$v" corpus/regressions --brokers --json --out "$work/findings-$v" \
    --junit "$work/repro-$v" > "$work/$v.json" 2> "$work/$v.err"
  rc=$?
  set -e
  # A history the brokers judge cannot take (a deletion, say) is still the controller's.
  if [ "$rc" -eq 0 ] && ! grep -q '"brokers_not_judged_by_reason":{[^}]*deletes a topic' "$work/$v.json"; then
    rc=controller-skipped
    echo "conformance: Kafka $v: the corpus's topic deletions were not judged by the controller"
  fi
  # The same for the log directories (format 7): judged by the controller alone.
  if [ "$rc" = 0 ] && ! grep -q '"brokers_not_judged_by_reason":{[^}]*log directory' "$work/$v.json"; then
    rc=controller-skipped
    echo "conformance: Kafka $v: the corpus's log directory operations were not judged by the controller"
  fi
  if [ "$rc" = 0 ]; then
    passed=$((passed + 1))
    echo "conformance: Kafka $v agrees: $(cat "$work/$v.json")"
  else
    failed=$((failed + 1))
    echo "conformance: Kafka $v FAILED (exit $rc): $(cat "$work/$v.json")"
    cat "$work/$v.err"
  fi
done
# The driver's own tests and the epoch cache (10,000 generated sequences), on the oldest
# and the newest release asked.
first=${versions[0]}
last=${versions[${#versions[@]}-1]}
for v in $(printf '%s\n' "$first" "$last" | sort -u); do
  if target/release/isrfuzz conform --kafka "$v" --epoch-cache 10000 > "$work/epoch-$v.txt" 2>&1; then
    passed=$((passed + 1))
    echo "conformance: epoch cache agrees on Kafka $v: $(sed -n 2p "$work/epoch-$v.txt")"
  else
    failed=$((failed + 1))
    echo "conformance: epoch cache on Kafka $v FAILED"
    cat "$work/epoch-$v.txt"
  fi
  version=$(sed -n 's/.*"release":"\([^"]*\)".*/\1/p' "$work/$v.json")
  [ -n "$version" ] || continue
  if mvn -q -B -f conformance/pom.xml -Dkafka.version="$version" test > "$work/junit-$v.log" 2>&1; then
    passed=$((passed + 1))
    echo "conformance: driver tests on Kafka $version pass"
  else
    failed=$((failed + 1))
    echo "conformance: driver tests on Kafka $version FAILED"
    tail -n 40 "$work/junit-$v.log"
  fi
done
# A stalled judge: the JVM stopped (SIGSTOP) mid-run must end conform within the answer
# timeout, with its summary and exit 5, and leave no JVM behind.
set +e
target/release/isrfuzz conform --kafka "$first" --seconds 120 --seed 1 --answer-timeout 5 \
  --out "$work/stall-findings" > "$work/stall.txt" 2>&1 &
pid=$!
jvm=""
# The driver's JVM by its main class (isrfuzz also runs `java -version`, briefly, first).
for _ in $(seq 300); do
  jvm=$(pgrep -P "$pid" -f ConformanceDriver)
  [ -n "$jvm" ] && break
  sleep 0.1
done
sleep 10  # past the JVM's start, into the generated histories
[ -n "$jvm" ] && kill -STOP "$jvm"
for _ in $(seq 200); do
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$pid" 2>/dev/null; then
  kill -9 "$pid"
  rc=running
else
  wait "$pid"
  rc=$?
fi
set -e
if [ "$rc" = 5 ] && grep -q stalled "$work/stall.txt" && grep -q ' histories, ' "$work/stall.txt" \
  && ! { [ -n "$jvm" ] && kill -0 "$jvm" 2>/dev/null; }; then
  passed=$((passed + 1))
  echo "conformance: a stalled JVM ends the run with exit 5 and its summary"
else
  failed=$((failed + 1))
  echo "conformance: a stalled JVM FAILED (exit $rc)"
  cat "$work/stall.txt"
  [ -z "$jvm" ] || kill -9 "$jvm" 2>/dev/null || true
fi
# The reproducers (the controller's, and the brokers' for a data-plane violation the real
# brokers show). A release that shows a violation emits its test; the source run everywhere
# is the one the newest release asked emitted (the order of the arguments), so a test is
# judged on every release, those that never showed the violation included.
proj="$work/repro-project"
tests="$proj/src/test/java/org/apache/kafka/controller"
mkdir -p "$proj"
cp -r conformance/pom.xml conformance/src "$proj/"
for v in "${versions[@]}"; do
  [ -d "$work/repro-$v" ] && cp "$work/repro-$v"/*.java "$tests/"
done
count=$(find "$tests" -name '*ReproTest.java' | wc -l)
for v in "${versions[@]}"; do
  version=$(sed -n 's/.*"release":"\([^"]*\)".*/\1/p' "$work/$v.json")
  [ -n "$version" ] || continue
  started=$(date +%s)
  rm -rf "$proj/target"
  # Failing tests are the point: Maven is told to carry on, the reports are judged here.
  if ! mvn -q -B -f "$proj/pom.xml" -Dkafka.version="$version" -Dtest='*ReproTest' \
      -Dsurefire.failIfNoSpecifiedTests=false -Dmaven.test.failure.ignore=true test \
      > "$work/repro-$v.log" 2>&1; then
    failed=$((failed + 1))
    echo "conformance: reproducers on Kafka $version did not build"
    tail -n 40 "$work/repro-$v.log"
    continue
  fi
  mismatches=0
  fails=0
  for f in "$tests"/*ReproTest.java; do
    [ -e "$f" ] || continue
    class=$(basename "$f" .java)
    report="$proj/target/surefire-reports/TEST-org.apache.kafka.controller.$class.xml"
    head=$(grep -o '<testsuite [^>]*' "$report" 2>/dev/null || true)
    errors=$(echo "$head" | sed -n 's/.* errors="\([0-9]*\)".*/\1/p')
    failures=$(echo "$head" | sed -n 's/.* failures="\([0-9]*\)".*/\1/p')
    shows=no
    [ -f "$work/repro-$v/$class.java" ] && shows=yes
    # A brokers reproducer carries the registrations of the release that emitted it (no
    # controller): given them, the brokers of every release must lose the record alike
    # (one code path in 4.0-4.4). One that passes somewhere is a broker difference to read.
    case "$class" in *BrokersReproTest) shows=yes ;; esac
    # An error (an exception other than the assertion's) is never the expected outcome.
    if [ -z "$head" ] || [ "${errors:-1}" != 0 ]; then
      outcome=error
    elif [ "$failures" != 0 ]; then
      outcome=fails
      fails=$((fails + 1))
    else
      outcome=passes
    fi
    if { [ "$shows" = yes ] && [ "$outcome" != fails ]; } || { [ "$shows" = no ] && [ "$outcome" != passes ]; }; then
      mismatches=$((mismatches + 1))
      echo "conformance: reproducer $class $outcome on Kafka $version, which $([ "$shows" = yes ] && echo shows || echo does not show) its violation"
    fi
  done
  if [ "$mismatches" -eq 0 ]; then
    passed=$((passed + 1))
    echo "conformance: reproducers on Kafka $version: $fails of $count fail, as the release shows ($(( $(date +%s) - started )) s)"
  else
    failed=$((failed + 1))
    echo "conformance: reproducers on Kafka $version FAILED: $mismatches of $count disagree with the release"
  fi
done
if [ "$record" -eq 1 ] && [ "$failed" -eq 0 ]; then
  {
    echo "{\"commit\": \"$(git rev-parse --short HEAD)\", \"date\": \"$(date -u +%Y-%m-%d)\","
    echo " \"corpus\": \"corpus/regressions\", \"releases\": ["
    sep=""
    for v in "${versions[@]}"; do printf '%s  %s\n' "$sep" "$(cat "$work/$v.json")"; sep=","; done
    echo "]}"
  } > conformance/measured.json
  echo "conformance: recorded conformance/measured.json"
fi
echo "conformance: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
