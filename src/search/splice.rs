//! Chains for `hunt`: a share of each worker's histories continue one of its own earlier
//! histories that met a row first (a new finding, or an expected or known row).
//!
//! Why: the rows found last are the later stages of a mechanism whose first stage shows
//! early. F18's data loss needs its stale ELR member re-added and elected after records
//! were acknowledged without it; F26's needs the feature turned off, a configuration
//! change, acknowledged records and the feature on again. A fresh history has to draw the
//! whole chain; a continuation of the history that showed the first stage draws the rest.
//!
//! How: the generator reads its input front to back (the mode byte apart, last), so a
//! byte prefix of what a history read decodes to a prefix of that history under the same
//! pair, guide and mode. A spliced input is a parent's bytes cut at a random point, fresh
//! bytes, and the parent's mode byte. At the cut the generator draws a new operation mix
//! (`Decode::continue_at`), since the parent's may leave out what the next stage needs,
//! and the history may run to [`GEN_SPLICED_EVENTS_MAX`] events.
//!
//! Parents are chosen pair first, so a pair with one mechanism gets as many continuations
//! as one with thirty rows.
//!
//! Architecture invariant: a worker splices only its own histories, with a random stream
//! of its own, so the findings still depend on the seed, the job count and the worker's
//! index alone. No corpus file is read: what a run rediscovers, it found itself.

use crate::search::rng::{Rng, INPUT_BYTES_MAX};

/// Events a spliced history may run to: twice a fresh one's.
pub use crate::search::generate::GEN_SPLICED_EVENTS_MAX;

/// Parents a worker keeps; past it, a new parent replaces a random one.
pub const SPLICE_PARENTS_MAX: usize = 256;

/// A spliced input's bytes at most (the parent's prefix, the fresh bytes, the mode byte).
pub const SPLICED_BYTES_MAX: usize = 2 * INPUT_BYTES_MAX;

/// Of every 4 histories a worker runs once it has a parent, how many are spliced. One:
/// a continuation runs its parent's prefix again, so it costs about three fresh
/// histories, and the fresh ones still find the first stages (measured:
/// docs/rediscovery-notes.md).
pub const SPLICED_QUARTERS: u64 = 1;

/// Fresh bytes after the cut at most: a later stage is a few operations (a fresh
/// history's 512 made continuations long and slow, for no more rows).
pub const SPLICE_TAIL_BYTES_MAX: usize = 128;

/// A history that met a row first: its input, and the pair and guide it ran under.
struct Parent {
    bytes: Vec<u8>,
    pair: usize,
    guide: usize,
}

/// Which pair and guide a spliced input runs under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spliced {
    pub pair: usize,
    pub guide: usize,
    /// Where the parent's prefix ends: the continuation starts there
    /// (`Decode::continue_at`).
    pub cut: usize,
}

/// One worker's parents and its own random stream.
pub struct Pool {
    parents: Vec<Parent>,
    /// Per pair index: its parents (kept with them, so that choosing one allocates
    /// nothing).
    count_of: Vec<usize>,
    /// The pairs with a parent, ascending.
    pairs: Vec<usize>,
    rng: Rng,
}

impl Pool {
    pub fn new(seed: u64) -> Pool {
        Pool {
            parents: Vec::new(),
            count_of: Vec::new(),
            pairs: Vec::new(),
            // Its own stream: the fresh inputs stay those of a run without chains.
            rng: Rng::new(seed ^ 0x5f1c_e5ed_c4a1_4e55),
        }
    }

    /// Keep `bytes` (run under `pairs[pair]` guided by side `guide`, which read `read`
    /// bytes before the mode byte) as a parent: the bytes read, then the mode byte.
    pub fn add(&mut self, bytes: &[u8], read: usize, pair: usize, guide: usize) {
        let Some((&mode, body)) = bytes.split_last() else {
            return;
        };
        let mut kept = body[..read.min(body.len())].to_vec();
        kept.push(mode);
        let parent = Parent {
            bytes: kept,
            pair,
            guide,
        };
        self.counted(pair, true);
        if self.parents.len() < SPLICE_PARENTS_MAX {
            self.parents.push(parent);
        } else {
            let k = self.rng.next_u64() as usize % SPLICE_PARENTS_MAX;
            let gone = std::mem::replace(&mut self.parents[k], parent);
            self.counted(gone.pair, false);
        }
    }

    /// Count a parent of `pair` in (`true`) or out.
    fn counted(&mut self, pair: usize, added: bool) {
        if self.count_of.len() <= pair {
            self.count_of.resize(pair + 1, 0);
        }
        let n = &mut self.count_of[pair];
        let at = self.pairs.partition_point(|&p| p < pair);
        if added {
            *n += 1;
            if *n == 1 {
                self.pairs.insert(at, pair);
            }
        } else {
            *n -= 1;
            if *n == 0 {
                self.pairs.remove(at);
            }
        }
    }

    /// Whether the history after `n` (a worker's count) is spliced, once there is a
    /// parent.
    pub fn turn(n: u64) -> bool {
        n % 4 < SPLICED_QUARTERS
    }

    /// Fill `buf` with a parent's bytes cut at a random point of the second half of what
    /// it read (the later stages start from a late state; the cut may fall at the very
    /// end, continuing the whole parent), fresh bytes and the parent's mode byte; `None`
    /// with no parent.
    pub fn splice(&mut self, buf: &mut Vec<u8>) -> Option<Spliced> {
        if self.parents.is_empty() {
            return None;
        }
        // A pair first, then one of its parents: each pair's chains get an equal share,
        // however many rows it has met (a preset with one mechanism is not drowned by a
        // pair with thirty rows).
        let pair = self.pairs[self.rng.next_u64() as usize % self.pairs.len()];
        let j = self.rng.next_u64() as usize % self.count_of[pair];
        let p = self.parents.iter().filter(|p| p.pair == pair).nth(j)?;
        let (mode, body) = p.bytes.split_last()?;
        let half = body.len() / 2;
        let cut = half + self.rng.next_u64() as usize % (body.len() - half + 1);
        let fresh = self.rng.input_len() % SPLICE_TAIL_BYTES_MAX + 1;
        let len = (cut + fresh).min(SPLICED_BYTES_MAX - 1);
        buf.clear();
        buf.extend_from_slice(&body[..cut]);
        self.rng.extend_to(buf, len);
        buf.truncate(len);
        buf.push(*mode);
        Some(Spliced {
            pair: p.pair,
            guide: p.guide,
            cut,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spliced_input_keeps_a_prefix_and_the_mode_byte() {
        let mut pool = Pool::new(3);
        let mut buf = Vec::new();
        assert_eq!(pool.splice(&mut buf), None);
        let parent: Vec<u8> = (0..200u8).collect();
        pool.add(&parent, 500, 4, 1);
        let turns: Vec<bool> = (0..4).map(Pool::turn).collect();
        assert_eq!(turns, [true, false, false, false], "one in four");
        let mut cuts = Vec::new();
        for _ in 0..64 {
            let s = pool.splice(&mut buf).expect("a parent");
            assert_eq!((s.pair, s.guide), (4, 1));
            assert_eq!(buf.last(), Some(&199), "the parent's mode byte stays last");
            assert!(buf.len() > s.cut && buf.len() <= s.cut + SPLICE_TAIL_BYTES_MAX + 1);
            assert_eq!(buf[..s.cut], parent[..s.cut], "the prefix is the parent's");
            cuts.push(s.cut);
        }
        assert!(
            cuts.iter().all(|&c| (99..=199).contains(&c)),
            "cuts in the second half of what the parent read: {cuts:?}"
        );
        assert!(
            cuts.iter().any(|&c| c < 130) && cuts.iter().any(|&c| c > 170),
            "cuts spread over it: {cuts:?}"
        );
    }

    #[test]
    fn each_pair_gets_its_share_of_continuations() {
        let mut pool = Pool::new(5);
        for _ in 0..30 {
            pool.add(&[1, 2, 3, 4], 3, 0, 0);
        }
        pool.add(&[1, 2, 3, 4], 3, 7, 1);
        let mut buf = Vec::new();
        let sevens = (0..200)
            .filter(|_| pool.splice(&mut buf).is_some_and(|s| s.pair == 7))
            .count();
        assert!(
            (70..=130).contains(&sevens),
            "pair 7's one parent: {sevens} of 200"
        );
    }

    #[test]
    fn a_full_pool_replaces_a_parent() {
        let mut pool = Pool::new(1);
        for i in 0..SPLICE_PARENTS_MAX + 10 {
            pool.add(&[i as u8, 0, 9, 7], 2, i, 0);
        }
        assert_eq!(pool.parents.len(), SPLICE_PARENTS_MAX);
        assert!(pool.parents.iter().any(|p| p.pair >= SPLICE_PARENTS_MAX));
        assert!(
            pool.parents.iter().all(|p| p.bytes == [p.pair as u8, 0, 7]),
            "the bytes read, then the mode byte"
        );
        // The pairs kept beside the parents are theirs, replacements counted out.
        let mut pairs: Vec<usize> = pool.parents.iter().map(|p| p.pair).collect();
        pairs.sort_unstable();
        pairs.dedup();
        assert_eq!(pool.pairs, pairs);
        for &p in &pairs {
            let n = pool.parents.iter().filter(|q| q.pair == p).count();
            assert_eq!(pool.count_of[p], n, "pair {p}");
        }
        let mut buf = Vec::new();
        assert!((0..100).all(|_| pool.splice(&mut buf).is_some()));
    }
}
