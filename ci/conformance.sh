#!/usr/bin/env bash
# The conformance suite: every history of corpus/regressions replayed against Apache Kafka's
# real controller classes, one release at a time, compared with the release's preset at
# every controller request (isrfuzz conform; the Java driver in conformance/, built by
# Maven, which fetches the Kafka jars). Fails on any disagreement, or when Java or Maven is
# missing. On the oldest and newest release asked, also the driver's own JUnit tests and
# the model's leader-epoch cache against LeaderEpochFileCache.
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
  target/release/isrfuzz conform --kafka "$v" corpus/regressions --json --out "$work/findings-$v" \
    > "$work/$v.json" 2> "$work/$v.err"
  rc=$?
  set -e
  if [ "$rc" -eq 0 ]; then
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
