//! The violations `promote` leaves out because they are expected or known, with the finding
//! each is: refusing an artifact without naming why left its user no way forward (a
//! `cargo fuzz` crash of `kraft_diff` is often KAFKA-21419 itself).

use crate::check::history::History;
use crate::error::Error;
use crate::findings::finding::{sides_of, Sink};
use crate::findings::triage::Known;
use crate::rules::RuleSet;

/// A violation [`Sink::promote_all`] left out because it is an expected or known finding:
/// what `promote` names, so its user learns which finding it is and where it is written up.
#[derive(Clone, Debug)]
pub struct Skipped {
    pub side_rules: RuleSet,
    pub invariant: &'static str,
    pub known: Known,
}

impl Skipped {
    /// Where the finding is written up: the first `docs/` path its reason names, else the
    /// findings list every expected and known finding is in.
    pub fn documented_in(&self) -> String {
        let reason = &self.known.reason;
        reason
            .find("docs/")
            .map(|i| {
                let tail = &reason[i..];
                let end = tail
                    .find(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ')' | ':'))
                    .unwrap_or(tail.len());
                tail[..end].to_string()
            })
            .unwrap_or_else(|| "docs/findings.md".to_string())
    }
}

impl Sink {
    /// The violations of `history` under `pair` that [`Sink::promote_all`] leaves out as
    /// expected or known, one per side and invariant, with the finding each is.
    pub fn skipped_all(
        &self,
        pair: [RuleSet; 2],
        history: &History,
    ) -> Result<Vec<Skipped>, Error> {
        let sides = sides_of(&pair);
        let own = self.own_violations(pair, history)?;
        let skipped = own.into_iter().filter_map(|(s, invariant, known)| {
            Some(Skipped {
                side_rules: sides[s],
                invariant,
                known: known?.clone(),
            })
        });
        Ok(skipped.collect())
    }
}
