#!/usr/bin/env bash
# ClusterFuzzLite's build, checked without its image: .clusterfuzzlite/build.sh run as the
# base-builder image runs it (build.sh at $SRC/build.sh, the source at $SRC/isrfuzz, the
# working folder $SRC/isrfuzz, SRC/OUT/WORK and the engine variables set, `bash -eux`), on
# stable with SANITIZER=none. Then: every expected binary, options file and seed zip is in
# $OUT and nothing else is; each zip holds exactly the files of corpus/<target>/; each
# binary runs on its unpacked seeds for a few seconds without a crash, reading every seed.
# What only the real image checks (ASan on nightly, its libFuzzer): fuzz/README.md.
# Usage: ci/cfl-dry-run.sh [seconds-per-target]   (default 5; installs cargo-fuzz if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
budget=${1:-5}
[[ "$budget" =~ ^[1-9][0-9]{0,3}$ ]] || { echo "cfl-dry-run: seconds must be 1..9999, got '$budget'" >&2; exit 2; }
expected=(fixed_holds decode)   # build.sh's default ISRFUZZ_CFL_TARGETS, stated a second time
command -v cargo-fuzz >/dev/null 2>&1 || cargo install --locked cargo-fuzz
command -v zip >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq zip >/dev/null; }
command -v unzip >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq unzip >/dev/null; }
fail() { echo "FAIL: $*"; exit 1; }

# The image's layout, as the Dockerfile lays it out; check the Dockerfile still says so.
grep -qx 'FROM gcr.io/oss-fuzz-base/base-builder-rust' .clusterfuzzlite/Dockerfile || fail "Dockerfile: not base-builder-rust"
grep -qx 'COPY . $SRC/isrfuzz' .clusterfuzzlite/Dockerfile || fail "Dockerfile: source not at \$SRC/isrfuzz"
grep -qx 'WORKDIR $SRC/isrfuzz' .clusterfuzzlite/Dockerfile || fail "Dockerfile: WORKDIR not \$SRC/isrfuzz"
grep -qx 'COPY .clusterfuzzlite/build.sh $SRC/' .clusterfuzzlite/Dockerfile || fail "Dockerfile: build.sh not at \$SRC/"
grep -qx 'language: rust' .clusterfuzzlite/project.yaml || fail "project.yaml: language is not rust"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src" "$work/out" "$work/work"
ln -s "$root" "$work/src/isrfuzz"
cp .clusterfuzzlite/build.sh "$work/src/build.sh"
# The real image leaves CARGO_TARGET_DIR unset, so the binaries land in fuzz/target (where
# ci/fuzz-smoke.sh also builds them with the same flags: this build reuses that one).
start=$SECONDS
if ! (cd "$work/src/isrfuzz" && env -u CARGO_TARGET_DIR -u ISRFUZZ_CFL_TARGETS \
      SRC="$work/src" OUT="$work/out" WORK="$work/work" SANITIZER=none \
      FUZZING_ENGINE=libfuzzer FUZZING_LANGUAGE=rust ARCHITECTURE=x86_64 \
      bash -eux "$work/src/build.sh") > "$work/build.log" 2>&1; then
  tail -n 40 "$work/build.log"; fail "build.sh exited non-zero"
fi
echo "build.sh: $((SECONDS - start)) s"

want=()
for t in "${expected[@]}"; do want+=("$t" "$t.options"); [ -d "corpus/$t" ] && want+=("${t}_seed_corpus.zip"); done
have=$(cd "$work/out" && ls -A | sort)
want=$(printf '%s\n' "${want[@]}" | sort)
[ "$have" = "$want" ] || fail "\$OUT holds [$(echo $have)], expected [$(echo $want)]"

status=0
for t in "${expected[@]}"; do
  [ -x "$work/out/$t" ] || fail "$t is not executable"
  grep -qx 'use_value_profile = 1' "$work/out/$t.options" || fail "$t.options lacks use_value_profile"
  seeds="$work/seeds/$t"; mkdir -p "$seeds" "$work/corpus/$t"
  unzip -q "$work/out/${t}_seed_corpus.zip" -d "$seeds"
  diff <(cd "corpus/$t" && find . -type f | sort) <(cd "$seeds" && find . -type f | sort) >/dev/null \
    || fail "${t}_seed_corpus.zip does not hold exactly corpus/$t"
  n=$(find "$seeds" -type f | wc -l)
  set +e
  (cd "$work/out" && timeout $((budget + 60)) "./$t" -use_value_profile=1 -max_total_time="$budget" -print_final_stats=1 \
     -artifact_prefix="$work/$t-" "$work/corpus/$t" "$seeds") > "$work/$t.log" 2>&1
  rc=$?
  set -e
  read_n=$(grep -m1 -oE 'seed corpus: files: [0-9]+' "$work/$t.log" | grep -oE '[0-9]+$' || true)
  execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+|^#[0-9]+' "$work/$t.log" | tail -n 1 | grep -oE '[0-9]+$' || true)
  echo "$t: $n seeds, read $read_n, ${execs:-?} executions in ${budget}s, exit $rc"
  if [ "$rc" -ne 0 ] || [ "$read_n" != "$n" ] || [ -z "$execs" ]; then
    tail -n 30 "$work/$t.log"; echo "FAIL: $t"; status=1
  fi
done
[ "$status" -eq 0 ] && echo "cfl-dry-run: ok (${expected[*]})"
exit $status
