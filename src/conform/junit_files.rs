//! Reproducers onto disk without losing one. Java wants the file named after its class,
//! and distinct findings can map to one class name (one history showing an invariant at
//! two steps, or two paths with one stem), while `--junit DIR` may already hold tests a
//! person wrote or kept: so a name is never reused. Each file goes through the findings'
//! `write_first_free` (a temp file hard-linked to its name, which fails if the name
//! exists: nothing is replaced); a taken name moves on to the next class name
//! (`…G5ReproTest`, `…G5_2ReproTest`, …; the `ReproTest` suffix stays, which
//! ci/conformance.sh selects tests by) with the class inside the source renamed to match.

use super::junit::Reproducer;
use super::junit_upstream::UpstreamMethod;
use crate::error::Error;
use crate::findings::finding::write_first_free;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Class names tried for one reproducer before giving up.
const NAME_TRIES_MAX: usize = 1000;

/// Where a reproducer went: its file, its class (the one asked for or the next free),
/// and whether this call created the file (`false`: the file already held this very
/// source, so nothing was written and nothing replaced).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    pub path: PathBuf,
    pub class: String,
    pub created: bool,
}

/// The class name tried `k`-th (from 1) for `class`: itself, then `_k` before the
/// `ReproTest` suffix (or at the end of a class without it).
pub fn nth_class(class: &str, k: usize) -> String {
    if k <= 1 {
        return class.to_string();
    }
    match class.strip_suffix("ReproTest") {
        Some(stem) => format!("{stem}_{k}ReproTest"),
        None => format!("{class}_{k}"),
    }
}

/// Write `r` into `dir` (created if missing) atomically and without replacing any file:
/// under its class name, or the first of the next ones neither in `taken` (the names
/// this run already wrote, which it extends) nor on disk. A file that already holds this
/// exact source (under the name tried) is kept as is (`created: false`), so a rerun into
/// the same folder adds nothing. On failure no temp file is left.
pub fn write_reproducer(
    dir: &Path,
    r: &Reproducer,
    taken: &mut BTreeSet<String>,
) -> Result<Written, Error> {
    let names = (1..=NAME_TRIES_MAX).map(|k| nth_class(&r.class, k));
    let source = |class: &str| renamed(&r.source, &r.class, class);
    write_free(dir, names, "java", source, taken)
        .map_err(|e| not_written(e, &format!("reproducer {}", r.class)))
}

/// The first of `names` neither in `taken` nor holding other text on disk, written as
/// `<name>.<ext>` with `source(name)`; the name goes into `taken`.
fn write_free(
    dir: &Path,
    names: impl Iterator<Item = String>,
    ext: &str,
    source: impl Fn(&str) -> String,
    taken: &mut BTreeSet<String>,
) -> Result<Written, Error> {
    std::fs::create_dir_all(dir).map_err(Error::io(dir))?;
    let candidates = names
        .filter(|name| !taken.contains(name))
        .map(|name| (format!("{name}.{ext}"), source(&name)));
    let (path, created) = write_first_free(dir, candidates, NAME_TRIES_MAX)
        .map_err(|(path, message)| Error::Io { path, message })?;
    let name = (path.file_stem().and_then(|s| s.to_str()))
        .expect("a name this function made")
        .to_string();
    taken.insert(name.clone());
    Ok(Written {
        path,
        class: name,
        created,
    })
}

/// A write failure naming what was not written.
fn not_written(e: Error, what: &str) -> Error {
    match e {
        Error::Io { path, message } => Error::Io {
            path,
            message: format!("{message}; {what} not written"),
        },
        other => other,
    }
}

/// `source` with its class declaration renamed from `from` to `to`.
fn renamed(source: &str, from: &str, to: &str) -> String {
    if from == to {
        return source.to_string();
    }
    source.replacen(
        &format!("\nclass {from} {{"),
        &format!("\nclass {to} {{"),
        1,
    )
}

/// The folder under `--junit DIR` that holds the methods for upstream's
/// ReplicationControlManagerTest, one file each (a class body fragment, not a class).
pub const UPSTREAM_DIR: &str = "ReplicationControlManagerTest";

/// Write `m` into `dir`/[`UPSTREAM_DIR`] as `<method>.txt`, as [`write_reproducer`]
/// writes a class: never replacing a file, a taken name moving on to `<method>_2`, … (the
/// method inside renamed to match), `taken` holding the names this run wrote.
pub fn write_method(
    dir: &Path,
    m: &UpstreamMethod,
    taken: &mut BTreeSet<String>,
) -> Result<Written, Error> {
    let names = (1..=NAME_TRIES_MAX).map(|k| match k {
        1 => m.method.clone(),
        k => format!("{}_{k}", m.method),
    });
    let source = |name: &str| m.renamed(name).source();
    write_free(&dir.join(UPSTREAM_DIR), names, "txt", source, taken)
        .map_err(|e| not_written(e, &format!("method {}", m.method)))
}
