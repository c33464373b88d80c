//! Lockstep sharing: two sides of a run share one state while the rules they differ in
//! give the same answers. The model asks its rule questions only through [`Rules`] and is
//! otherwise a deterministic function of (state, event), so from one state two rule sets
//! that answered every question of a step alike reach the same next state and outcome.
//! [`Agreeing`] answers with the first rule set and notes whether the second would have
//! answered the same; the oracle runs the second side on its own only from the first step
//! where it would not (`oracle::run_with`), and tests compare the verdicts with runs
//! that never share.

use crate::model::log::Log;
use crate::model::{AlterPlan, AtSealAnswer, BrokerId, Partition, ReplicaState, Rules};
use crate::rules::RuleSet;
use std::cell::Cell;

/// Answers as `first`; `agreed` stays true while `second` would have answered every
/// question alike. After the first disagreement `second` is not asked again: its later
/// questions would come from a state its own run never reaches.
pub struct Agreeing<'a> {
    first: &'a RuleSet,
    second: &'a RuleSet,
    agreed: Cell<bool>,
}

impl<'a> Agreeing<'a> {
    pub fn new(first: &'a RuleSet, second: &'a RuleSet) -> Agreeing<'a> {
        Agreeing {
            first,
            second,
            agreed: Cell::new(true),
        }
    }

    /// Whether every question so far got the same answer from both.
    pub fn agreed(&self) -> bool {
        self.agreed.get()
    }

    /// The first's answer, after asking the second while they still agree (and only when
    /// the rule sets differ at all: equal sets always agree).
    fn answer<T: PartialEq>(&self, ask: impl Fn(&RuleSet) -> T) -> T {
        let first = ask(self.first);
        if self.agreed.get() && self.first != self.second && ask(self.second) != first {
            self.agreed.set(false);
        }
        first
    }
}

/// `Rules` for `Agreeing`: every hook asks `answer`, once per signature below.
macro_rules! agreeing_hooks {
    ($($hook:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {
        impl Rules for Agreeing<'_> {
            $(fn $hook(&self, $($arg: $ty),*) -> $ret {
                self.answer(|r| Rules::$hook(r, $($arg),*))
            })*
        }
    };
}

crate::model::with_rule_hooks!(agreeing_hooks);
