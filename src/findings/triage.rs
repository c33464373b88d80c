//! Known findings: holes that are understood and accepted (each written up in
//! docs/findings.md and backed by a regression). Every engine asks the same question here
//! before it reports a violation: is this one already known?

use crate::error::Error;
use crate::rules::RuleSet;
use std::path::Path;

/// Where the known findings of this repository live (relative to its root).
pub const KNOWN_DEFAULT_PATH: &str = "corpus/known.json";

/// A finding that is understood and accepted (a documented upstream hole): engines count
/// it instead of reporting it as new. Matched by (rule set, invariant), which is coarse on
/// purpose: a second, different hole behind the same pair stays hidden until the first one
/// is fixed, so keep this list short and every entry backed by a regression.
#[derive(Clone, PartialEq, Eq, Debug, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Known {
    pub rules: String,
    pub invariant: String,
    /// Only violations whose detail contains this text (narrows the match).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Where it is written up (e.g. `docs/findings.md F4`) and why it is accepted.
    pub reason: String,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct KnownFile {
    format: u32,
    known: Vec<Known>,
}

impl Known {
    /// Whether a violation of `invariant` with `detail` under `rules` is this finding.
    pub fn matches(&self, rules: &RuleSet, invariant: &str, detail: &str) -> bool {
        self.invariant == invariant
            && self.detail.as_deref().is_none_or(|d| detail.contains(d))
            && RuleSet::parse(&self.rules).is_ok_and(|r| r == *rules)
    }
}

/// Whether any of `known` matches the violation.
pub fn is_known(known: &[Known], rules: &RuleSet, invariant: &str, detail: &str) -> bool {
    known.iter().any(|k| k.matches(rules, invariant, detail))
}

/// Read a known-findings file (`corpus/known.json`); rule sets must parse.
pub fn load_known(path: &Path) -> Result<Vec<Known>, Error> {
    let text = std::fs::read_to_string(path).map_err(Error::io(path))?;
    parse_known(&text).map_err(Error::input(path))
}

/// The known findings a command uses: `none` for none, a given file, else
/// [`KNOWN_DEFAULT_PATH`] when it exists in the working directory.
pub fn load_known_or_default(path: Option<&Path>) -> Result<Vec<Known>, Error> {
    let default = Path::new(KNOWN_DEFAULT_PATH);
    match path {
        Some(p) if p.as_os_str() == "none" => Ok(Vec::new()),
        Some(p) => load_known(p),
        None if default.exists() => load_known(default),
        None => Ok(Vec::new()),
    }
}

/// Parse the text of a known-findings file.
pub fn parse_known(text: &str) -> Result<Vec<Known>, String> {
    let file: KnownFile =
        serde_json::from_str(text).map_err(|e| format!("malformed known-findings file: {e}"))?;
    if file.format != 1 {
        return Err(format!(
            "unknown format version {} (this isrfuzz reads version 1)",
            file.format
        ));
    }
    for k in &file.known {
        RuleSet::parse(&k.rules)?;
        if crate::check::invariants::by_id(&k.invariant).is_none() {
            return Err(format!("unknown invariant `{}`", k.invariant));
        }
    }
    Ok(file.known)
}
