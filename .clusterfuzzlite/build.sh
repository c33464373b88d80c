#!/usr/bin/env bash
# ClusterFuzzLite / OSS-Fuzz build: every cargo-fuzz target into $OUT, with its seed corpus.
# Dry run locally: SRC=$PWD/.. OUT=$(mktemp -d) .clusterfuzzlite/build.sh
set -euo pipefail
cd "${SRC:?}/isrfuzz" 2>/dev/null || cd "$(dirname "$0")/.."
: "${OUT:?set OUT to the output folder}"
sanitizer=${SANITIZER:-none}
[ "$sanitizer" = address ] || sanitizer=none
cargo fuzz build -O --sanitizer "$sanitizer"
for t in kraft_diff inkless_diff cluster fixed_holds decode; do
  cp "fuzz/target/x86_64-unknown-linux-gnu/release/$t" "$OUT/"
  if [ -d "corpus/$t" ] && [ -n "$(ls -A "corpus/$t")" ]; then
    (cd "corpus/$t" && zip -qr "$OUT/${t}_seed_corpus.zip" .)
  fi
done
