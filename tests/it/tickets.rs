//! Tickets a Kafka committer files unchanged: every regression history's ticket, in both
//! formats, speaks no isrfuzz jargon above its attachment (the final History section), names
//! the component by the plane of the property it breaks, and says "shown by Apache Kafka X"
//! only of what each release's real controller showed (conformance/measured.json). And
//! the operator script, which is the ticket's steps too: an order a real cluster can
//! follow (data first, a throttle before the step that needs it, none lifted unless set),
//! with steps numbered as `replay` numbers them.
//!
//! The commit rule: a 7–40 digit hex word (with a digit and a letter) may appear above the
//! attachment only inside a link to an upstream repository (github.com/apache/kafka,
//! aiven/inkless, confluentinc/kafka, Vanlightly/kafka-tlaplus,
//! hachikuji/kafka-specification); a harness commit never does.

use isrfuzz::check::history::History;
use isrfuzz::check::invariants::{self, Plane, INVARIANTS};
use isrfuzz::check::oracle::{self, Verdict};
use isrfuzz::conform::junit_upstream::ticket_reproducer;
use isrfuzz::findings::report::step_table;
use isrfuzz::findings::{operator, ticket};
use isrfuzz::rules::{all_presets, RuleSet, RULES};
use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const UPSTREAM: [&str; 5] = [
    "apache/kafka",
    "aiven/inkless",
    "confluentinc/kafka",
    "Vanlightly/kafka-tlaplus",
    "hachikuji/kafka-specification",
];

fn load(rel: &str) -> History {
    History::load(&Path::new(ROOT).join(rel)).unwrap()
}

/// Every regression history, by file name, with its verdict as `replay` runs it.
fn regressions() -> Vec<(String, History, Verdict)> {
    let mut names: Vec<String> = std::fs::read_dir(Path::new(ROOT).join("corpus/regressions"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|n| {
            let h = load(&format!("corpus/regressions/{n}"));
            let sides =
                RuleSet::parse_pair(h.rules.as_deref().unwrap_or("trunk:complete")).unwrap();
            let verdict = oracle::run(&h, &sides, true);
            (n, h, verdict)
        })
        .collect()
}

/// The ticket above its attachment: what must stand alone.
fn prose(ticket: &str) -> &str {
    let end = ["\n## History", "\nh2. History"]
        .iter()
        .filter_map(|h| ticket.find(h))
        .min()
        .unwrap_or(ticket.len());
    &ticket[..end]
}

/// The words of `text` as a tokenizer of names sees them (`trunk+inkless-main`,
/// `truncation=hw` and `kafka-4.3` stay whole).
fn name_tokens(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || "+=.-_".contains(c)))
        .map(|t| t.trim_matches(|c| c == '.' || c == '-'))
        .filter(|t| !t.is_empty())
        .collect()
}

fn is_hex_commit(word: &str) -> bool {
    (7..=40).contains(&word.len())
        && word
            .chars()
            .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
        && word.chars().any(|c| c.is_ascii_digit())
        && word.chars().any(|c| c.is_ascii_lowercase())
}

/// Every way `text` speaks isrfuzz's jargon, in words.
fn jargon(text: &str) -> Vec<String> {
    let mut bad = Vec::new();
    let mut names: Vec<&str> = all_presets().map(|p| p.name).collect();
    names.push("complete");
    // Apache Kafka's own branch is no preset.
    let scrubbed = text
        .replace("apache/kafka trunk", "")
        .replace("apache trunk", "");
    for t in name_tokens(&scrubbed) {
        if names.contains(&t)
            || t.split('+').count() > 1 && t.split('+').any(|p| names.contains(&p))
        {
            bad.push(format!("rule-set name `{t}`"));
        }
        if RULES.iter().any(|r| t.starts_with(&format!("{}=", r.id))) {
            bad.push(format!("rule override `{t}`"));
        }
    }
    for t in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')) {
        let t = t.trim_matches('-');
        let finding = t
            .strip_prefix('F')
            .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()));
        if finding {
            bad.push(format!("finding id `{t}`"));
        }
        if INVARIANTS.iter().any(|i| i.id == t) {
            bad.push(format!("invariant id `{t}`"));
        }
    }
    for word in ["design A", "design B", "Some(", "None)", "::", "rule set `"] {
        if text.contains(word) {
            bad.push(format!("`{word}`"));
        }
    }
    bad.extend(struct_literals(text));
    bad.extend(harness_commits(text));
    bad
}

/// Rust struct literals (`Name { field: …`).
fn struct_literals(text: &str) -> Vec<String> {
    text.match_indices(" { ")
        .filter(|(at, _)| {
            let before = text[..*at].chars().next_back();
            let after: String = text[at + 3..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            before.is_some_and(|c| c.is_ascii_alphanumeric())
                && !after.is_empty()
                && text[at + 3 + after.len()..].starts_with(':')
        })
        .map(|(at, _)| {
            format!(
                "struct literal at `{}`",
                &text[at.saturating_sub(20)..(at + 20).min(text.len())]
            )
        })
        .collect()
}

/// Hex commits outside links to an upstream repository, and links elsewhere on GitHub.
fn harness_commits(text: &str) -> Vec<String> {
    let mut bad = Vec::new();
    let mut rest = String::new();
    for word in text.split_whitespace() {
        let url = word.find("https://").map(|at| &word[at..]);
        match url {
            Some(u) => {
                if let Some(path) = u.strip_prefix("https://github.com/") {
                    let repo: Vec<&str> = path.splitn(3, '/').take(2).collect();
                    if !UPSTREAM.contains(&repo.join("/").as_str()) {
                        bad.push(format!("a link to a repository not upstream: {u}"));
                    }
                }
            }
            None => {
                rest.push_str(word);
                rest.push(' ');
            }
        }
    }
    for t in rest.split(|c: char| !c.is_ascii_alphanumeric()) {
        if is_hex_commit(t) {
            bad.push(format!("a commit `{t}` outside an upstream link"));
        }
    }
    bad
}

/// The history a ticket judged (ELR dropped when the ticket says the finding needs none).
fn judged(h: &History, ticket: &str) -> History {
    let elr_on = ticket.contains("Cluster: eligible leader replicas (KIP-966) on");
    History {
        eligible_leader_replicas: h.eligible_leader_replicas && elr_on,
        ..h.clone()
    }
}

/// Per release, the invariants its real controller showed on `h`, when every release
/// replayed it.
fn measured(h: &History) -> Option<Vec<(String, Vec<String>)>> {
    let text = std::fs::read_to_string(Path::new(ROOT).join("conformance/measured.json")).unwrap();
    let m: serde_json::Value = serde_json::from_str(&text).unwrap();
    let key = format!("{:016x}", h.content_hash());
    let mut out = Vec::new();
    for r in m["releases"].as_array().unwrap() {
        let ids = r["shown_by_history"].get(&key)?.as_array().unwrap();
        let ids = ids
            .iter()
            .map(|i| i.as_str().unwrap().to_string())
            .collect();
        out.push((r["release"].as_str().unwrap().to_string(), ids));
    }
    Some(out)
}

/// The Markdown ticket's affected versions: (invariant, its versions text) per consequence.
fn consequences(ticket: &str) -> Vec<(&'static str, String)> {
    let lines: Vec<&str> = ticket.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("- Affected versions"))
        .expect("affected versions");
    lines[at + 1..]
        .iter()
        .take_while(|l| l.starts_with("  - "))
        .map(|l| {
            let l = &l[4..];
            let inv = INVARIANTS
                .iter()
                .find(|i| {
                    i.headline.is_some_and(|h| {
                        let mut c = h.chars();
                        let cap = c.next().unwrap().to_uppercase().collect::<String>() + c.as_str();
                        l.starts_with(&format!("{cap}:"))
                            || l.starts_with(&format!("{cap} (reported here):"))
                    })
                })
                .unwrap_or_else(|| panic!("a consequence names no property: {l}"));
            (
                inv.id,
                l.split_once("): ")
                    .or_else(|| l.split_once(": "))
                    .unwrap()
                    .1
                    .to_string(),
            )
        })
        .collect()
}

/// The versions text a control-plane consequence must have, from what was measured.
fn shown_text(id: &str, m: &[(String, Vec<String>)]) -> String {
    let pick = |want: bool| -> Vec<&str> {
        m.iter()
            .filter(|r| r.1.iter().any(|i| i == id) == want)
            .map(|r| r.0.as_str())
            .collect()
    };
    let (yes, no) = (pick(true), pick(false));
    match (yes.is_empty(), no.is_empty()) {
        (true, _) => format!("not shown by Apache Kafka {}", no.join(", ")),
        (false, true) => format!("shown by Apache Kafka {}", yes.join(", ")),
        (false, false) => format!(
            "shown by Apache Kafka {}; not by {}",
            yes.join(", "),
            no.join(", ")
        ),
    }
}

fn inkless_history(h: &History) -> bool {
    h.events.iter().any(|e| {
        let op = e.op();
        op.starts_with("switch") || op == "alter_diskless_switch" || op == "seal_commit"
    }) || serde_json::to_string(&h.events)
        .unwrap()
        .contains("\"diskless\":true")
}

/// Component and affected versions of one Markdown ticket against the plane and what was
/// measured.
fn judge_fields(name: &str, h: &History, verdict: &Verdict, md: &str) -> Vec<String> {
    let mut bad = Vec::new();
    let Some(reported) = ticket::reported_invariant(h, verdict) else {
        return bad;
    };
    let plane = invariants::by_id(reported).unwrap().plane;
    let component = md
        .lines()
        .find(|l| l.starts_with("- Component: "))
        .expect("a component");
    let (want, not) = match plane {
        Plane::Control => ("controller", "broker"),
        Plane::Data | Plane::Inkless => ("broker", "controller"),
    };
    if !component.contains(want) || component.contains(not) {
        bad.push(format!(
            "{name}: {reported} ({plane:?}) filed as `{component}`"
        ));
    }
    if (plane == Plane::Inkless || inkless_history(h)) && !component.contains("Inkless") {
        bad.push(format!("{name}: an Inkless finding filed as `{component}`"));
    }
    let m = measured(&judged(h, md));
    for (id, text) in consequences(md) {
        let inv = invariants::by_id(id).unwrap();
        let ok = match inv.plane {
            _ if component.contains("Inkless") => !text.contains("shown by"),
            Plane::Control => match &m {
                Some(m) => text.starts_with(&shown_text(id, m)),
                None => !text.contains("shown by"),
            },
            // The real brokers' record, where they showed it on this history; else no
            // claim either way.
            Plane::Data => match m
                .as_ref()
                .filter(|m| m.iter().any(|(_, ids)| ids.contains(&id.to_string())))
            {
                Some(m) => text.starts_with(&shown_text(id, m)),
                None => {
                    text.contains("not yet reproduced on real Apache Kafka brokers")
                        && !text.contains("shown by")
                }
            },
            Plane::Inkless => !text.contains("shown by"),
        };
        if !ok {
            bad.push(format!("{name}: {id}: `{text}` (measured: {m:?})"));
        }
    }
    bad
}

#[test]
fn every_regression_ticket_stands_alone_and_is_honest() {
    let mut bad = Vec::new();
    let mut filed = 0;
    for (name, h, verdict) in regressions() {
        let file = format!("corpus/regressions/{name}");
        for format in [ticket::Format::Md, ticket::Format::Jira] {
            let t = ticket::ticket(&file, &h, &verdict, format, ticket_reproducer);
            // A file name is the reader's own: only the ticket's text is judged.
            let text = prose(&t).replace(&file, "FILE");
            bad.extend(
                jargon(&text)
                    .into_iter()
                    .map(|j| format!("{name} ({format:?}): {j}")),
            );
        }
        let md = ticket::ticket(&file, &h, &verdict, ticket::Format::Md, ticket_reproducer);
        if md.starts_with('#') {
            filed += 1;
            bad.extend(judge_fields(&name, &h, &verdict, &md));
        }
    }
    assert!(filed >= 50, "only {filed} tickets filed");
    assert!(
        bad.is_empty(),
        "{} problems:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// The jargon check sees what it must: a rule set, an id, a harness commit, debug text.
#[test]
fn the_jargon_check_sees_jargon() {
    for text in [
        "Found by: isrfuzz, rule set `trunk+inkless-main`",
        "see F1",
        "breaks G5 too",
        "recorded at 93e2c5d",
        "fetchers Fetchers { classic: true, consolidation: false }",
        "leader Some(3)",
        "with truncation=hw",
        "the fix (complete)",
        "https://github.com/someone/isrfuzz/commit/93e2c5d",
    ] {
        assert!(!jargon(text).is_empty(), "{text}");
    }
    for text in [
        "apache trunk https://github.com/apache/kafka/commit/d79bd502ec",
        "KAFKA-21419 completes with replica 4 out of the ISR; KIP-101",
        "&& { echo seen; }",
    ] {
        assert!(jargon(text).is_empty(), "{text}: {:?}", jargon(text));
    }
}

/// Whether `lines` lift a throttle (a broker's rate, the topic's replicas) never set before.
fn unset_lifts(lines: &[String]) -> Vec<String> {
    let mut set: Vec<String> = Vec::new();
    let mut bad = Vec::new();
    for l in lines {
        let entity = l
            .split("--entity-name ")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .unwrap_or("");
        for config in [
            "follower.replication.throttled.rate",
            "follower.replication.throttled.replicas",
        ] {
            let key = format!("{entity} {config}");
            if l.contains(&format!("--add-config {config}"))
                || l.contains(&format!("--add-config '{config}"))
            {
                set.push(key.clone());
            }
            if l.contains(&format!("--delete-config {config}")) && !set.contains(&key) {
                bad.push(l.clone());
            }
        }
    }
    bad
}

#[test]
fn the_kafka_21419_script_can_run_on_a_real_cluster() {
    let h = load("corpus/regressions/kafka-21419-repro.json");
    let sides = RuleSet::parse_pair(h.rules.as_deref().unwrap()).unwrap();
    let verdict = oracle::run(&h, &sides, true);
    let lines = operator::script(&h, &verdict.sides[0]);
    let first = |what: &dyn Fn(&str) -> bool| lines.iter().position(|l| what(l));
    let reassign =
        first(&|l| l.contains("kafka-reassign-partitions.sh") && l.contains("--execute")).unwrap();
    let produce = first(&|l| l.starts_with("kafka-producer-perf-test.sh")).unwrap();
    let rate = first(&|l| {
        l.contains("--entity-name 4 --add-config follower.replication.throttled.rate=1")
    })
    .unwrap();
    let replicas = first(&|l| l.contains("follower.replication.throttled.replicas=[0:4")).unwrap();
    assert!(
        produce < reassign,
        "data is produced before the reassignment:\n{}",
        lines.join("\n")
    );
    assert!(
        produce < rate && rate < reassign && replicas < reassign,
        "broker 4 is throttled before it is added:\n{}",
        lines.join("\n")
    );
    assert!(
        lines[produce].contains("--num-records 40000 --record-size 100"),
        "4 MB of backlog"
    );
    assert!(lines
        .iter()
        .any(|l| l.starts_with('#') && l.contains("only slows a replica outside the ISR")));
    assert_eq!(unset_lifts(&lines), Vec::<String>::new());
    // Broker 4 stays throttled until the end: the ISR change that completes the reassignment
    // lifts only broker 5's throttle.
    let step3 = first(&|l| l.starts_with("# step 3:")).unwrap();
    let end = first(&|l| l.starts_with("# Done:")).unwrap();
    assert!(!lines[step3..end]
        .iter()
        .any(|l| l.contains("--entity-name 4 --delete-config")));
    // Step N is event N, as in `replay`'s table and the ticket.
    let steps: Vec<&String> = lines.iter().filter(|l| l.starts_with("# step ")).collect();
    for (i, l) in steps.iter().enumerate() {
        assert!(l.starts_with(&format!("# step {i}: ")), "{l}");
    }
    assert_eq!(steps.len(), h.events.len());
    let table = step_table(&h, &verdict.sides[0]);
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("   3  alter_partition")),
        "{table}"
    );
    let t = ticket::ticket("x", &h, &verdict, ticket::Format::Md, ticket_reproducer);
    assert!(
        t.contains("After step 3: partition 0: completed with new replicas [4]"),
        "{t}"
    );
    assert!(t.contains("after step 2"), "{t}");
    assert!(
        t.contains("# step 1: reassign t-0 to [1, 2, 4]"),
        "the ticket's steps are the script:\n{t}"
    );
}

/// No script of the corpus lifts a throttle it did not set, and each numbers its steps as
/// the history does.
#[test]
fn every_script_lifts_only_its_own_throttles() {
    for (name, h, verdict) in regressions() {
        let lines = operator::script(&h, &verdict.sides[0]);
        assert_eq!(unset_lifts(&lines), Vec::<String>::new(), "{name}");
        let steps = lines.iter().filter(|l| l.starts_with("# step ")).count();
        assert_eq!(steps, h.events.len(), "{name}");
        for (i, l) in lines
            .iter()
            .filter(|l| l.starts_with("# step "))
            .enumerate()
        {
            assert!(l.starts_with(&format!("# step {i}: ")), "{name}: {l}");
        }
    }
}
