//! The states `exhaust` has seen: each stored once, in the search's arena, and found again
//! by a cheap hash of the whole state (controller, brokers, ghosts) with an equality check
//! on every hash match, so merging stays exact.

use crate::model::{Cluster, Event};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// The states seen, by their hash, as indices into the arena (which holds each state
/// once); equal hashes are told apart by comparing the states.
#[derive(Default)]
pub(crate) struct Seen {
    first: HashMap<u64, usize, BuildHasherDefault<HashKey>>,
    /// Further states with a hash already in `first` (rare).
    more: HashMap<u64, Vec<usize>, BuildHasherDefault<HashKey>>,
}

impl Seen {
    pub(crate) fn find(
        &self,
        arena: &[(Cluster, Option<(usize, Event)>)],
        hash: u64,
        state: &Cluster,
    ) -> Option<usize> {
        self.find_in(arena, |(c, _)| c, hash, state)
    }

    /// `find` over any list whose items hold a state (`exhaust`'s arena, or a batch).
    pub(crate) fn find_in<T>(
        &self,
        items: &[T],
        state_of: impl Fn(&T) -> &Cluster,
        hash: u64,
        state: &Cluster,
    ) -> Option<usize> {
        let first = *self.first.get(&hash)?;
        if state_of(&items[first]) == state {
            return Some(first);
        }
        let more = self.more.get(&hash)?;
        more.iter().copied().find(|&i| state_of(&items[i]) == state)
    }

    pub(crate) fn insert(&mut self, hash: u64, idx: usize) {
        if self.first.contains_key(&hash) {
            self.more.entry(hash).or_default().push(idx);
        } else {
            self.first.insert(hash, idx);
        }
    }
}

/// A state's hash for `Seen`: FxHash-style multiply-rotate over `Cluster`'s `Hash`, much
/// cheaper than SipHash on these word-sized fields. Collisions cost a comparison only.
pub(crate) fn state_hash(c: &Cluster) -> u64 {
    let mut h = StateHasher(0);
    c.hash(&mut h);
    h.finish()
}

struct StateHasher(u64);

impl StateHasher {
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(Self::SEED);
    }
}

impl Hasher for StateHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.add(u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_i32(&mut self, i: i32) {
        self.add(i as u32 as u64);
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

    /// The multiply leaves the low bits weak, and the table indexes by them: a final
    /// avalanche (MurmurHash3's 64-bit finalizer) spreads every input bit over all of them.
    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

/// The `Seen` keys are already hashes: use them as they are.
#[derive(Default)]
struct HashKey(u64);

impl Hasher for HashKey {
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
