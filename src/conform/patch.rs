//! Unified diffs read and applied to a release's sources (`conform --patch`), without a
//! `patch` program: each hunk's old lines must match the file exactly (line endings aside),
//! at the line the hunk names or the nearest place that matches, as GNU patch does with no
//! fuzz. Pure: text in, text or a one-line reason out.
//!
//! Upstream diffs name files by module (`metadata/src/main/java/org/...`); the sources jar
//! of that module holds them from the package root (`org/...`), so the module prefix is
//! stripped, and only the metadata module, whose sources jar `conform` fetches, is taken.

/// Lines of a patch file read at most (a controller change is hundreds).
pub const PATCH_LINES_MAX: usize = 200_000;

/// One file's changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilePatch {
    /// Relative to the sources root: `org/apache/kafka/controller/X.java`.
    pub path: String,
    /// The file does not exist before the patch (`--- /dev/null`).
    pub created: bool,
    pub hunks: Vec<Hunk>,
}

/// One `@@ -a,b +c,d @@` hunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hunk {
    /// The 1-based line the old text starts at (0 for a created file).
    pub old_start: usize,
    /// The header as written, for messages.
    pub header: String,
    /// Each line with its mark: ' ' context, '-' removed, '+' added.
    pub lines: Vec<(char, String)>,
}

impl Hunk {
    fn old(&self) -> impl Iterator<Item = &str> {
        self.lines
            .iter()
            .filter(|(m, _)| *m != '+')
            .map(|(_, l)| l.as_str())
    }

    fn new(&self) -> impl Iterator<Item = &str> {
        self.lines
            .iter()
            .filter(|(m, _)| *m != '-')
            .map(|(_, l)| l.as_str())
    }
}

/// `a/metadata/src/main/java/org/x/Y.java` (or `metadata/...`, or `org/x/Y.java`) as a path
/// in the metadata module's sources jar.
pub fn source_path(diff_path: &str) -> Result<String, String> {
    let path = diff_path.split('\t').next().unwrap_or("").trim();
    let path = ["a/", "b/"]
        .iter()
        .find_map(|p| path.strip_prefix(p).filter(|rest| rest.contains('/')))
        .unwrap_or(path);
    let relative = match path.split_once("src/main/java/") {
        Some(("metadata/", rest)) | Some(("", rest)) => rest,
        Some(_) => {
            return Err(format!(
                "{path}: not in the metadata module's main sources (metadata/src/main/java/...), the only sources --patch changes"
            ))
        }
        None if path.starts_with("org/apache/kafka/") => path,
        None => {
            return Err(format!(
                "{path}: not a Java source of the metadata module (expected metadata/src/main/java/...)"
            ))
        }
    };
    if relative
        .split('/')
        .any(|part| part == ".." || part.is_empty())
        || !relative.ends_with(".java")
    {
        return Err(format!("{path}: not a plain path to a .java file"));
    }
    Ok(relative.to_string())
}

/// `@@ -12,7 +12,9 @@ ...`: (old start, old count, new count).
fn hunk_header(line: &str) -> Option<(usize, usize, usize)> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, _) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let range = |r: &str| -> Option<(usize, usize)> {
        match r.split_once(',') {
            Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?)),
            None => Some((r.parse().ok()?, 1)),
        }
    };
    let ((old_start, old_count), (_, new_count)) = (range(old)?, range(new)?);
    Some((old_start, old_count, new_count))
}

/// Every file a unified diff changes. Lines outside a file's hunks (`diff --git`, `index`,
/// a mail's text) are ignored; a hunk shorter than its header says is an error.
pub fn parse(text: &str) -> Result<Vec<FilePatch>, String> {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() > PATCH_LINES_MAX {
        return Err(format!("longer than {PATCH_LINES_MAX} lines"));
    }
    let mut files: Vec<FilePatch> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let (Some(old), Some(new)) = (
            line.strip_prefix("--- "),
            lines.get(i + 1).and_then(|l| l.strip_prefix("+++ ")),
        ) {
            if new.trim_start().starts_with("/dev/null") {
                return Err(format!(
                    "{}: deletes a file, which --patch does not do",
                    old.trim()
                ));
            }
            files.push(FilePatch {
                path: source_path(new)?,
                created: old.trim_start().starts_with("/dev/null"),
                hunks: Vec::new(),
            });
            i += 2;
            continue;
        }
        if let Some((old_start, old_count, new_count)) = hunk_header(line) {
            let file = files
                .last_mut()
                .ok_or_else(|| format!("line {}: a hunk before any file header", i + 1))?;
            let (hunk, next) = read_hunk(&lines, i, (old_start, old_count, new_count))?;
            file.hunks.push(hunk);
            i = next;
            continue;
        }
        i += 1;
    }
    if files.iter().all(|f| f.hunks.is_empty()) {
        return Err("no hunks: not a unified diff".into());
    }
    Ok(files)
}

/// The hunk whose header is at `at`; the index after it.
fn read_hunk(
    lines: &[&str],
    at: usize,
    (old_start, old_count, new_count): (usize, usize, usize),
) -> Result<(Hunk, usize), String> {
    let header = lines[at].to_string();
    let (mut old_left, mut new_left) = (old_count, new_count);
    let mut body = Vec::new();
    let mut i = at + 1;
    while old_left + new_left > 0 {
        let Some(line) = lines.get(i) else {
            return Err(format!(
                "{header}: ends before its {old_count} old and {new_count} new lines"
            ));
        };
        let (mark, rest) = match line.chars().next() {
            Some(m @ (' ' | '-' | '+')) => (m, &line[1..]),
            Some('\\') => {
                i += 1; // "\ No newline at end of file"
                continue;
            }
            None => (' ', ""), // an empty context line whose space was stripped
            Some(_) => {
                return Err(format!(
                    "line {}: {header}: a line that is not ' ', '-' or '+'",
                    i + 1
                ))
            }
        };
        let (old, new) = match mark {
            ' ' => (1, 1),
            '-' => (1, 0),
            _ => (0, 1),
        };
        if old > old_left || new > new_left {
            return Err(format!(
                "line {}: {header}: more lines than its header counts",
                i + 1
            ));
        }
        old_left -= old;
        new_left -= new;
        body.push((mark, rest.to_string()));
        i += 1;
    }
    while lines.get(i).is_some_and(|l| l.starts_with('\\')) {
        i += 1;
    }
    // A hunk line right after the counted ones: the header undercounts (a hand edit);
    // reading on as text would drop those lines without a word.
    let next_is_header = lines.get(i).is_some_and(|l| l.starts_with("--- "))
        && lines.get(i + 1).is_some_and(|l| l.starts_with("+++ "));
    if !next_is_header && lines.get(i).is_some_and(|l| l.starts_with(['+', '-'])) {
        return Err(format!(
            "line {}: {header}: more lines than its header counts",
            i + 1
        ));
    }
    Ok((
        Hunk {
            old_start,
            header,
            lines: body,
        },
        i,
    ))
}

/// The file after `patch`; the reason when a hunk's old lines are nowhere to be found.
pub fn apply(patch: &FilePatch, original: &str) -> Result<String, String> {
    let mut lines: Vec<String> = original.lines().map(str::to_string).collect();
    let trailing_newline = original.is_empty() || original.ends_with('\n');
    // Where the next hunk may start (hunks are in order and do not overlap).
    let mut floor = 0usize;
    // Lines added minus lines removed by the hunks so far.
    let mut shift: isize = 0;
    for (n, hunk) in patch.hunks.iter().enumerate() {
        let old: Vec<&str> = hunk.old().collect();
        let wanted = (hunk.old_start.max(1) as isize - 1 + shift).max(0) as usize;
        let at = find(&lines, &old, wanted, floor).ok_or_else(|| {
            format!(
                "hunk {} of {} ({}) does not apply: its old lines are not in the file",
                n + 1,
                patch.path,
                hunk.header.trim()
            )
        })?;
        let new: Vec<String> = hunk.new().map(str::to_string).collect();
        let added = new.len();
        lines.splice(at..at + old.len(), new);
        shift += added as isize - old.len() as isize;
        floor = at + added;
    }
    let mut text = lines.join("\n");
    if trailing_newline && !lines.is_empty() {
        text.push('\n');
    }
    Ok(text)
}

/// The start nearest `wanted`, at or after `floor`, where `old` matches.
fn find(lines: &[String], old: &[&str], wanted: usize, floor: usize) -> Option<usize> {
    let same = |a: &str, b: &str| a.trim_end_matches('\r') == b.trim_end_matches('\r');
    let fits = |at: usize| {
        at >= floor
            && at + old.len() <= lines.len()
            && old.iter().zip(&lines[at..]).all(|(o, l)| same(o, l))
    };
    (0..=lines.len()).find_map(|d| {
        [wanted.checked_sub(d), Some(wanted + d)]
            .into_iter()
            .flatten()
            .find(|&at| fits(at))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "a\nb\nc\nd\ne\nf\n";

    fn diff(header: &str, body: &str) -> String {
        format!("diff --git a/metadata/src/main/java/org/apache/kafka/controller/X.java b/metadata/src/main/java/org/apache/kafka/controller/X.java\n--- a/metadata/src/main/java/org/apache/kafka/controller/X.java\n+++ b/metadata/src/main/java/org/apache/kafka/controller/X.java\n{header}\n{body}")
    }

    #[test]
    fn a_hunk_applies_where_it_says_and_at_an_offset() {
        let p = parse(&diff("@@ -2,2 +2,3 @@", " b\n-c\n+C\n+C2\n")).unwrap();
        assert_eq!(p[0].path, "org/apache/kafka/controller/X.java");
        assert_eq!(apply(&p[0], FILE).unwrap(), "a\nb\nC\nC2\nd\ne\nf\n");
        // The same hunk written against a file with two lines more on top.
        let shifted = format!("x\ny\n{FILE}");
        assert_eq!(
            apply(&p[0], &shifted).unwrap(),
            "x\ny\na\nb\nC\nC2\nd\ne\nf\n"
        );
    }

    #[test]
    fn two_hunks_keep_their_order_and_the_second_sees_the_first_lines_shift() {
        let body = " a\n+a2\n b\n@@ -5,2 +6,1 @@\n e\n-f\n";
        let p = parse(&diff("@@ -1,2 +1,3 @@", body)).unwrap();
        assert_eq!(p[0].hunks.len(), 2);
        assert_eq!(apply(&p[0], FILE).unwrap(), "a\na2\nb\nc\nd\ne\n");
    }

    #[test]
    fn a_hunk_whose_old_lines_are_missing_is_refused_with_one_line() {
        let p = parse(&diff("@@ -2,2 +2,2 @@", " b\n-z\n+Z\n")).unwrap();
        let e = apply(&p[0], FILE).unwrap_err();
        assert!(
            e.contains("hunk 1 of org/apache/kafka/controller/X.java") && !e.contains('\n'),
            "{e}"
        );
    }

    #[test]
    fn paths_outside_the_metadata_module_and_malformed_diffs_are_refused() {
        assert!(source_path("a/core/src/main/java/kafka/X.java")
            .unwrap_err()
            .contains("metadata module"));
        assert!(source_path("b/metadata/src/main/java/../X.java").is_err());
        assert_eq!(
            source_path("org/apache/kafka/controller/Y.java\t2026-01-01").unwrap(),
            "org/apache/kafka/controller/Y.java"
        );
        assert!(parse("just some text\n").unwrap_err().contains("no hunks"));
        assert!(parse(&diff("@@ -2,3 +2,3 @@", " b\n-c\n+C\n"))
            .unwrap_err()
            .contains("ends before"));
        assert!(parse(&diff("@@ -2,1 +2,1 @@", " b\n-c\n+C\n"))
            .unwrap_err()
            .contains("more lines"));
        let deletion = "--- a/metadata/src/main/java/org/apache/kafka/controller/X.java\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n";
        assert!(parse(deletion).unwrap_err().contains("deletes a file"));
    }

    #[test]
    fn a_created_file_starts_empty() {
        let created = "--- /dev/null\n+++ b/metadata/src/main/java/org/apache/kafka/controller/N.java\n@@ -0,0 +1,2 @@\n+class N {\n+}\n";
        let p = parse(created).unwrap();
        assert!(p[0].created);
        assert_eq!(apply(&p[0], "").unwrap(), "class N {\n}\n");
    }
}
