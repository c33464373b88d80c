//! Reproducers onto disk without losing one. Java wants the file named after its class,
//! and distinct findings can map to one class name (one history showing an invariant at
//! two steps, or two paths with one stem), while `--junit DIR` may already hold tests a
//! person wrote or kept: so a name is never reused. Each file is written to a temp file
//! and hard-linked to its final name, which fails if the name exists; a taken name moves
//! on to the next class name (`…G5ReproTest`, `…G5_2ReproTest`, …; the `ReproTest` suffix
//! stays, which ci/conformance.sh selects tests by) with the class inside the source
//! renamed to match.

use super::junit::Reproducer;
use crate::error::Error;
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
    std::fs::create_dir_all(dir).map_err(Error::io(dir))?;
    for k in 1..=NAME_TRIES_MAX {
        let class = nth_class(&r.class, k);
        if taken.contains(&class) {
            continue;
        }
        let source = renamed(&r.source, &r.class, &class);
        let path = dir.join(format!("{class}.java"));
        let tmp = dir.join(format!(".tmp-{}-{class}.java", std::process::id()));
        if let Err(e) = std::fs::write(&tmp, &source) {
            let _ = std::fs::remove_file(&tmp);
            return Err(Error::io(&tmp)(e));
        }
        let linked = std::fs::hard_link(&tmp, &path);
        let _ = std::fs::remove_file(&tmp);
        match linked {
            Ok(()) => {
                taken.insert(class.clone());
                return Ok(Written {
                    path,
                    class,
                    created: true,
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                if holds(&path, &source) {
                    taken.insert(class.clone());
                    return Ok(Written {
                        path,
                        class,
                        created: false,
                    });
                }
            }
            Err(e) => return Err(Error::io(&path)(e)),
        }
    }
    Err(Error::Io {
        path: dir.join(format!("{}.java", r.class)),
        message: format!("{NAME_TRIES_MAX} class names taken; reproducer not written"),
    })
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

/// Whether the regular file `path` holds exactly `text` (read no further than its
/// length, so a huge file costs nothing).
fn holds(path: &Path, text: &str) -> bool {
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
