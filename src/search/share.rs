//! Which pair a fresh `hunt` history runs: the pairs in turn, and every other history one
//! of the pairs whose expected findings this worker has not met yet.
//!
//! Why: an expected finding is the bug one preset exists to show (always-write's G1,
//! zk-style's F2, release 4.0's F19b), so only one pair in twelve can show it, and its
//! rarest rows took a minute or more when every pair had the same share. The pairs whose
//! expected rows have all been met (most of them within a second) give their half of the
//! share to those that have not. Known findings (holes of `complete`, which every pair
//! runs) are not directed: any pair can show them.
//!
//! Architecture invariant: a worker's shares depend only on what it met itself, so the
//! findings still depend on the seed, the job count and the worker's index alone.

use crate::findings::triage::{Kind, Known};
use crate::rules::RuleSet;

/// One worker's turn over the pairs.
pub struct Shares {
    pairs: usize,
    /// Per pair: the expected rows (finding id, invariant) its left side can show, not
    /// yet met by this worker.
    unmet: Vec<Vec<(String, String)>>,
    /// Fresh histories so far: the odd ones are directed while a pair has an unmet row.
    fresh: u64,
    /// Round-robin turns, and directed ones: each keeps its own rotation.
    turns: u64,
    directed: u64,
}

/// The pair (index) and guide (side) of a fresh history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Turn {
    pub pair: usize,
    pub guide: usize,
}

impl Shares {
    pub fn new(pairs: &[[RuleSet; 2]], known: &[Known]) -> Shares {
        let unmet = pairs
            .iter()
            .map(|[left, _]| {
                let mut rows: Vec<(String, String)> = known
                    .iter()
                    .filter(|k| k.kind == Kind::Expected && k.covers(left))
                    .map(|k| (k.display_id().to_string(), k.invariant.clone()))
                    .collect();
                rows.dedup();
                rows
            })
            .collect();
        Shares {
            pairs: pairs.len(),
            unmet,
            fresh: 0,
            turns: 0,
            directed: 0,
        }
    }

    /// The next fresh history's pair and guide. The guide alternates so each side's
    /// reachable states get explored.
    pub fn next(&mut self) -> Turn {
        let n = self.fresh;
        self.fresh += 1;
        let wanting = self.unmet.iter().filter(|rows| !rows.is_empty()).count();
        if n % 2 == 1 && wanting > 0 {
            let d = self.directed;
            self.directed += 1;
            let nth = (d as usize) % wanting;
            let pair = (0..self.pairs)
                .filter(|&p| !self.unmet[p].is_empty())
                .nth(nth)
                .expect("counted above");
            return Turn {
                pair,
                guide: ((d / wanting as u64) % 2) as usize,
            };
        }
        let t = self.turns;
        self.turns += 1;
        Turn {
            pair: (t as usize) % self.pairs,
            guide: ((t / self.pairs as u64) % 2) as usize,
        }
    }

    /// This worker met the expected or known row (`id`, `invariant`): no pair waits for
    /// it any more.
    pub fn met(&mut self, id: &str, invariant: &str) {
        for rows in &mut self.unmet {
            rows.retain(|(i, v)| !(i == id && v == invariant));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::attribution::default_pairs;
    use crate::findings::triage::embedded;

    #[test]
    fn pairs_with_unmet_expected_rows_get_every_other_history() {
        let pairs = default_pairs();
        let mut shares = Shares::new(&pairs, embedded());
        let always = pairs
            .iter()
            .position(|[a, _]| a.to_string() == "complete+kafka-21419-always-write")
            .expect("a default pair");
        let count =
            |shares: &mut Shares, n: usize| (0..n).filter(|_| shares.next().pair == always).count();
        let even = pairs.len() * 100;
        // Every pair has expected rows at first: directed turns go round all of them.
        let first = count(&mut shares, 2 * even);
        assert!(
            first >= 200,
            "at least its turn and its directed turn: {first}"
        );
        // Meet every expected row but always-write's G1: its pair takes the directed half.
        for k in embedded().iter().filter(|k| k.kind == Kind::Expected) {
            if !(k.display_id() == "always-write" && k.invariant == "G1") {
                shares.met(k.display_id(), &k.invariant);
            }
        }
        let directed = count(&mut shares, 2 * even);
        assert_eq!(
            directed,
            100 + even,
            "half the histories, and its turn of the rest"
        );
        shares.met("always-write", "G1");
        assert_eq!(count(&mut shares, 2 * even), 200, "back to its turn");
    }
}
