#!/usr/bin/env bash
# ClusterFuzzLite, as far as this machine can check it: the workflow linter, then the dry run
# of .clusterfuzzlite/build.sh. Usage: ci/cfl-check.sh [seconds-per-target]  (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
ci/lint-workflows.sh
ci/cfl-dry-run.sh "${1:-5}"
