#!/usr/bin/env bash
# Regenerates the sample summary in README.md ("Reading the output") from a real run of
# the README's set-up command at its default duration (60 s, so the sample shows what a
# user sees), with a fixed seed and a scratch output folder: `hunt --seed 1`. It keeps the
# summary line, two rule sets (zk-style and trunk, whose KAFKA-21419 row is expected) and
# the closing line, with the output folder shown as `findings/`. The counts depend on the
# machine's speed.
# Usage: ci/readme-sample.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin isrfuzz
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
target/release/isrfuzz hunt --seed 1 --out "$tmp/findings" > "$tmp/out.txt" || [ $? -eq 1 ]
python3 - "$tmp" <<'PY'
import re, sys
tmp = sys.argv[1]
lines = open(f"{tmp}/out.txt").read().replace(f"{tmp}/", "").splitlines()
out = [l for l in lines if l.startswith("summary:")]
def group(name):
    i = lines.index(name)
    g = [name]
    for l in lines[i + 1:]:
        if not l.startswith("  "):
            break
        g.append(l)
    return g
for name in ["complete+zk-style", "complete+trunk"]:
    out += group(name)
out.append("…")
last = lines[-1]
out.append(re.sub(r"(new findings?: [^,]*), .*?; replay", r"\1, …; replay", last))
readme = open("README.md").read()
begin, end = "<!-- sample: hunt -->\n```text\n", "```\n<!-- /sample -->"
i, j = readme.index(begin) + len(begin), readme.index(end)
open("README.md", "w").write(readme[:i] + "\n".join(out) + "\n" + readme[j:])
PY
echo "readme-sample: README.md updated"
