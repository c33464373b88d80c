//! Errors a user can cause, and the failures of a judge outside the process. Each prints
//! as one line; the CLI exits with code 2 on a user's error and 5 on a judge's failure
//! ([`Error::Harness`]): a JVM that died, stalled or answered nonsense is no fault of the
//! input, and a script must be able to tell the two apart.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },
    #[error("{path}: {message}")]
    Input { path: PathBuf, message: String },
    #[error("{0}")]
    Usage(String),
    /// A judge (the JVM running a release) died, stalled or answered what is not the
    /// protocol: the run's findings so far stand, its judge does not.
    #[error("{0}")]
    Harness(String),
    /// A stop request or the run's deadline ended a wait on a judge: not a failure, the
    /// run ends with its summary as if its budget ran out.
    #[error("{0}")]
    Stopped(String),
}

/// What never happens (the model judge's error) converts to any error.
impl From<std::convert::Infallible> for Error {
    fn from(never: std::convert::Infallible) -> Error {
        match never {}
    }
}

impl Error {
    /// `map_err(Error::io(path))`: an I/O failure on `path`, as one line.
    pub fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
        move |e| Error::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    }

    /// `map_err(Error::input(path))`: `path` holds something this tool cannot accept.
    pub fn input(path: &Path) -> impl FnOnce(String) -> Error + '_ {
        move |message| Error::Input {
            path: path.to_path_buf(),
            message,
        }
    }
}

/// A wait ended by a stop request or the deadline is a normal end, not a failure.
pub fn stopped_is_fine(outcome: Result<(), Error>) -> Result<(), Error> {
    match outcome {
        Err(Error::Stopped(_)) => Ok(()),
        other => other,
    }
}

/// `text` made inert for a terminal: control characters (newlines, escape sequences, DEL,
/// C1), line and paragraph separators and bidirectional-text controls are written as
/// `\u{..}`. User text quoted in an error (a rule string, a path, a file's field) then
/// keeps the error on one line and cannot clear the screen or reorder what is shown.
pub fn inert(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if is_hostile(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

/// `value` as one line of JSON that is inert for a terminal yet parses to the same value:
/// the hostile characters [`inert`] escapes are written as JSON `\uXXXX` escapes (every
/// one is in the Basic Multilingual Plane, so one escape each). The exact text (a file
/// name, say) stays available to a program reading the JSON.
pub fn inert_json(value: &serde_json::Value) -> String {
    inert_json_text(&value.to_string())
}

/// JSON text (pretty or not) made inert the same way: every hostile character but the
/// layout's newlines (a string's own are escaped already) written as a `\uXXXX` escape.
pub fn inert_json_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if is_hostile(c) && c != '\n' {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

fn is_hostile(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            // Line and paragraph separators, which some terminals and editors break on.
            '\u{2028}' | '\u{2029}'
            // Bidirectional marks, embeddings, overrides and isolates (Trojan Source).
            | '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

#[cfg(test)]
mod tests {
    use super::{inert, inert_json};

    #[test]
    fn hostile_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(
            inert("complete\n\x1b[2Jtrunk\u{202e}x\u{7f}é"),
            "complete\\u{a}\\u{1b}[2Jtrunk\\u{202e}x\\u{7f}é"
        );
        assert_eq!(
            inert("a\tb\r\u{85}\u{2028}"),
            "a\\u{9}b\\u{d}\\u{85}\\u{2028}"
        );
    }

    #[test]
    fn inert_json_escapes_what_json_leaves_raw_and_keeps_the_value() {
        let value = serde_json::json!({"file": "a\u{1b}[2J\n\u{202e}b\u{7f}é"});
        let line = inert_json(&value);
        assert!(
            !line.chars().any(|c| c.is_control() || c == '\u{202e}'),
            "{line}"
        );
        let back: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(back, value);
    }
}
