//! isrfuzz's texts in words a Kafka committer reads without isrfuzz: what a ticket and an
//! operator script print of the invariants (statement, rationale, detail) and of the
//! rules (summaries, provenance). Internal references go (repository paths, finding ids,
//! design letters, spec case names, the model's own remarks), the short forms a detail
//! uses are spelled out (`p0` → partition 0, the fetcher state), commit ids become links
//! to their upstream repository, and the set notation left in a text gets a legend.

use crate::check::invariants;

/// An isrfuzz text as prose: repository paths, internal parentheticals, design letters and
/// the sentences that still lean on an internal id removed; short forms spelled out.
pub fn prose(text: &str) -> String {
    let mut t = without_paths(text);
    for prefix in ["design A: ", "design B: ", "WRONG on purpose: "] {
        t = t.replace(prefix, "");
    }
    t = drop_internal_parentheticals(&t);
    t = spelled_out(&t);
    let kept: Vec<&str> = sentences(&t)
        .into_iter()
        .filter(|s| !has_internal_id(s))
        .collect();
    tidy(&kept.join(" "))
}

/// A violation's detail as prose: its `pN` partitions, the fetcher state and the quiescence
/// words spelled out.
pub fn detail(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    // `p3: ...`, `p3 (seal -1): ...`: a partition named by its index.
    while let Some(at) = rest.find('p') {
        let (head, tail) = rest.split_at(at);
        out.push_str(head);
        let digits: String = tail[1..].chars().take_while(char::is_ascii_digit).collect();
        let bounded = !head.chars().next_back().is_some_and(char::is_alphanumeric)
            && !tail[1 + digits.len()..]
                .chars()
                .next()
                .is_some_and(char::is_alphanumeric);
        if !digits.is_empty() && bounded {
            out.push_str("partition ");
            out.push_str(&digits);
            rest = &tail[1 + digits.len()..];
        } else {
            out.push('p');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    let words: Vec<String> = fetchers(&out).split(' ').map(log_words).collect();
    prose(&words.join(" "))
}

/// One word of a log as the model writes it (`3..` its start, `e2@5` epoch 2 from offset
/// 5, `..8` its end) in words; any other word as it is.
fn log_words(word: &str) -> String {
    let core = word.trim_end_matches([')', ',', ';']);
    let tail = &word[core.len()..];
    let number = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    let (core, stop) = match core.strip_suffix('.') {
        Some(c) if c.starts_with("..") && number(&c[2..]) => (c, "."),
        _ => (core, ""),
    };
    let spelled = if let Some(n) = core.strip_prefix("..").filter(|n| number(n)) {
        format!("end offset {n}")
    } else if let Some(n) = core.strip_suffix("..").filter(|n| number(n)) {
        format!("start offset {n},")
    } else if let Some((e, o)) = (core.strip_prefix('e'))
        .and_then(|r| r.split_once('@'))
        .filter(|(e, o)| number(e) && number(o))
    {
        format!("epoch {e} from offset {o},")
    } else {
        return word.to_string();
    };
    format!("{spelled}{stop}{tail}")
}

/// `fetchers Fetchers { classic: X, consolidation: Y }` (a follower's fetcher state, as
/// the model prints it) in words.
fn fetchers(text: &str) -> String {
    let mut out = text.to_string();
    for (classic, consolidation, words) in [
        (
            "true",
            "false",
            "is on the classic fetcher, not on the consolidation fetcher",
        ),
        ("false", "false", "is on neither fetcher"),
        ("true", "true", "is on both fetchers at once"),
        ("false", "true", "is on the consolidation fetcher"),
    ] {
        let debug =
            format!("fetchers Fetchers {{ classic: {classic}, consolidation: {consolidation} }}");
        out = out.replace(&debug, words);
    }
    out
}

/// Internal short forms and names spelled out.
fn spelled_out(text: &str) -> String {
    [
        (" at quiescence", ""),
        ("last_known_elr", "last known ELR"),
        (" isr ", " ISR "),
        (" isr,", " ISR,"),
        ("as kip-101", "as KIP-101"),
        ("I'", "the new ISR"),
        (", so this one guards the model as much as the rules", ""),
    ]
    .iter()
    .fold(text.to_string(), |t, (from, to)| t.replace(from, to))
}

/// Repository paths (`docs/…`, `src/…`, `tests/…`) dropped, keeping the punctuation around
/// them.
fn without_paths(text: &str) -> String {
    let words: Vec<String> = text
        .split(' ')
        .map(|w| {
            let bare = w.trim_start_matches('(');
            if ["docs/", "src/", "tests/"]
                .iter()
                .any(|p| bare.starts_with(p))
            {
                let open = &w[..w.len() - bare.len()];
                let close: String = bare
                    .chars()
                    .rev()
                    .take_while(|c| matches!(c, ')' | '.' | ',' | ';'))
                    .collect::<Vec<char>>()
                    .into_iter()
                    .rev()
                    .collect();
                format!("{open}{close}")
            } else {
                w.to_string()
            }
        })
        .collect();
    tidy(&words.join(" "))
}

/// Punctuation left behind by a removal put right.
fn tidy(text: &str) -> String {
    let mut t = text.to_string();
    loop {
        let before = t.clone();
        for (from, to) in [
            ("( ", "("),
            (" )", ")"),
            ("()", ""),
            (":)", ")"),
            (": )", ")"),
            (",)", ")"),
            (";)", ")"),
            (" .", "."),
            (":.", "."),
            (": .", "."),
            (" ,", ","),
            (" ;", ";"),
            ("  ", " "),
        ] {
            t = t.replace(from, to);
        }
        if t == before {
            break;
        }
    }
    t.trim()
        .trim_end_matches([':', ',', ';'])
        .trim()
        .to_string()
}

/// Parentheticals that only point inside isrfuzz (a finding, a spec case, a design letter,
/// the model's reach, a history of the spec) removed, with the space before them.
fn drop_internal_parentheticals(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('(') {
        let Some(len) = closing(&rest[open..]) else {
            break;
        };
        let inner = &rest[open + 1..open + len - 1];
        let internal = has_internal_id(inner)
            || inner.contains("design ")
            || inner.contains("the model")
            || inner.starts_with("history ")
            || inner.contains(", history ");
        out.push_str(&rest[..open]);
        if internal {
            while out.ends_with(' ') {
                out.pop();
            }
        } else {
            out.push_str(&rest[open..open + len]);
        }
        rest = &rest[open + len..];
    }
    out.push_str(rest);
    out
}

/// The length of the balanced parenthetical `text` starts with.
fn closing(text: &str) -> Option<usize> {
    let mut depth = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// The sentences of `text`, each with its full stop.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, _) in text.match_indices(". ") {
        // Not after a single capital or digit (`4.3. `, `e.g. `): a sentence ends after a word.
        let prev = bytes.get(i.wrapping_sub(1)).copied().unwrap_or(b' ');
        if prev.is_ascii_lowercase() || prev == b')' || prev == b']' {
            out.push(text[start..=i].trim());
            start = i + 2;
        }
    }
    if start < text.len() {
        out.push(text[start..].trim());
    }
    out
}

/// Whether `text` names something only isrfuzz knows: a finding (`F17`), an invariant id
/// (`G5`, `INV-9`, `ELR3`), a spec case (`CE-b1`) or event (`E9`).
pub fn has_internal_id(text: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .any(is_internal_id)
}

/// One token that is an isrfuzz-only id.
pub fn is_internal_id(token: &str) -> bool {
    let token = token.trim_matches('-');
    let numbered = |prefix: &str| {
        token
            .strip_prefix(prefix)
            .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
    };
    numbered("F")
        || numbered("E")
        || token.starts_with("CE-")
        || invariants::INVARIANTS.iter().any(|i| i.id == token)
}

/// The notation `text` uses, each symbol with its meaning, as one sentence (empty when it
/// uses none).
pub fn legend(text: &str) -> String {
    let tokens: Vec<&str> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .map(|t| t.trim_end_matches('.'))
        .collect();
    let word = |w: &str| tokens.contains(&w);
    let mut parts: Vec<&str> = Vec::new();
    for (present, meaning) in [
        (word("T"), "T is the reassignment's target (the replicas the operator asked for last)"),
        (word("O"), "O the replicas before the reassignment started"),
        (text.contains('⊆'), "A ⊆ B means every member of A is in B"),
        (text.contains('⊄'), "A ⊄ B that some member of A is not in B"),
        (text.contains('∈'), "x ∈ A that x is a member of A"),
        (text.contains('⊉'), "A ⊉ B that some member of B is not in A"),
        (word("RF"), "RF is a replication factor"),
        (text.contains('∪'), "∪ is union"),
        (text.contains('∩'), "∩ intersection"),
        (text.contains('−'), "A − B the members of A not in B"),
        (text.contains('∅'), "∅ the empty set"),
        (text.contains('⇔'), "⇔ \"if and only if\""),
        (text.contains('⇒'), "⇒ \"implies\""),
        (text.contains('|'), "|A| the size of A"),
        (word("LEO") || word("LEO_L"), "LEO is a log end offset (LEO_L the leader's)"),
        (word("rec.leo"), "rec.leo the follower's log end offset as the leader last recorded it"),
        (word("lcu"), "lcu the time the leader last saw the follower caught up"),
        (word("HW"), "HW a high watermark"),
        (
            word("transient") || word("transients"),
            "a transient is a replica an earlier target of an overridden reassignment added and a later target drops",
        ),
    ] {
        if present {
            parts.push(meaning);
        }
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!("Notation: {}.", parts.join("; "))
    }
}

/// Commit ids in `text` as links to their upstream repository: the one the clause names
/// before the id (`aiven/inkless`, `confluentinc/kafka`, `apache trunk`, a `#NNN` pull
/// request of the fork, another `owner/repo`), else `default` (`owner/repo`).
pub fn linked(text: &str, default: &str) -> String {
    let mut out = String::new();
    let mut repo = default.to_string();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String, repo: &mut String| {
        let bare = word.trim_end_matches('.');
        if let Some(r) = repo_named(bare) {
            *repo = r;
        }
        if is_commit(bare) {
            let dots = &word[bare.len()..];
            out.push_str(&format!("https://github.com/{repo}/commit/{bare}{dots}"));
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '/' | '-' | '#' | '.' | '_') {
            word.push(c);
        } else {
            flush(&mut word, &mut out, &mut repo);
            out.push(c);
            if c == ';' {
                repo = default.to_string();
            }
        }
    }
    flush(&mut word, &mut out, &mut repo);
    out
}

/// The upstream owners whose repositories the texts cite.
const OWNERS: [&str; 5] = ["apache", "aiven", "confluentinc", "Vanlightly", "hachikuji"];

/// The repository a word names, as `owner/repo`.
fn repo_named(w: &str) -> Option<String> {
    match w {
        "apache" | "apache/kafka" => Some("apache/kafka".into()),
        _ if w.len() > 1 && w.starts_with('#') && w[1..].chars().all(|c| c.is_ascii_digit()) => {
            Some("aiven/inkless".into())
        }
        _ => {
            let (owner, name) = w.split_once('/')?;
            let plain = !name.is_empty()
                && (name.chars()).all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            (OWNERS.contains(&owner) && plain).then(|| w.to_string())
        }
    }
}

/// A commit id: 7 to 12 lowercase hex digits with at least a digit and a letter.
pub fn is_commit(word: &str) -> bool {
    (7..=12).contains(&word.len())
        && word
            .chars()
            .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
        && word.chars().any(|c| c.is_ascii_digit())
        && word.chars().any(|c| c.is_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_drops_internal_references() {
        assert_eq!(
            prose("safe completion: at completion, T − O ⊆ ISR (the ISR completion was decided on, see F1)"),
            "safe completion: at completion, T − O ⊆ ISR"
        );
        assert_eq!(
            prose("Promoted replicas (history 2) and transients (history 5) survive the revert."),
            "Promoted replicas and transients survive the revert."
        );
        assert_eq!(
            prose("A candidate is a clean election away from losing it (the power-loss loss ELR closes: docs/model/reassignment.md#elr-invariants)."),
            "A candidate is a clean election away from losing it (the power-loss loss ELR closes)."
        );
        assert_eq!(
            prose("One. It lets a leader overwrite records, which D1 and D2 (acks=all only) do not see."),
            "One."
        );
    }

    #[test]
    fn details_are_spelled_out() {
        assert_eq!(
            detail("p0 (seal -1): follower 2 fetchers Fetchers { classic: true, consolidation: false }"),
            "partition 0 (seal -1): follower 2 is on the classic fetcher, not on the consolidation fetcher"
        );
        assert_eq!(
            detail("p12: replica 1 lacks acknowledged record 0 (epoch 0) at quiescence"),
            "partition 12: replica 1 lacks acknowledged record 0 (epoch 0)"
        );
        assert_eq!(
            detail("p0: leader 3 lacks acknowledged record 0 (epoch 0); its log 3.. e2@3 e4@5 ..8"),
            "partition 0: leader 3 lacks acknowledged record 0 (epoch 0); its log start offset 3, epoch 2 from offset 3, epoch 4 from offset 5, end offset 8"
        );
    }

    #[test]
    fn commits_link_to_the_repository_their_clause_names() {
        assert_eq!(
            linked("KAFKA-19975, commit 3d267d4536 (branch 4.3); apache trunk d79bd502ec", "apache/kafka"),
            "KAFKA-19975, commit https://github.com/apache/kafka/commit/3d267d4536 (branch 4.3); apache trunk https://github.com/apache/kafka/commit/d79bd502ec"
        );
        assert_eq!(
            linked("Partition.readRecords, confluentinc/kafka 06d492d813", "apache/kafka"),
            "Partition.readRecords, confluentinc/kafka https://github.com/confluentinc/kafka/commit/06d492d813"
        );
        assert_eq!(
            linked("aiven/inkless #756 commit 150ec6ed61, Partition.x", "apache/kafka"),
            "aiven/inkless #756 commit https://github.com/aiven/inkless/commit/150ec6ed61, Partition.x"
        );
        assert!(!is_commit("decade"));
        assert!(!is_commit("1234567"));
    }
}
