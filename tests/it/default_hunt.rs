//! The first run a user makes reports nothing as new: `hunt` over the default pairs finds
//! only expected and known rows. Pinned on five seeds of 100,000 histories each, one job
//! (deterministic; a 60 s default run covers several hundred thousand histories on two
//! jobs, so this is a sample of it, not the whole run). A row that turns up new here is a
//! mechanism to triage or file (docs/findings.md, corpus/known.json), not noise to raise a
//! budget over.

use crate::common::{scratch, spawn};

/// Histories per seed: about 10 s of one core each.
const HISTORIES_PER_SEED: &str = "100000";

#[test]
fn the_default_pairs_report_no_new_row_on_five_seeds() {
    let children: Vec<_> = (1..=5)
        .map(|seed| {
            let out = scratch("default_hunt", &format!("seed-{seed}"));
            let out = out.to_string_lossy().into_owned();
            let seed = seed.to_string();
            let args = [
                "hunt",
                "--seed",
                &seed,
                "--jobs",
                "1",
                "--max-histories",
                HISTORIES_PER_SEED,
                "--seconds",
                "3600",
                "--out",
                &out,
            ];
            (seed.clone(), spawn(&args))
        })
        .collect();
    for (seed, child) in children {
        let out = child.wait_with_output().expect("hunt ran");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let summary = stdout
            .lines()
            .find(|l| l.starts_with("summary:"))
            .unwrap_or("no summary line");
        assert!(
            out.status.success() && summary.starts_with("summary: 0 new,"),
            "seed {seed}: exit {:?}, {summary}\n{stdout}",
            out.status.code()
        );
        assert!(
            summary.contains("in 100000 histories"),
            "seed {seed} ran its whole budget: {summary}"
        );
    }
}
