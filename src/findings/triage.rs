//! Known findings: holes that are understood and accepted (each written up in
//! docs/findings.md and backed by a regression). Every engine asks the same question here
//! before it reports a violation: is this one already known?
//!
//! A known finding is matched by its mechanism, not only by (rule set, invariant): a
//! predicate over the trace up to the violating step (which events occur, which rule
//! decisions fired, what the violation's detail says). A violation of the same invariant
//! by another mechanism is new.

use crate::check::history::History;
use crate::check::invariants::{self, Check, INVARIANTS};
use crate::check::oracle::{self, SideRun, Violation};
use crate::error::Error;
use crate::findings::partition::{decisions_on_partition, partition_of};
use crate::rules::{Family, RuleSet};
use std::cell::OnceCell;
use std::path::Path;

/// Where the known findings of this repository live (relative to its root); the build
/// embeds that file ([`embedded`]), so a run anywhere knows them.
pub const KNOWN_DEFAULT_PATH: &str = "corpus/known.json";

/// The known-findings format this build writes; it reads this one and 2 (no `expected`).
pub const KNOWN_FORMAT: u32 = 3;

/// What a matched violation is: the documented upstream bug a rule variant exists to show
/// (a preset's reason to be), or a documented hole of `complete` or upstream.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Expected,
    #[default]
    Known,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Expected => "expected",
            Kind::Known => "known",
        }
    }
}

/// A finding that is understood and accepted (a documented upstream hole): engines count
/// it instead of reporting it as new.
#[derive(Clone, PartialEq, Eq, Debug, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Known {
    /// Expected or known: which section of the file it came from.
    #[serde(skip)]
    pub kind: Kind,
    /// Its name: `F6` (docs/findings.md) or the upstream ticket (`KAFKA-21419`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub id: String,
    pub rules: String,
    pub invariant: String,
    /// The family whose rules the hole is in (`kraft` or `inkless`), when it is one: the
    /// finding is then known on every rule set that runs the same rules of that family as
    /// `rules`, whatever the other family runs (the other family only changes which histories
    /// reach the hole; the mechanism still has to hold). Absent: on `rules` only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    /// The rules the mechanism runs through: when given, the finding is known on every rule
    /// set whose variants of these rules are `rules`'s (`derivation`), or one of those
    /// listed (`lag=uncapped,leader-cap,both-caps`: the mechanism holds under each),
    /// whatever its other rules (they only change which histories reach it; the mechanism
    /// still has to hold). Empty: on every rule set (no rule variant takes part: shared
    /// code). It overrides `scope`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub through: Option<Vec<String>>,
    /// What makes a violation this finding.
    #[serde(default)]
    pub mechanism: Mechanism,
    /// Where it is written up (e.g. `docs/findings.md F4`) and why it is accepted.
    pub reason: String,
}

/// A rule family, as a known finding's scope.
#[derive(Clone, Copy, PartialEq, Eq, Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Kraft,
    Inkless,
}

impl Scope {
    fn family(self) -> Family {
        match self {
            Scope::Kraft => Family::Kraft,
            Scope::Inkless => Family::Inkless,
        }
    }
}

/// A predicate over the trace of the violating side, up to and including the violating
/// step (the whole history for a violation at quiescence). Every condition must hold; the
/// empty mechanism (only for findings promoted in a run, never in a file) matches any.
#[derive(Clone, PartialEq, Eq, Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mechanism {
    /// The violation's detail contains this text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Event kinds (`op` names of the history format) that occur.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<String>,
    /// Event kinds that do not occur.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub without_events: Vec<String>,
    /// Rule decisions, as the sometimes-properties that count them (`V11`: a diversion),
    /// that fired.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decisions: Vec<String>,
    /// Rule decisions that did not fire.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub without_decisions: Vec<String>,
    /// An event kind addressing a partition: `without_decisions` then count from its last
    /// accepted occurrence on the violating partition on, in the per-partition pass
    /// (`findings::partition`); the whole-history pass counts every step (rejects more).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub without_decisions_since: Option<String>,
    /// `rule=variant`: the violation is gone when this one rule of the violating rule set
    /// is set to this variant (its fix) and the same history is run again. Names the
    /// cause of an expected finding: the buggy variant itself, whatever else differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixed_by: Option<String>,
}

impl Mechanism {
    fn is_empty(&self) -> bool {
        *self == Mechanism::default()
    }

    /// What fixing the rule [`Mechanism::fixed_by`] names does to the violation `v` of
    /// `history` under `rules` ([`AfterFix::Gone`] when it names none). Gone also when what
    /// is left is another finding of `known` that its detail alone names: the fix then runs
    /// the history into a documented hole of its own (docs/findings.md F22 after #760's
    /// at-seal admission), which does not make this violation new.
    pub fn after_fix(
        &self,
        history: &History,
        rules: &RuleSet,
        v: &Violation,
        known: &[Known],
    ) -> AfterFix {
        if self.fixed_by.is_none() {
            return AfterFix::Gone;
        }
        self.apply_fix(rules).map_or(AfterFix::Same, |fixed| {
            left_after(history, &fixed, v, known)
        })
    }

    /// When two of the rule set's expected bugs make the violation together, each fix alone
    /// leaves it: it is this one's if its fix moved it to another step and fixing
    /// it with `other` removes it (CE-a's stalled follower that CE-e's one-step
    /// reassignment puts back into the ISR). [`known_as`] asks only then.
    pub fn fixed_with(
        &self,
        other: &Mechanism,
        history: &History,
        rules: &RuleSet,
        v: &Violation,
        known: &[Known],
    ) -> bool {
        if other.fixed_by == self.fixed_by {
            return false;
        }
        let both = self.apply_fix(rules).and_then(|r| other.apply_fix(&r));
        both.is_some_and(|both| left_after(history, &both, v, known) == AfterFix::Gone)
    }

    /// `rules` with the rule [`Mechanism::fixed_by`] names set to its fix, on a copy (no
    /// parse of the whole rule set: this runs on every candidate violation of a hunt).
    /// `None` without a fix, or for one this build does not know (checked when the file
    /// was read).
    fn apply_fix(&self, rules: &RuleSet) -> Option<RuleSet> {
        let (id, variant) = self.fixed_by.as_deref()?.split_once('=')?;
        let rule = crate::rules::RULES.iter().find(|r| r.id == id)?;
        let i = rule.position(variant)?;
        let mut fixed = *rules;
        (rule.set)(&mut fixed, i);
        Some(fixed)
    }

    /// A mechanism that only a detail names (no fix to run, no trace to read).
    fn detail_only(&self) -> Option<&str> {
        let only = self.fixed_by.is_none() && !self.needs_trace();
        self.detail.as_deref().filter(|_| only)
    }

    fn needs_trace(&self) -> bool {
        !(self.events.is_empty()
            && self.without_events.is_empty()
            && self.decisions.is_empty()
            && self.without_decisions.is_empty())
    }

    /// Whether the violation `v` has this mechanism; `trace` gives the trace up to its
    /// step, asked for only when a condition needs it.
    pub fn holds<'t>(&self, v: &Violation, trace: &dyn Fn() -> &'t Trace) -> bool {
        if !self.detail.as_deref().is_none_or(|d| v.detail.contains(d)) {
            return false;
        }
        if !self.needs_trace() {
            return true;
        }
        let trace = trace();
        // All of `wanted` occur in `seen`, none of `unwanted` does.
        let fits = |wanted: &[String], unwanted: &[String], seen: &[&str]| {
            wanted.iter().all(|w| seen.contains(&w.as_str()))
                && !unwanted.iter().any(|u| seen.contains(&u.as_str()))
        };
        fits(&self.events, &self.without_events, &trace.events)
            && fits(&self.decisions, &self.without_decisions, &trace.decisions)
    }
}

/// What happened up to a step: the event kinds, and the decisions that fired.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Trace {
    pub events: Vec<&'static str>,
    pub decisions: Vec<&'static str>,
}

impl Trace {
    /// Replay `history` under `rules` through `step` (all of it when `step` is past the
    /// end, as for a violation at quiescence).
    pub fn up_to(history: &History, rules: &RuleSet, step: usize) -> Trace {
        let end = (step + 1).min(history.events.len());
        let prefix = History {
            events: history.events[..end].to_vec(),
            expect: Vec::new(),
            ..history.clone()
        };
        let run = oracle::run(&prefix, &[*rules], false);
        Trace::of_run(&prefix, &run.sides[0], step)
    }

    /// The trace of one partition: the events of the whole history, and the decisions
    /// that fired on partition `partition` alone (`findings::partition`), from the last
    /// accepted event of kind `since` on that partition on when one is given.
    pub fn on_partition(
        history: &History,
        rules: &RuleSet,
        step: usize,
        partition: usize,
        since: Option<&str>,
    ) -> Trace {
        let end = (step + 1).min(history.events.len());
        let mut events: Vec<&'static str> = history.events[..end].iter().map(|e| e.op()).collect();
        events.sort_unstable();
        events.dedup();
        let decisions = decisions_on_partition(history, rules, step, partition, since);
        Trace { events, decisions }
    }

    /// The same trace read off a run of the whole history, without a replay: a decision
    /// fired by `step` iff its first firing (`SideRun::first_fired`) is at `step` or
    /// before. The sometimes-properties count steps only, never healing, so a prefix's
    /// run fires exactly those (a test compares the two on generated histories).
    pub fn of_run(history: &History, run: &SideRun, step: usize) -> Trace {
        let end = (step + 1).min(history.events.len());
        let mut events: Vec<&'static str> = history.events[..end].iter().map(|e| e.op()).collect();
        events.sort_unstable();
        events.dedup();
        let decisions = INVARIANTS
            .iter()
            .zip(&run.first_fired)
            .filter(|(i, &first)| matches!(i.check, Check::Sometimes(_)) && (first as usize) < end)
            .map(|(i, _)| i.id)
            .collect();
        Trace { events, decisions }
    }
}

impl Known {
    /// Its id as rows print it: a finding promoted in this run has none.
    pub fn display_id(&self) -> &str {
        if self.id.is_empty() {
            "promoted"
        } else {
            &self.id
        }
    }

    /// Whether the violation `v` under `rules` is this finding, `trace` giving the trace
    /// up to its step (see [`Mechanism::holds`]).
    pub fn matches<'t>(
        &self,
        rules: &RuleSet,
        v: &Violation,
        trace: &dyn Fn() -> &'t Trace,
    ) -> bool {
        self.invariant == v.invariant && self.covers(rules) && self.mechanism.holds(v, trace)
    }

    /// Whether `v` under `rules` is this finding by its detail alone ([`Mechanism::after_fix`]).
    fn named_by_detail(&self, rules: &RuleSet, v: &Violation) -> bool {
        self.invariant == v.invariant
            && self
                .mechanism
                .detail_only()
                .is_some_and(|d| v.detail.contains(d))
            && self.covers(rules)
    }

    /// Whether a violation under `rules` can be this finding ([`Known::through`], else
    /// [`Known::scope`]).
    pub fn covers(&self, rules: &RuleSet) -> bool {
        let Ok(k) = RuleSet::parse(&self.rules) else {
            return false;
        };
        if let Some(through) = &self.through {
            return through.iter().all(|item| through_holds(item, &k, rules));
        }
        match self.scope {
            None => k == *rules,
            Some(s) => k.same_rules_of(rules, s.family()),
        }
    }
}

/// One `through` item: `rule` (the violating rule set runs the entry's variant of it) or
/// `rule=a,b` (it runs one of these variants: the mechanism holds under each).
fn through_holds(item: &str, entry: &RuleSet, rules: &RuleSet) -> bool {
    let (id, variants) = match item.split_once('=') {
        Some((id, list)) => (id, Some(list)),
        None => (item, None),
    };
    let Some(rule) = crate::rules::RULES.iter().find(|r| r.id == id) else {
        return false;
    };
    match variants {
        None => (rule.get)(entry) == (rule.get)(rules),
        Some(list) => list.split(',').any(|v| v == rule.variant_of(rules).name),
    }
}

/// What is left of `v`'s invariant when `history` runs under `rules`.
fn left_after(history: &History, rules: &RuleSet, v: &Violation, known: &[Known]) -> AfterFix {
    let Some(run) = crate::check::focused::run_focused(history, *rules, v.invariant, false) else {
        return AfterFix::Same;
    };
    let mut left = run.violations.iter().filter(|l| l.invariant == v.invariant);
    if left
        .clone()
        .all(|l| known.iter().any(|k| k.named_by_detail(rules, l)))
    {
        return AfterFix::Gone;
    }
    // Moved to another step: the fixed bug had a part in it, unless an entry without a fix
    // of its own names what is left by its mechanism on the fixed run (KAFKA-15665's early
    // completion fixed, the history meets F13's later). (A detail that changes at the same
    // step, as at quiescence, is not taken for that: those runs heal the cluster and cost
    // the most, and no documented composition needs them.)
    if left.all(|l| l.step == v.step) {
        AfterFix::Same
    } else if left_is_documented(history, rules, v, known) {
        AfterFix::Gone
    } else {
        AfterFix::Changed
    }
}

/// Whether what is left of `v`'s invariant under `rules` (after a fix) is a documented
/// mechanism that needs no fix to name it, judged on the fixed run's own trace. Asked
/// only once the violation moved, so a second run (counting decisions) is rare.
fn left_is_documented(history: &History, rules: &RuleSet, v: &Violation, known: &[Known]) -> bool {
    let Some(run) = crate::check::focused::run_focused(history, *rules, v.invariant, true) else {
        return false;
    };
    let plain = known.iter().filter(|k| k.mechanism.fixed_by.is_none());
    let mut left = run.violations.iter().filter(|l| l.invariant == v.invariant);
    left.clone().next().is_some()
        && left.all(|l| {
            let trace = OnceCell::new();
            let trace = || trace.get_or_init(|| Trace::of_run(history, &run, l.step));
            plain.clone().any(|k| k.matches(rules, l, &trace))
        })
}

/// What a fix did to a violation ([`Mechanism::after_fix`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum AfterFix {
    /// Gone, or only a known hole named by its detail is left (or, at another step, one an
    /// entry without a fix names by its mechanism).
    Gone,
    /// Still there, at another step: the fixed bug had a part in it.
    Changed,
    /// Still there at the same step (or the fix is unknown to this build).
    Same,
}

/// The first of `known` that matches the violation `v` of `run` (a side of a run of
/// `history`). The trace is read off `run` once, when a mechanism first needs it.
pub fn known_as<'a>(
    known: &'a [Known],
    history: &History,
    run: &SideRun,
    v: &Violation,
) -> Option<&'a Known> {
    let trace = OnceCell::new();
    let trace = || trace.get_or_init(|| Trace::of_run(history, run, v.step));
    let rules = &run.rules;
    let mut changed: Vec<&Known> = Vec::new();
    for k in known.iter().filter(|k| k.matches(rules, v, &trace)) {
        match k.mechanism.after_fix(history, rules, v, known) {
            AfterFix::Gone => return Some(k),
            AfterFix::Changed => changed.push(k),
            AfterFix::Same => {}
        }
    }
    // No entry explains the violation alone. Two may together, if one of them moved it; the
    // other is any expected bug of the rule set, whatever invariant it is filed under (CE-a's
    // stalled follower, an INV-1 entry, elected after CE-e's one-step reassignment: INV-2).
    // Most violations a hunt triages never get here, and pay no extra run.
    let mut others: Vec<&Known> = Vec::new();
    for k in known.iter().filter(|k| k.mechanism.fixed_by.is_some()) {
        let fix = &k.mechanism.fixed_by;
        if !others.iter().any(|o| &o.mechanism.fixed_by == fix) && k.covers(rules) {
            others.push(k);
        }
    }
    let composed = changed.into_iter().find(|a| {
        others.iter().any(|b| {
            a.mechanism
                .fixed_with(&b.mechanism, history, rules, v, known)
        })
    });
    composed.or_else(|| known_on_partition(known, history, rules, v))
}

/// An entry that names decisions that must not fire, judged on the violating partition's
/// own trace (from its `without_decisions_since` event on, if it names one): a leader
/// change on another partition, or on this one before the abort, does not make F11's
/// aborted switch another mechanism. Only those entries: a decision that fired on the
/// partition fired in the history too, so the whole-history pass already judged every
/// other entry.
fn known_on_partition<'a>(
    known: &'a [Known],
    history: &History,
    rules: &RuleSet,
    v: &Violation,
) -> Option<&'a Known> {
    let partition = partition_of(v)?;
    (known.iter())
        .filter(|k| !k.mechanism.without_decisions.is_empty())
        .find(|k| {
            let since = k.mechanism.without_decisions_since.as_deref();
            let trace = OnceCell::new();
            let trace = || {
                trace.get_or_init(|| Trace::on_partition(history, rules, v.step, partition, since))
            };
            k.matches(rules, v, &trace)
                && k.mechanism.after_fix(history, rules, v, known) == AfterFix::Gone
        })
}

/// Whether any of `known` matches the violation.
pub fn is_known(known: &[Known], history: &History, run: &SideRun, v: &Violation) -> bool {
    known_as(known, history, run, v).is_some()
}

/// Read a known-findings file (`corpus/known.json`); rule sets must parse.
pub fn load_known(path: &Path) -> Result<Vec<Known>, Error> {
    let text = std::fs::read_to_string(path).map_err(Error::io(path))?;
    parse_known(&text).map_err(Error::input(path))
}

/// The expected and known findings committed with this build ([`KNOWN_DEFAULT_PATH`],
/// embedded: the working directory does not matter).
pub fn embedded() -> &'static [Known] {
    static KNOWN: std::sync::OnceLock<Vec<Known>> = std::sync::OnceLock::new();
    KNOWN.get_or_init(|| {
        parse_known(include_str!("../../corpus/known.json")).expect("corpus/known.json is valid")
    })
}

/// The findings a command uses: `none` for none, a given file, else the embedded ones.
pub fn load_known_or_default(path: Option<&Path>) -> Result<Vec<Known>, Error> {
    match path {
        Some(p) if p.as_os_str() == "none" => Ok(Vec::new()),
        Some(p) => load_known(p),
        None => Ok(embedded().to_vec()),
    }
}

#[derive(serde::Deserialize)]
struct Version {
    format: u32,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct KnownFile {
    #[allow(dead_code)]
    format: u32,
    #[serde(default)]
    expected: Vec<Known>,
    known: Vec<Known>,
}

/// Parse the text of a known-findings file.
pub fn parse_known(text: &str) -> Result<Vec<Known>, String> {
    let version: Version =
        serde_json::from_str(text).map_err(|e| format!("malformed known-findings file: {e}"))?;
    if version.format == 1 {
        return Err(
            "known-findings format 1 matched by (rule set, invariant) only; format 2 \
                    needs an `id` and a `mechanism` per entry (docs/findings.md, Triage)"
                .to_string(),
        );
    }
    if !(2..=KNOWN_FORMAT).contains(&version.format) {
        return Err(format!(
            "unknown format version {} (this isrfuzz reads versions 2 and {KNOWN_FORMAT})",
            version.format
        ));
    }
    let file: KnownFile =
        serde_json::from_str(text).map_err(|e| format!("malformed known-findings file: {e}"))?;
    if version.format == 2 && !file.expected.is_empty() {
        return Err("format 2 has no `expected` section (write format 3)".to_string());
    }
    // Expected first: a preset's own bug is the narrower explanation of a violation.
    let expected = file.expected.into_iter().map(|k| Known {
        kind: Kind::Expected,
        ..k
    });
    let all: Vec<Known> = expected.chain(file.known).collect();
    for k in &all {
        check_entry(k)?;
    }
    Ok(all)
}

fn check_entry(k: &Known) -> Result<(), String> {
    RuleSet::parse(&k.rules)?;
    if invariants::by_id(&k.invariant).is_none() {
        return Err(format!("unknown invariant `{}`", k.invariant));
    }
    if k.id.is_empty() || k.mechanism.is_empty() {
        return Err(format!(
            "{} {}: a known finding needs an `id` and a non-empty `mechanism`",
            k.rules, k.invariant
        ));
    }
    for item in k.through.iter().flatten() {
        let (id, variants) = item.split_once('=').unwrap_or((item, ""));
        let Some(rule) = crate::rules::RULES.iter().find(|r| r.id == id) else {
            return Err(format!("{}: unknown rule `{id}` in `through`", k.id));
        };
        let unknown = variants
            .split(',')
            .find(|v| !v.is_empty() && rule.position(v).is_none());
        if let Some(v) = unknown {
            return Err(format!(
                "{}: unknown variant `{v}` of `{id}` in `through`",
                k.id
            ));
        }
    }
    let m = &k.mechanism;
    if let Some(fix) = &m.fixed_by {
        RuleSet::parse(&format!("complete+{fix}"))
            .map_err(|e| format!("{}: fixed_by: {e}", k.id))?;
    }
    for d in m.decisions.iter().chain(&m.without_decisions) {
        let is_decision =
            invariants::by_id(d).is_some_and(|i| matches!(i.check, Check::Sometimes(_)));
        if !is_decision {
            return Err(format!("{}: `{d}` is not a sometimes-property (V1…)", k.id));
        }
    }
    if m.without_decisions_since.is_some() && m.without_decisions.is_empty() {
        return Err(format!(
            "{}: `without_decisions_since` qualifies `without_decisions`, which is empty",
            k.id
        ));
    }
    let since = m.without_decisions_since.iter();
    for e in m.events.iter().chain(&m.without_events).chain(since) {
        let probe = serde_json::json!({ "op": e });
        let unknown = serde_json::from_value::<crate::model::Event>(probe)
            .err()
            .is_some_and(|err| err.to_string().contains("unknown variant"));
        if unknown {
            return Err(format!("{}: unknown event kind `{e}`", k.id));
        }
    }
    Ok(())
}
