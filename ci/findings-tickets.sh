#!/usr/bin/env bash
# Regenerates, in docs/findings.md, the title and affected-versions lines (one per
# consequence) quoted under each
# `**Ticket:** `isrfuzz replay --report jira FILE`` line, from the ticket the tool prints
# for FILE now (affected versions come from conformance/measured.json when the real
# controller replayed that history).
# Usage: ci/findings-tickets.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin isrfuzz
python3 - <<'PY'
import re, subprocess
path = "docs/findings.md"
lines = open(path).read().split("\n")
out, i = [], 0
ticket = re.compile(r"^\*\*Ticket:\*\* `isrfuzz replay --report jira (\S+)`")
while i < len(lines):
    out.append(lines[i])
    m = ticket.match(lines[i])
    i += 1
    if not m:
        continue
    text = subprocess.run(["target/release/isrfuzz", "replay", "--report", "jira", m.group(1)],
                          capture_output=True, text=True).stdout.split("\n")
    quoted, under = [], False
    for l in text:
        if l.startswith("h1. ") or l.startswith("* Affected versions"):
            quoted.append(l)
            under = l.startswith("* Affected versions")
        elif under and l.startswith("** "):
            quoted.append(l)
        else:
            under = False
    if not quoted:
        quoted = [text[0]]
    # Drop the previously quoted lines (`- `...``), then quote the fresh ones.
    while i < len(lines) and lines[i].startswith("- `"):
        i += 1
    out += [f"- ``{q}``" if "`" in q else f"- `{q}`" for q in quoted]
open(path, "w").write("\n".join(out))
PY
echo "findings-tickets: docs/findings.md updated"
