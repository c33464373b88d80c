//! [`IdList`]: a short list of broker ids held inline, for the lists of a partition
//! registration (replicas, ISR, adding, removing, ELR, last known ELR). A registration's
//! lists hold distinct registered brokers (the controller validates every list it is
//! given, and the builder's lists are differences and filters of those), so at most
//! `BROKERS_MAX`. Copying a registration is then a plain copy, and comparing lists calls
//! no `memcmp`. A rule variant that listed a broker twice would break S0 first, and past
//! the capacity the model panics, which the oracle reports as a harness bug (never a
//! silent truncation).
//!
//! It dereferences to `[BrokerId]`, and its `Debug` and `Hash` are the slice's, as a
//! `Vec<BrokerId>`'s are: dumps and fingerprints do not change.

use super::{BrokerId, BROKERS_MAX};
use std::ops::{Deref, DerefMut};

/// Most ids one list holds: the broker bound. (Twice it made `exhaust`, which keeps every
/// state twice, use 40 % more memory than heap lists.)
pub const ID_LIST_MAX: usize = BROKERS_MAX;

#[derive(Clone, Copy)]
pub struct IdList {
    len: u8,
    ids: [BrokerId; ID_LIST_MAX],
}

impl IdList {
    pub const EMPTY: IdList = IdList {
        len: 0,
        ids: [0; ID_LIST_MAX],
    };

    pub fn as_slice(&self) -> &[BrokerId] {
        &self.ids[..usize::from(self.len)]
    }

    /// Appends `id`. A list past [`ID_LIST_MAX`] is a model bug (the registration's lists
    /// hold registered brokers): it panics, which the oracle reports as a harness bug.
    pub fn push(&mut self, id: BrokerId) {
        let n = usize::from(self.len);
        assert!(n < ID_LIST_MAX, "a broker id list past {ID_LIST_MAX} ids");
        self.ids[n] = id;
        self.len += 1;
    }

    pub fn retain(&mut self, mut keep: impl FnMut(&BrokerId) -> bool) {
        let mut kept = 0;
        for i in 0..usize::from(self.len) {
            let id = self.ids[i];
            if keep(&id) {
                self.ids[kept] = id;
                kept += 1;
            }
        }
        self.len = kept as u8;
    }

    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Removes consecutive repeats, as `Vec::dedup`.
    pub fn dedup(&mut self) {
        let mut kept = 0usize;
        for i in 0..usize::from(self.len) {
            if kept == 0 || self.ids[kept - 1] != self.ids[i] {
                self.ids[kept] = self.ids[i];
                kept += 1;
            }
        }
        self.len = kept as u8;
    }

    pub fn extend_from_slice(&mut self, ids: &[BrokerId]) {
        for &id in ids {
            self.push(id);
        }
    }
}

impl Default for IdList {
    fn default() -> Self {
        IdList::EMPTY
    }
}

impl Deref for IdList {
    type Target = [BrokerId];
    fn deref(&self) -> &[BrokerId] {
        self.as_slice()
    }
}

impl DerefMut for IdList {
    fn deref_mut(&mut self) -> &mut [BrokerId] {
        &mut self.ids[..usize::from(self.len)]
    }
}

impl PartialEq for IdList {
    fn eq(&self, other: &IdList) -> bool {
        self.len == other.len && self.iter().zip(other.iter()).all(|(a, b)| a == b)
    }
}

impl Eq for IdList {}

impl PartialEq<Vec<BrokerId>> for IdList {
    fn eq(&self, other: &Vec<BrokerId>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl PartialEq<IdList> for Vec<BrokerId> {
    fn eq(&self, other: &IdList) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<const N: usize> PartialEq<[BrokerId; N]> for IdList {
    fn eq(&self, other: &[BrokerId; N]) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl std::hash::Hash for IdList {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
    }
}

impl std::fmt::Debug for IdList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_slice().fmt(f)
    }
}

impl From<&[BrokerId]> for IdList {
    fn from(ids: &[BrokerId]) -> IdList {
        let mut out = IdList::EMPTY;
        out.extend_from_slice(ids);
        out
    }
}

impl From<Vec<BrokerId>> for IdList {
    fn from(ids: Vec<BrokerId>) -> IdList {
        IdList::from(ids.as_slice())
    }
}

impl From<&Vec<BrokerId>> for IdList {
    fn from(ids: &Vec<BrokerId>) -> IdList {
        IdList::from(ids.as_slice())
    }
}

impl<const N: usize> From<[BrokerId; N]> for IdList {
    fn from(ids: [BrokerId; N]) -> IdList {
        IdList::from(ids.as_slice())
    }
}

impl FromIterator<BrokerId> for IdList {
    fn from_iter<I: IntoIterator<Item = BrokerId>>(iter: I) -> IdList {
        let mut out = IdList::EMPTY;
        for id in iter {
            out.push(id);
        }
        out
    }
}

impl Extend<BrokerId> for IdList {
    fn extend<I: IntoIterator<Item = BrokerId>>(&mut self, iter: I) {
        for id in iter {
            self.push(id);
        }
    }
}

impl<'a> IntoIterator for &'a IdList {
    type Item = &'a BrokerId;
    type IntoIter = std::slice::Iter<'a, BrokerId>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaves_as_the_vec_it_replaces() {
        let v: Vec<BrokerId> = vec![3, 1, 3, 2];
        let mut l = IdList::from(&v);
        assert_eq!(l, v);
        assert_eq!(format!("{l:?}"), format!("{v:?}"));
        let hash = |x: &dyn Fn(&mut std::collections::hash_map::DefaultHasher)| {
            use std::hash::Hasher;
            let mut h = std::collections::hash_map::DefaultHasher::new();
            x(&mut h);
            h.finish()
        };
        use std::hash::Hash;
        assert_eq!(hash(&|h| l.hash(h)), hash(&|h| v.hash(h)));
        l.retain(|&b| b != 1);
        assert_eq!(l, [3, 3, 2]);
        l.dedup();
        assert_eq!(l, [3, 2]);
        l.sort_unstable();
        assert_eq!(l, [2, 3]);
        l.push(9);
        assert_eq!(l.len(), 3);
        assert_ne!(l, IdList::from([2, 3]));
        l.clear();
        assert!(l.is_empty());
        assert_eq!(l, IdList::default());
    }

    #[test]
    #[should_panic(expected = "past 16 ids")]
    fn a_list_past_its_capacity_is_a_model_bug() {
        let mut l = IdList::EMPTY;
        for b in 0..=ID_LIST_MAX as BrokerId {
            l.push(b);
        }
    }
}
