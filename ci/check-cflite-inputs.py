#!/usr/bin/env python3
"""ClusterFuzzLite's steps in the workflows: only inputs that its actions take at v1, and
the values this project needs. actionlint cannot check them: it does not fetch actions.

The input names are those of actions/build_fuzzers/action.yml and actions/run_fuzzers/
action.yml in google/clusterfuzzlite at tag v1 (commit 884713a6c30a92e5e8544c39945cd7cb630abcd1).
Usage: ci/check-cflite-inputs.py WORKFLOW.yml...   (exit 1 on any finding)"""
import sys

import yaml

COMMON = {"dry-run", "github-token", "language", "sanitizer", "storage-repo",
          "storage-repo-branch", "storage-repo-branch-coverage"}
INPUTS = {
    "build_fuzzers": COMMON | {"allowed-broken-targets-percentage", "bad-build-check",
                               "keep-unaffected-fuzz-targets", "project-src-path", "upload-build"},
    "run_fuzzers": COMMON | {"fuzz-seconds", "minimize-crashes", "mode", "output-sarif",
                             "parallel-fuzzing", "report-unreproducible-crashes"},
}
MODES = {"code-change", "batch", "prune", "coverage"}
# Rust: ASan only (ClusterFuzzLite's Rust guide), and the coverage build for coverage.
SANITIZERS = {"address", "coverage", "${{ matrix.sanitizer }}"}
PREFIX = "google/clusterfuzzlite/actions/"


def check_step(where, step, seen):
    uses = step.get("uses", "")
    if not uses.startswith(PREFIX):
        return []
    action, _, ref = uses[len(PREFIX):].partition("@")
    if action not in INPUTS:
        return [f"{where}: unknown action {uses}"]
    errors = [] if ref == "v1" else [f"{where}: {uses}: expected @v1"]
    given = step.get("with") or {}
    errors += [f"{where}: {action} takes no input '{k}'" for k in sorted(set(given) - INPUTS[action])]
    if given.get("language") != "rust":
        errors.append(f"{where}: language must be rust")
    sanitizer = str(given.get("sanitizer", "address"))
    if sanitizer not in SANITIZERS:
        errors.append(f"{where}: sanitizer {sanitizer} (Rust has address or coverage)")
    if action == "run_fuzzers":
        mode = given.get("mode", "code-change")
        if mode not in MODES:
            errors.append(f"{where}: mode {mode} not one of {sorted(MODES)}")
        if (mode == "coverage") != (sanitizer == "coverage"):
            errors.append(f"{where}: mode coverage goes with sanitizer coverage only")
        if "github-token" not in given or "fuzz-seconds" not in given:
            errors.append(f"{where}: run_fuzzers needs github-token and fuzz-seconds")
        seen.add(mode)
    elif str(given.get("upload-build", "false")).lower() == "true":
        seen.add("continuous build")
    return errors


def main(paths):
    errors, seen = [], set()
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            workflow = yaml.safe_load(handle) or {}
        for job_name, job in (workflow.get("jobs") or {}).items():
            for i, step in enumerate(job.get("steps") or []):
                errors += check_step(f"{path}: {job_name} step {i + 1}", step, seen)
    missing = sorted((MODES | {"continuous build"}) - seen)
    if missing:
        errors.append(f"no ClusterFuzzLite workflow for: {', '.join(missing)}")
    for error in errors:
        print(f"FAIL: {error}")
    if not errors:
        print(f"cflite inputs: ok ({len(paths)} files; {', '.join(sorted(seen))})")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
