//! Judging a history: the history format (what a run takes), the property list, and the
//! oracle that runs a history under one or two rule sets and checks every property after
//! every step. Uses `model` and `rules`; nothing here searches or writes files, except
//! `History::load`, which reads one.

pub mod agree;
pub mod focused;
pub mod heal;
pub mod history;
pub mod invariants;
pub mod judge;
pub mod lockstep;
pub mod oracle;
pub mod verdict;
