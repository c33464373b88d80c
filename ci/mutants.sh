#!/usr/bin/env bash
# Mutation testing of the rules, the model and the invariants with cargo-mutants: every
# mutant is built and `cargo test` must fail on it. Prints caught / viable (a timeout is
# caught: the suite did not pass). Survivors are listed in docs/mutation.md with why each
# is equivalent, or get a test. All 1,051 mutants: 95 min with JOBS=2 on 2 cores; shard
# with SHARD=k/n.
# Usage: ci/mutants.sh [file-glob ...]   (default: src/rules, src/model, src/check/invariants)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo-mutants >/dev/null 2>&1 || cargo install --locked cargo-mutants
globs=("$@")
[ ${#globs[@]} -gt 0 ] || globs=('src/rules/**' 'src/model/**' 'src/check/invariants/**')
args=()
for g in "${globs[@]}"; do args+=(-f "$g"); done
[ -n "${SHARD:-}" ] && args+=(--shard "$SHARD")
out=${MUTANTS_OUT:-target/mutants}
mkdir -p "$out"
# cargo-mutants exits non-zero when mutants survive; the summary below says which.
cargo mutants -j "${JOBS:-1}" --timeout 120 "${args[@]}" -o "$out" || true
dir="$out/mutants.out"
n() { [ -f "$dir/$1.txt" ] && wc -l < "$dir/$1.txt" || echo 0; }
caught=$(n caught); missed=$(n missed); timeout=$(n timeout); unviable=$(n unviable)
viable=$((caught + missed + timeout))
echo "mutants: $((caught + timeout)) caught / $viable viable ($timeout by timeout; $unviable unviable, not counted)"
if [ "$missed" -gt 0 ]; then
  echo "survivors:"; sed 's/^/  /' "$dir/missed.txt"
fi
