#!/usr/bin/env bash
# Keeps docs/adding-a-variant.md true: performs its steps on a scratch copy of this tree
# (the files git tracks or would track; no target/, no findings/) and exits non-zero when
# one of them does not do what the guide says. The scratch copy builds into its own target
# dir, kept between runs, never the repository's: about 2 minutes on 2 cores the first
# time, less later.
# Usage: ci/adding-a-variant.sh    (ADDING_A_VARIANT_DIR: scratch location,
#                                   default target/adding-a-variant)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
guide=$repo/docs/adding-a-variant.md
work=${ADDING_A_VARIANT_DIR:-$repo/target/adding-a-variant}
tree=$work/tree
export CARGO_TARGET_DIR=$work/target
bin=$CARGO_TARGET_DIR/release/isrfuzz
pair='complete+lag=seal-only:complete'

fail() {
  echo "adding-a-variant: FAILED: $*" >&2
  exit 1
}
step() { echo "== $*"; }

# The fenced block after the line `<!-- adding-a-variant: NAME -->` of the guide.
block() {
  awk -v marker="<!-- adding-a-variant: $1 -->" '
    $0 == marker { found = 1; next }
    found && !inside && /^```/ { inside = 1; next }
    inside && /^```/ { exit }
    inside { print }' "$guide"
}

# Every line of block NAME must be a line of FILE.
expect_lines() {
  local name=$1 file=$2 line
  while IFS= read -r line; do
    grep -qxF -- "$line" "$file" || fail "block '$name': missing line: $line"
  done < <(block "$name")
}

changed() { git -C "$tree" status --porcelain --untracked-files=all | sort; }

step "scratch copy in $tree"
rm -rf "$tree"
mkdir -p "$tree"
git ls-files -z --cached --others --exclude-standard \
  | tar --null --ignore-failed-read -T - -cf - | tar -xf - -C "$tree"
git -C "$tree" init -q
git -C "$tree" add -A
git -C "$tree" -c user.name=ci -c user.email=ci@localhost commit -q -m "before the variant"

step "2. declare the variant (the guide's patch to src/rules/lag.rs)"
block patch | git -C "$tree" apply --whitespace=error - || fail "the guide's patch does not apply"
step "3. append the guide's test to tests/inkless.rs"
{ echo; block test; } >> "$tree/tests/inkless.rs"
[ "$(changed)" = "$(printf ' M src/rules/lag.rs\n M tests/inkless.rs')" ] \
  || fail "the variant touched more than one rule file and its test: $(changed)"

cd "$tree"
if cargo fmt --version > /dev/null 2>&1; then
  cargo fmt --all --check || fail "the guide's code is not formatted (cargo fmt)"
else
  echo "(rustfmt not installed: formatting of the guide's code not checked)"
fi
cargo test --locked -q --test inkless || fail "cargo test --test inkless"

step "5. isrfuzz rules lists the variant"
cargo build --release --locked -q --bin isrfuzz
"$bin" rules > "$work/rules.txt"
expect_lines rules "$work/rules.txt"

step "6. hunt --rules '$pair' --seconds 60 --max-histories 20000 --seed 1"
rm -rf findings
rc=0
# A fixed number of histories: the witness kept does not depend on the machine's speed.
"$bin" hunt --rules "$pair" --seconds 60 --max-histories 20000 --seed 1 > "$work/hunt.txt" || rc=$?
cat "$work/hunt.txt"
[ "$rc" = 1 ] || fail "hunt exited $rc, expected 1 (a finding)"
"$bin" replay findings/*seal-only*.json | grep '^verdict' > "$work/verdicts.txt" || true
diff <(block verdicts) "$work/verdicts.txt" || fail "the replay verdicts differ from the guide's"

step "7. promote the variant's own finding"
"$bin" promote findings/*seal-only--INV-4--*.json || fail "promote wrote nothing"
promoted=$(changed | sed -n 's/^?? //p')
[ -n "$promoted" ] && grep -qF "$promoted" "$guide" \
  || fail "promote wrote '${promoted:-nothing}', not the file the guide names"
cargo test --locked -q --test regressions || fail "the promoted regression does not replay"

echo "adding-a-variant: the guide's steps hold (scratch copy: $tree)"
