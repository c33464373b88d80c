#!/usr/bin/env bash
# Keeps docs/adding-a-variant.md true: performs both of its walk-throughs (KRaft
# `completion=removal-at-once`, Inkless `lag=seal-only`) on one scratch copy of this tree
# (the files git tracks or would track; no target/, no findings/) and exits non-zero when a
# step does not do what the guide says. The scratch copy builds into its own target dir,
# kept between runs, never the repository's.
#
# The walk-throughs' source steps run in the guide's order, but the builds are shared: one
# debug build tests both variants, one release build hunts with both, and both swaps are
# checked in one more build at the end (each swap's test runs rules the other swap leaves
# alone, so each test can only fail by its own swap). Measured on 2 shared cores: 109 s
# with an empty scratch target dir, 40 s on the next run.
# Usage: ci/adding-a-variant.sh    (ADDING_A_VARIANT_DIR: scratch location,
#                                   default target/adding-a-variant)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
guide=$repo/docs/adding-a-variant.md
work=${ADDING_A_VARIANT_DIR:-$repo/target/adding-a-variant}
tree=$work/tree
export CARGO_TARGET_DIR=$work/target
# expect-test writes UPDATE_EXPECT snapshots under the outermost directory holding a
# Cargo.toml unless told otherwise: the default scratch copy is inside this repository, so
# without this it would rewrite the repository's files instead of the copy's.
export CARGO_WORKSPACE_DIR=$tree/
bin=$CARGO_TARGET_DIR/release/isrfuzz

fail() {
  echo "adding-a-variant: FAILED: $*" >&2
  exit 1
}
step() { echo "== $*"; }

# The fenced block after the line `<!-- adding-a-variant: NAME -->` of the guide.
block() {
  local out
  out=$(awk -v marker="<!-- adding-a-variant: $1 -->" '
    $0 == marker { found = 1; next }
    found && !inside && /^```/ { inside = 1; next }
    inside && /^```/ { exit }
    inside { print }' "$guide")
  [ -n "$out" ] || fail "the guide has no block '$1'"
  printf '%s\n' "$out"
}

# Every line of block NAME must be a line of FILE.
expect_lines() {
  local name=$1 file=$2 line text
  text=$(block "$name")
  while IFS= read -r line; do
    grep -qxF -- "$line" "$file" || fail "block '$name': missing line: $line"
  done <<< "$text"
}

changed() { git -C "$tree" status --porcelain --untracked-files=all | sort; }
commit() { git -C "$tree" -c user.name=ci -c user.email=ci@localhost commit -qam "$1"; }

# A walk-through's source steps must touch its rule file and its test file, nothing else.
only_changed() {
  local want
  want=$(printf ' M %s\n' "$@" | sort)
  [ "$(changed)" = "$want" ] \
    || fail "the variant touched more than its rule file and test: $(changed)"
}

# Hunt PAIR (as the guide does: fixed seed and count, so the same witness everywhere) and
# require a summary row of the pair's left rule set marked `new`. Only the rule set's name
# and the word `new` are matched, so a reworded summary keeps this check working.
hunt() {
  local pair=$1 out=$2 rc=0
  local left=${pair%%:*}
  step "hunt --rules '$pair' --seconds 60 --max-histories 20000 --seed 1 --jobs 1"
  "$bin" hunt --rules "$pair" --seconds 60 --max-histories 20000 --seed 1 --jobs 1 > "$out" || rc=$?
  cat "$out"
  [ "$rc" = 1 ] || fail "hunt exited $rc, expected 1 (a finding)"
  grep -F -- "$left " "$out" | grep -qw new \
    || fail "hunt: no row of $left marked new"
}

# The test function the guide's test block NAME defines.
test_name() { block "$1" | sed -n 's/^fn \([a-z0-9_]*\)(.*/\1/p'; }

# With the guide's swaps applied, test NAME of tests/it/FILE.rs must compile and fail (a
# build error is not the test biting).
swap_fails() {
  local file=$1 name=$2
  [ -n "$name" ] || fail "no test function in the guide's $file block"
  cargo test --locked -q --test it "$file::$name" > "$work/swap.txt" 2>&1 \
    && fail "$name passes with its variant swapped for a sibling"
  grep -qx "    $file::$name" "$work/swap.txt" \
    || { cat "$work/swap.txt"; fail "$name did not run and fail with its variant swapped"; }
}

step "scratch copy in $tree"
rm -rf "$tree"
mkdir -p "$tree"
git ls-files -z --cached --others --exclude-standard \
  | tar --null --ignore-failed-read -T - -cf - | tar -xf - -C "$tree"
git -C "$tree" init -q
git -C "$tree" add -A
commit "before the variants"
cd "$tree"

step "K1. declare completion=removal-at-once (the guide's patch)"
block kraft-patch | git apply --whitespace=error - || fail "the KRaft patch does not apply"
only_changed src/rules/completion.rs

step "K2. the rule file's tables fail, one test per row the guide shows, then update"
tables=$(block kraft-tables | wc -l)
cargo test --locked -q --lib rules::completion > "$work/tables.txt" 2>&1 \
  && fail "cargo test --lib rules::completion passed before its tables were updated"
failed=$(grep -c '^    rules::completion::tests::' "$work/tables.txt" || true)
[ "$failed" = "$tables" ] \
  || fail "$failed table tests failed, the guide shows $tables new rows"
commit "K1"
UPDATE_EXPECT=1 cargo test --locked -q --lib rules::completion \
  || fail "UPDATE_EXPECT=1 cargo test --lib rules::completion"
git diff -U0 src/rules/completion.rs | grep -q '^-[^-]' \
  && fail "updating the tables changed an existing row"
diff <(block kraft-tables) <(git diff -U0 src/rules/completion.rs | sed -n 's/^+\([^+]\)/\1/p') \
  || fail "the rows UPDATE_EXPECT added differ from the guide's"
commit "K2"

step "K3. append the guide's test to tests/it/scenarios.rs"
{ echo; block kraft-test; } >> tests/it/scenarios.rs
only_changed tests/it/scenarios.rs
commit "K3"

step "I1. declare lag=seal-only (the guide's patch)"
block inkless-patch | git apply --whitespace=error - || fail "the Inkless patch does not apply"
step "I2. append the guide's test to tests/it/inkless.rs"
{ echo; block inkless-test; } >> tests/it/inkless.rs
only_changed src/rules/lag.rs tests/it/inkless.rs
commit "I1, I2"

if cargo fmt --version > /dev/null 2>&1; then
  cargo fmt --all --check || fail "the guide's code is not formatted (cargo fmt)"
else
  echo "(rustfmt not installed: formatting of the guide's code not checked)"
fi
step "K3, I2. both tests pass"
cargo test --locked -q --test it -- scenarios:: inkless:: \
  || fail "cargo test --test it -- scenarios:: inkless::"

step "K4, I3. isrfuzz rules lists both variants"
cargo build --release --locked -q --bin isrfuzz
"$bin" rules > "$work/rules.txt"
expect_lines kraft-rules "$work/rules.txt"
expect_lines inkless-rules "$work/rules.txt"

rm -rf findings
step "K5. hunt, replay"
hunt 'complete+completion=removal-at-once:complete' "$work/hunt-kraft.txt"
"$bin" replay findings/*removal-at-once--G8--*.json | grep '^verdict' > "$work/verdicts.txt" || true
diff <(block kraft-verdicts) "$work/verdicts.txt" || fail "the KRaft replay verdicts differ from the guide's"
step "K6. promote"
"$bin" promote findings/*removal-at-once--G8--*.json || fail "promote (completion) wrote nothing"

step "I4. hunt, replay, promote"
hunt 'complete+lag=seal-only:complete' "$work/hunt-inkless.txt"
"$bin" replay findings/*seal-only*.json | grep '^verdict' > "$work/verdicts.txt" || true
diff <(block inkless-verdicts) "$work/verdicts.txt" || fail "the Inkless replay verdicts differ from the guide's"
"$bin" promote findings/*seal-only--INV-4--*.json || fail "promote (lag) wrote nothing"

promoted=$(changed | sed -n 's/^?? //p')
[ "$(echo "$promoted" | grep -c '^corpus/regressions/')" = 2 ] \
  || fail "promote did not write two regressions: $(changed)"
for file in $promoted; do
  grep -qF "$file" "$guide" || fail "promote wrote '$file', not a file the guide names"
done
cargo test --locked -q --test regressions || fail "the promoted regressions do not replay"

step "K3, I2. each test fails when its variant is swapped for a sibling (the guide's swaps)"
for swap in kraft-swap inkless-swap; do
  block "$swap" | git apply - || fail "the guide's $swap does not apply"
done
swap_fails scenarios "$(test_name kraft-test)"
swap_fails inkless "$(test_name inkless-test)"
for swap in kraft-swap inkless-swap; do
  block "$swap" | git apply -R - || fail "the guide's $swap does not undo"
done

echo "adding-a-variant: both walk-throughs hold (scratch copy: $tree)"
