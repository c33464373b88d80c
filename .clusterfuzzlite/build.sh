#!/usr/bin/env bash
# ClusterFuzzLite / OSS-Fuzz build (run by the image as `bash -eux $SRC/build.sh`, from
# $SRC/isrfuzz): the chosen cargo-fuzz targets into $OUT, each with its seed corpus
# (corpus/<target>/ zipped as <target>_seed_corpus.zip) and a <target>.options file that
# turns on libFuzzer's value profile (without it no multi-step bug was found; fuzz/README.md).
#
# The targets: ISRFUZZ_CFL_TARGETS, default `fixed_holds decode`, the two whose crash is a
# regression here (a hole in the complete rules, a harness panic). The diff targets
# (kraft_diff, inkless_diff, cluster) crash within a second on their own seeds, which are
# the known upstream bugs, so they would fail every run; see fuzz/README.md.
#
# Checked on stable, without the image, by ci/cfl-dry-run.sh.
set -euo pipefail
cd "${SRC:?set SRC as the base-builder image does}/isrfuzz"
: "${OUT:?set OUT to the output folder}"
# The image sets SANITIZER=address (the only sanitizer ClusterFuzzLite offers for Rust;
# nightly) or coverage (its cargo wrapper then turns `cargo fuzz build` into a plain
# build). Anything else is a stable build without a sanitizer, as the dry run does.
case "${SANITIZER:-none}" in
  address) sanitizer=address ;;
  *) sanitizer=none ;;
esac
read -r -a targets <<< "${ISRFUZZ_CFL_TARGETS:-fixed_holds decode}"
[ "${#targets[@]}" -gt 0 ] || { echo "build.sh: ISRFUZZ_CFL_TARGETS names no target" >&2; exit 1; }
for t in "${targets[@]}"; do
  [ -f "fuzz/fuzz_targets/$t.rs" ] || { echo "build.sh: no fuzz target named $t" >&2; exit 1; }
done
for t in "${targets[@]}"; do
  # -O alone would drop debug assertions and overflow checks: keep them, so that an
  # overflow in the model is a crash (what decode is for), as in ci/fuzz-smoke.sh's build.
  cargo fuzz build -O --debug-assertions --sanitizer "$sanitizer" "$t"
  cp "fuzz/target/x86_64-unknown-linux-gnu/release/$t" "$OUT/"
  printf '[libfuzzer]\nuse_value_profile = 1\n' > "$OUT/$t.options"
  if [ -d "corpus/$t" ] && [ -n "$(ls -A "corpus/$t")" ]; then
    rm -f "$OUT/${t}_seed_corpus.zip"
    (cd "corpus/$t" && zip -q -r "$OUT/${t}_seed_corpus.zip" .)
  fi
done
