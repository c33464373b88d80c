//! The one path from a violation to a file, shared by every engine (`hunt`, `exhaust`,
//! `promote`, the benchmark): minimize towards the violation, annotate the history with
//! its rule sets and expected verdict, write it without ever overwriting.
//!
//! Architecture invariant: nothing found is lost. A finding is written to a temporary file
//! and hard-linked into place; its name carries the content hash, and a name that exists
//! with other content is never overwritten: the finding takes the next free name.

use crate::check::focused::run_focused;
use crate::check::history::{Expectation, History};
use crate::check::oracle::{self, SideRun, Violation};
use crate::error::Error;
use crate::findings::attribution::attributed;
use crate::findings::minimize::minimize;
use crate::findings::summary::Matched;
use crate::findings::triage::{self, Known};
use crate::rules::RuleSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A violation turned into a minimal, annotated history (and maybe a file).
#[derive(Clone, Debug)]
pub struct Finding {
    pub side_rules: RuleSet,
    pub pair: [RuleSet; 2],
    /// Index of the violating side in `sides_of(pair)`.
    pub side: usize,
    pub invariant: &'static str,
    pub history: History,
    /// When the engine met it (before minimization), from the start of its run.
    pub elapsed: Duration,
    /// Histories the engine had run when it met it.
    pub histories: u64,
    pub path: Option<PathBuf>,
    /// This run wrote `path` (it did not exist before).
    pub created: bool,
}

/// Where findings go and what is already known: one per engine run.
pub struct Sink {
    /// `None`: findings are kept in memory only (tests, benchmarks).
    out: Option<PathBuf>,
    known: Vec<Known>,
    /// How a written finding says it was found (`found by isrfuzz hunt --seed 7`).
    origin: String,
    /// The run's other rule sets: a witness lists each one that breaks on it.
    listed: Vec<RuleSet>,
    /// Witnesses written or met in this run, by content hash: one file per history, shared
    /// by every worker of the run.
    witnesses: std::sync::Mutex<Vec<Witness>>,
}

/// One file this run wrote or met, and how many findings hold it as their witness.
struct Witness {
    hash: u64,
    rules: RuleSet,
    path: PathBuf,
    /// This run created the file (it did not exist before): only then may it remove it.
    created: bool,
    /// What was written: the findings that share the file (same events, another
    /// invariant) describe themselves differently.
    text: String,
    /// Findings handed this file; it is removed only when the last one lets it go.
    holders: u32,
}

impl Sink {
    pub fn new(out: Option<PathBuf>, known: Vec<Known>, origin: impl Into<String>) -> Sink {
        Sink {
            out,
            known,
            origin: origin.into(),
            listed: Vec::new(),
            witnesses: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// Judge every witness under these rule sets too and list each that breaks on it
    /// (an `expect` entry per rule set), so one file says every rule set it breaks.
    pub fn listing(mut self, rules: impl IntoIterator<Item = RuleSet>) -> Sink {
        for r in rules {
            if !self.listed.contains(&r) {
                self.listed.push(r);
            }
        }
        self
    }

    /// A sink that writes nothing and knows nothing.
    pub fn memory() -> Sink {
        Sink::new(None, Vec::new(), "")
    }

    /// Create the output folder now, so a run fails before it searches, not after.
    pub fn create_dir(&self) -> Result<(), Error> {
        match &self.out {
            Some(dir) => std::fs::create_dir_all(dir).map_err(Error::io(dir)),
            None => Ok(()),
        }
    }

    /// Take the folder for this run alone (an exclusive lock on `.hunt.lock` in it, held
    /// while the returned file is open): a run that removes files it wrote (hunt's
    /// shortening) must not remove one another run reported. Fails at once, with one
    /// line, when another run holds it. `None` for a memory sink.
    pub fn lock_exclusive(&self) -> Result<Option<std::fs::File>, Error> {
        let Some(dir) = &self.out else {
            return Ok(None);
        };
        let path = dir.join(".hunt.lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(Error::io(&path))?;
        #[cfg(unix)]
        {
            use std::os::unix::io::AsRawFd;
            // SAFETY: flock on a descriptor this function owns; no memory is shared.
            let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
            if rc != 0 {
                return Err(Error::Io {
                    path,
                    message: "another run (hunt, exhaust or conform) is writing to this folder (choose another --out)".into(),
                });
            }
        }
        Ok(Some(file))
    }

    /// Whether the violation `v` of `run` (a side of a run of `history`) is a known
    /// finding (by its mechanism, docs/findings.md Triage).
    /// The expected and known findings this sink counts instead of reporting.
    pub fn known(&self) -> &[Known] {
        &self.known
    }

    pub fn is_known(&self, history: &History, run: &SideRun, v: &Violation) -> bool {
        triage::is_known(&self.known, history, run, v)
    }

    /// The known finding the violation is, if any.
    pub fn known_as(&self, history: &History, run: &SideRun, v: &Violation) -> Option<&Known> {
        triage::known_as(&self.known, history, run, v)
    }

    /// The expected or known finding the violation is, as a summary row names it.
    pub fn classify(&self, history: &History, run: &SideRun, v: &Violation) -> Option<Matched> {
        self.known_as(history, run, v).map(Matched::from)
    }

    /// Minimize `history` towards a violation of `invariant` on `side` that is still
    /// `matched` (and the side's own), annotate it and write it into the folder of its
    /// class (`OUT/expected`, `OUT/known`): each summary row, known ones included, has a
    /// witness of its own rule set, and the top folder keeps only what is new.
    pub fn promote_matched(
        &self,
        pair: [RuleSet; 2],
        side: usize,
        invariant: &'static str,
        matched: &Matched,
        history: &History,
    ) -> Result<Finding, Error> {
        let minimal = minimize(history, |h| {
            self.is_matched(pair, side, invariant, matched, h)
        });
        let dir = self.out.as_ref().map(|d| d.join(matched.kind.name()));
        // A row of the reference side (`complete`, last) is that rule set's alone: its
        // witness names it only, so replaying the file shows just the row's rule set.
        let (pair, side) = if side + 1 == sides_of(&pair).len() && side > 0 {
            ([pair[side]; 2], 0)
        } else {
            (pair, side)
        };
        self.record_in(dir.as_deref(), pair, side, invariant, minimal)
    }

    /// Whether `history` shows, on `side` and not on a later side, a violation of
    /// `invariant` that is `matched`: the predicate [`Sink::promote_matched`] keeps true.
    fn is_matched(
        &self,
        pair: [RuleSet; 2],
        side: usize,
        invariant: &str,
        matched: &Matched,
        history: &History,
    ) -> bool {
        self.owns(pair, side, invariant, history, |own, v| {
            self.known_as(history, own, v)
                .is_some_and(|k| k.kind == matched.kind && k.display_id() == matched.id)
        })
    }

    /// Treat this finding as known from now on (one regression per pair and invariant).
    pub fn add_known(&mut self, known: Known) {
        self.known.push(known);
    }

    /// Minimize `history` towards a violation of `invariant` on `side` that is not known,
    /// annotate it and write it. `elapsed` and `histories` are left at zero for the caller.
    pub fn promote(
        &self,
        pair: [RuleSet; 2],
        side: usize,
        invariant: &'static str,
        history: &History,
    ) -> Result<Finding, Error> {
        let minimal = minimize(history, |h| self.is_new(pair, side, invariant, h));
        self.record(pair, side, invariant, minimal)
    }

    /// Whether `history` shows a *new* violation of `invariant` on `side`: one that side
    /// owns (attribution: the later side does not show it too) and that is not known. The
    /// predicate every minimization keeps true. It judges that invariant alone
    /// (`check::focused`), the violating side first; a history on which the model panics
    /// is not one.
    pub fn is_new(
        &self,
        pair: [RuleSet; 2],
        side: usize,
        invariant: &str,
        history: &History,
    ) -> bool {
        self.owns(pair, side, invariant, history, |own, v| {
            !self.is_known(history, own, v)
        })
    }

    /// Whether `side` shows a violation of `invariant` that `wanted` accepts, and no later
    /// side violates it (attribution). Judges that invariant alone (`check::focused`), the
    /// violating side first; a history on which the model panics is not one.
    fn owns(
        &self,
        pair: [RuleSet; 2],
        side: usize,
        invariant: &str,
        history: &History,
        wanted: impl Fn(&SideRun, &Violation) -> bool,
    ) -> bool {
        let sides = sides_of(&pair);
        let decisions = self.needs_decisions(invariant);
        let Some(own) = run_focused(history, sides[side], invariant, decisions) else {
            return false;
        };
        let shown = own
            .violations
            .iter()
            .any(|v| v.invariant == invariant && wanted(&own, v));
        shown
            && sides[side + 1..].iter().all(|&later| {
                run_focused(history, later, invariant, false)
                    .is_some_and(|r| !r.violates(invariant))
            })
    }

    /// Whether a known finding of `invariant` names rule decisions (triage then needs the
    /// vacuity counters of the run).
    fn needs_decisions(&self, invariant: &str) -> bool {
        self.known.iter().any(|k| {
            k.invariant == invariant
                && !(k.mechanism.decisions.is_empty() && k.mechanism.without_decisions.is_empty())
        })
    }

    /// Annotate and write a history that is already as short as it gets (exhaust's
    /// breadth-first counterexamples).
    pub fn record(
        &self,
        pair: [RuleSet; 2],
        side: usize,
        invariant: &'static str,
        history: History,
    ) -> Result<Finding, Error> {
        self.record_in(self.out.as_deref(), pair, side, invariant, history)
    }

    fn record_in(
        &self,
        out: Option<&Path>,
        pair: [RuleSet; 2],
        side: usize,
        invariant: &'static str,
        mut history: History,
    ) -> Result<Finding, Error> {
        annotate(&mut history, pair, side, invariant, &self.origin);
        list_breaking(&mut history, &self.listed);
        let (path, created) = match out {
            Some(dir) => {
                let (path, created) = self.write_once(dir, &history, &pair[side], invariant)?;
                (Some(path), created)
            }
            None => (None, false),
        };
        Ok(Finding {
            side_rules: pair[side],
            pair,
            side,
            invariant,
            history,
            elapsed: Duration::ZERO,
            histories: 0,
            path,
            created,
        })
    }

    /// Write `history`, already annotated, as the witness of `label` under `rules` (a
    /// conformance disagreement): through the same registry as every finding (one file per
    /// history in this run, never over an existing file). `None` for a memory sink.
    pub fn write_labelled(
        &self,
        history: &History,
        rules: &RuleSet,
        label: &str,
    ) -> Result<Option<PathBuf>, Error> {
        let Some(dir) = &self.out else {
            return Ok(None);
        };
        std::fs::create_dir_all(dir).map_err(Error::io(dir))?;
        Ok(Some(self.write_once(dir, history, rules, label)?.0))
    }

    /// Every violation of `history` under `pair` that is not known, each minimized and
    /// written (never overwriting). Returns what was found.
    pub fn promote_all(
        &self,
        pair: [RuleSet; 2],
        history: &History,
    ) -> Result<Vec<Finding>, Error> {
        let mut out: Vec<Finding> = Vec::new();
        for (side, invariant, known) in self.own_violations(pair, history)? {
            if known.is_none() {
                out.push(self.promote(pair, side, invariant, history)?);
            }
        }
        Ok(out)
    }

    /// Each side's own violations of `history` under `pair` (attribution: a later side
    /// does not show it too), one per side and invariant, with the expected or known
    /// finding each is (`None`: new). What `promote` promotes and what it names instead.
    pub(crate) fn own_violations(
        &self,
        pair: [RuleSet; 2],
        history: &History,
    ) -> Result<Vec<(usize, &'static str, Option<&Known>)>, Error> {
        let verdict = oracle::run(history, sides_of(&pair), false);
        if let Some(bug) = verdict.harness_bug {
            return Err(Error::Usage(format!(
                "harness bug (the model panicked): {bug}"
            )));
        }
        let mut out: Vec<(usize, &'static str, Option<&Known>)> = Vec::new();
        for (s, side) in verdict.sides.iter().enumerate() {
            for v in &side.violations {
                let seen = out.iter().any(|&(o, id, _)| o == s && id == v.invariant);
                if seen || !attributed(&verdict, s, v.invariant) {
                    continue;
                }
                out.push((s, v.invariant, self.known_as(history, side, v)));
            }
        }
        Ok(out)
    }
}

impl Sink {
    /// Write a witness unless the same history (content hash) was already written or
    /// found in `dir` in this run for the same rule set, under whatever name: then that
    /// file is the witness. Another rule set gets a file of its own (its `rules` pair is
    /// what `replay` runs).
    fn write_once(
        &self,
        dir: &Path,
        history: &History,
        rules: &RuleSet,
        invariant: &str,
    ) -> Result<(PathBuf, bool), Error> {
        let hash = history.content_hash();
        let mut seen = self.witnesses.lock().unwrap_or_else(|e| e.into_inner());
        let found = seen.iter_mut().find(|w| {
            w.hash == hash && w.rules == *rules && w.path.starts_with(dir) && w.path.exists()
        });
        if let Some(w) = found {
            w.holders += 1;
            return Ok((w.path.clone(), false));
        }
        std::fs::create_dir_all(dir).map_err(Error::io(dir))?;
        // A file an earlier run wrote for this history under another row's name is its
        // witness here too: which row of a run writes a shared history first depends on the
        // workers' schedule, and the next run must add nothing.
        let (path, created) = match on_disk(dir, rules, invariant, hash) {
            Some(path) => (path, false),
            None => write_finding(dir, history, rules, invariant)?,
        };
        seen.push(Witness {
            hash,
            rules: *rules,
            path: path.clone(),
            created,
            text: history.to_json(),
            holders: 1,
        });
        Ok((path, created))
    }

    /// A finding no longer needs its witness file (a shorter one replaced it, or another
    /// worker's witness of the same row was kept). The file goes only when no other finding
    /// holds it, this run created it, and it still holds what was written: nothing another
    /// run or a person put there is ever removed.
    pub fn retire(&self, f: &Finding) {
        let Some(path) = &f.path else {
            return;
        };
        let mut seen = self.witnesses.lock().unwrap_or_else(|e| e.into_inner());
        let Some(k) = seen.iter().position(|w| w.path == *path) else {
            return;
        };
        let w = &mut seen[k];
        w.holders = w.holders.saturating_sub(1);
        if w.holders == 0 && w.created && holds(path, &w.text) {
            let _ = std::fs::remove_file(path);
            seen.swap_remove(k);
        }
    }
}

/// Add an `expect` entry for every rule set of `listed` (not already there) that violates
/// anything on `h`, and name them in the description.
fn list_breaking(h: &mut History, listed: &[RuleSet]) {
    let mut names = Vec::new();
    for rules in listed {
        let name = rules.to_string();
        if h.expect.iter().any(|e| e.rules == name) {
            continue;
        }
        let run = oracle::run(h, &[*rules], false);
        let violations = run.sides[0].expected();
        if !violations.is_empty() {
            names.push(name.clone());
            h.expect.push(Expectation {
                rules: name,
                violations,
            });
        }
    }
    if let (false, Some(d)) = (names.is_empty(), h.description.as_mut()) {
        d.push_str(&format!("; also breaks under {}", names.join(", ")));
    }
}

/// A pair of equal rule sets is a single-sided run: no point running it twice.
pub fn sides_of(pair: &[RuleSet; 2]) -> &[RuleSet] {
    if pair[0] == pair[1] {
        &pair[..1]
    } else {
        pair
    }
}

/// Fill in description, rules and the expected verdict of every side.
pub fn annotate(h: &mut History, pair: [RuleSet; 2], side: usize, invariant: &str, origin: &str) {
    let sides = sides_of(&pair);
    let verdict = oracle::run(h, sides, false);
    let names: Vec<String> = sides.iter().map(RuleSet::to_string).collect();
    h.rules = Some(names.join(":"));
    h.description = Some(format!("{origin}: {} violates {invariant}", pair[side]));
    h.expect = verdict
        .sides
        .iter()
        .map(|s| Expectation {
            rules: s.rules.to_string(),
            violations: s.expected(),
        })
        .collect();
}

/// A witness file already in `dir` for the history hashed `hash` under `rules`, named by
/// another row than `invariant` (its own names go through `write_finding`, which checks
/// their content).
fn on_disk(dir: &Path, rules: &RuleSet, invariant: &str, hash: u64) -> Option<PathBuf> {
    let own = file_stem(rules, invariant, hash);
    let stem = file_stem(rules, "", hash);
    let (prefix, suffix) = stem.split_once("----")?;
    let (prefix, suffix) = (format!("{prefix}--"), format!("--{suffix}.json"));
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.starts_with(&prefix) && n.ends_with(&suffix) && !n.starts_with(&own)
            })
        })
}

fn file_stem(rules: &RuleSet, invariant: &str, hash: u64) -> String {
    let rules: String = rules
        .to_string()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{rules}--{invariant}--{hash:016x}")
}

/// How many names a finding tries (`stem.json`, `stem-2.json`, …) before giving up.
pub const NAME_TRIES_MAX: usize = 64;

/// Write atomically and never overwrite: temp file, then a hard link that fails if the
/// name exists. A name that exists holding this very text is the same finding (`false`:
/// not created); holding other text, the next name is tried (`stem-2.json`, …), so a
/// finding is never dropped for a name. On failure nothing is left behind, and the error
/// carries the history so the finding is not lost.
pub fn write_finding(
    dir: &Path,
    h: &History,
    rules: &RuleSet,
    invariant: &str,
) -> Result<(PathBuf, bool), Error> {
    let stem = file_stem(rules, invariant, h.content_hash());
    let text = h.to_json();
    let names = (1..=NAME_TRIES_MAX).map(|k| match k {
        1 => format!("{stem}.json"),
        _ => format!("{stem}-{k}.json"),
    });
    write_first_free(dir, names.map(|name| (name, text.as_str())), NAME_TRIES_MAX).map_err(
        |(path, e)| Error::Io {
            path,
            message: format!(
                "{e}; finding {rules} {invariant} not written, its history: {}",
                serde_json::to_string(h).expect("a history always serializes")
            ),
        },
    )
}

/// Write a file into `dir` under the first of `candidates` (file name and its text) that
/// is free, or that already holds its text (then nothing is written: `false`). Each try
/// writes a temp file and hard-links it to the name, which fails if the name exists, so
/// no file is ever replaced and none is seen half-written; no temp file is left. Fails
/// when `tries` names are all taken by other content. Every file isrfuzz must never lose
/// goes through here: findings, and the JUnit reproducers (`conform::junit_files`).
pub fn write_first_free<T: AsRef<str>>(
    dir: &Path,
    candidates: impl IntoIterator<Item = (String, T)>,
    tries: usize,
) -> Result<(PathBuf, bool), (PathBuf, String)> {
    let mut first = None;
    for (name, text) in candidates.into_iter().take(tries) {
        let text = text.as_ref();
        let path = dir.join(&name);
        first.get_or_insert_with(|| path.clone());
        let tmp = dir.join(format!(".tmp-{}-{name}", std::process::id()));
        if let Err(e) = std::fs::write(&tmp, text) {
            let _ = std::fs::remove_file(&tmp);
            return Err((tmp, e.to_string()));
        }
        let linked = std::fs::hard_link(&tmp, &path);
        let _ = std::fs::remove_file(&tmp);
        match linked {
            Ok(()) => return Ok((path, true)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                if holds(&path, text) {
                    return Ok((path, false));
                }
            }
            Err(e) => return Err((path, e.to_string())),
        }
    }
    Err((
        first.unwrap_or_else(|| dir.to_path_buf()),
        format!("{tries} names taken by other content"),
    ))
}

/// Whether the regular file `path` holds exactly `text` (read no further than its
/// length, so a huge file costs nothing).
pub(crate) fn holds(path: &Path, text: &str) -> bool {
    use std::io::Read;
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return false;
    };
    if !meta.is_file() || meta.len() != text.len() as u64 {
        return false;
    }
    let Ok(f) = std::fs::File::open(path) else {
        return false;
    };
    let mut read = Vec::with_capacity(text.len());
    f.take(text.len() as u64 + 1).read_to_end(&mut read).is_ok() && read == text.as_bytes()
}
