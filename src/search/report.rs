//! What one `hunt` run (or one of its workers) reports: the findings, the counters and
//! the rows of the summary. Its own file because both the hunt loop and the workers' merge
//! build it, and neither should need the other's file for it.

use crate::check::history::History;
use crate::error::Error;
use crate::findings::summary::{Matched, Summary};
use crate::findings::Finding;
use crate::rules::RuleSet;
use std::time::Duration;

#[derive(Default, Debug)]
pub struct Report {
    pub histories: u64,
    pub elapsed: Duration,
    pub findings: Vec<Finding>,
    pub harness_bugs: Vec<(History, String)>,
    /// Per `INVARIANTS` index: steps on which a `Sometimes` property fired.
    pub sometimes: Vec<u64>,
    /// A finding could not be written (disk full, say): the search stopped there. The
    /// error names the finding and carries its history.
    pub write_error: Option<Error>,
    /// Per (rule set, invariant, known finding or new): histories, first time, witness.
    pub summary: Summary,
    /// The first history of each expected or known row, waiting for its witness.
    pub matched: Vec<MatchedEntry>,
    /// When the two sides' states first differed (the bug was *triggered*), and after
    /// how many histories; a detection needs an invariant to fail as well.
    pub first_divergence: Option<(Duration, u64)>,
    /// Per `Config::watch` entry: when a worker first met it.
    pub watched: Vec<Option<Duration>>,
}

/// An expected or known row's first history: its pair, side, invariant and finding.
pub type MatchedEntry = ([RuleSet; 2], usize, &'static str, Matched, History);
