//! The states `exhaust` has seen, as 64-bit fingerprints: TLC's trade. A state is kept as
//! its fingerprint only (8 bytes where the state is kilobytes), so two distinct states
//! whose fingerprints collide are merged and the second one's successors go unexplored.
//! The bound on that chance is printed with every result: for `n` states it is at most
//! n(n-1)/2 · 2^-64, treating fingerprints as uniform (they are a keyed multiply-fold
//! hash with a final avalanche over every field `Cluster` compares).
//!
//! The set is split in [`SHARDS`] by the fingerprint's top bits, so that a depth's merge
//! runs on every thread: each thread owns whole shards, and one fingerprint always lands in
//! the same shard, so the first of equal fingerprints in the search's order is found in
//! parallel exactly as one thread would find it.

use crate::model::Cluster;
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// Shards of the seen-set (a power of two, at least `JOBS_MAX`, so every thread owns some).
pub(crate) const SHARDS: usize = 64;

/// The fingerprint of a state: every field `Cluster`'s equality compares (its `Hash`, which
/// leaves out fetcher fields the model never reads, then those fields too), so equal
/// fingerprints mean equal states up to the collision bound.
pub(crate) fn fingerprint(c: &Cluster) -> u64 {
    let mut h = Fingerprinter::default();
    c.hash(&mut h);
    for p in &c.runtime.partitions {
        for local in &p.locals {
            local.hash_unread(&mut h);
        }
    }
    h.finish()
}

/// The chance that the search merged two distinct states among `states` fingerprints, at
/// most: the birthday bound over 2^64 values.
pub fn collision_bound(states: usize) -> f64 {
    let n = states as f64;
    n * (n - 1.0) / 2.0 / 2f64.powi(64)
}

/// Fingerprints seen, in shards.
pub(crate) struct Fingerprints {
    pub(crate) shards: Vec<Shard>,
}

pub(crate) type Shard = HashSet<u64, BuildHasherDefault<Identity>>;

impl Default for Fingerprints {
    fn default() -> Fingerprints {
        Fingerprints {
            shards: (0..SHARDS).map(|_| Shard::default()).collect(),
        }
    }
}

/// The shard a fingerprint belongs to: its top bits (the tables index by the low ones).
pub(crate) fn shard_of(fp: u64) -> usize {
    (fp >> (64 - SHARDS.trailing_zeros())) as usize
}

impl Fingerprints {
    pub(crate) fn contains(&self, fp: u64) -> bool {
        self.shards[shard_of(fp)].contains(&fp)
    }

    /// Whether `fp` is new (and now seen).
    pub(crate) fn insert(&mut self, fp: u64) -> bool {
        self.shards[shard_of(fp)].insert(fp)
    }
}

/// Word-at-a-time hashing: each word is folded into the state by a 64×64→128-bit multiply
/// (the high and low halves xored), keyed by two odd constants so a zero word still moves
/// it, then a final avalanche.
#[derive(Default)]
struct Fingerprinter {
    state: u64,
    words: u64,
}

impl Fingerprinter {
    const KEY_STATE: u64 = 0x9e37_79b9_7f4a_7c15;
    const KEY_WORD: u64 = 0xbf58_476d_1ce4_e5b9;

    fn add(&mut self, word: u64) {
        let m = u128::from(self.state ^ Self::KEY_STATE) * u128::from(word ^ Self::KEY_WORD);
        self.state = (m as u64) ^ ((m >> 64) as u64);
        self.words += 1;
    }
}

impl Hasher for Fingerprinter {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.add(u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last) ^ ((rest.len() as u64) << 60));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_i32(&mut self, i: i32) {
        self.add(u64::from(i as u32));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_i64(&mut self, i: i64) {
        self.add(i as u64);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    /// MurmurHash3's 64-bit finalizer over the state and the word count.
    fn finish(&self) -> u64 {
        let mut h = self.state ^ self.words.rotate_left(32);
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

/// The set's keys are fingerprints already: used as they are.
#[derive(Default)]
pub(crate) struct Identity(u64);

impl Hasher for Identity {
    fn write(&mut self, _: &[u8]) {
        unreachable!("only u64 keys are hashed");
    }

    fn write_u64(&mut self, i: u64) {
        self.0 = i;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fetch_state_the_hash_leaves_out_still_changes_the_fingerprint() {
        let mut c = Cluster::default();
        c.runtime.partitions.push(Default::default());
        let before = fingerprint(&c);
        c.runtime.partitions[0]
            .locals
            .push(crate::model::broker::Local::fresh(1, 0));
        let with_local = fingerprint(&c);
        assert_ne!(before, with_local);
        c.runtime.partitions[0].locals[0].fetchers.consolidation =
            Some(crate::model::broker::FetchState {
                offset: 0,
                leader_epoch: -1,
                last_fetched_epoch: 3,
                phase: crate::model::broker::FetchPhase::Fetching,
            });
        let epoch3 = fingerprint(&c);
        c.runtime.partitions[0].locals[0]
            .fetchers
            .consolidation
            .as_mut()
            .unwrap()
            .last_fetched_epoch = 4;
        assert_ne!(epoch3, fingerprint(&c));
    }

    #[test]
    fn the_bound_grows_with_the_square_of_the_states() {
        assert_eq!(collision_bound(1), 0.0);
        let b = collision_bound(10_000_000);
        assert!(b > 2.0e-6 && b < 3.0e-6, "{b}");
    }

    #[test]
    fn shards_cover_the_top_bits() {
        assert_eq!(shard_of(0), 0);
        assert_eq!(shard_of(u64::MAX), SHARDS - 1);
    }
}
