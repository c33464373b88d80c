//! The fixture reproducer's Java in plain Java over the imports of upstream's
//! ReplicationControlManagerTest: `junit.rs` writes each assertion once, with its small
//! helpers (`ids`, `minus`, …); `junit_upstream.rs` rewrites them here, so both shapes
//! assert one text. Also the invariant ids dropped, which mean nothing upstream, and the
//! small renderers of ids both use.

use crate::model::{BrokerId, Event, LeaderRecoveryState};

/// `text` without the invariant's id, which means something only inside isrfuzz: a
/// message's `G5: ` prefix goes, a comment's `G5 (safe completion): ` becomes its name,
/// and `G5 holds vacuously` speaks of the property.
pub fn without_ids(text: &str, inv: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let mut line = line.replace(&format!("\"{inv}: "), "\"");
        line = line.replace(
            &format!(" {inv} holds vacuously"),
            " the property holds vacuously",
        );
        if let Some(at) = line.find(&format!("// {inv} (")) {
            let rest = &line[at + inv.len() + 5..];
            if let Some(close) = rest.find("): ") {
                let mut name = rest[..close].to_string();
                if let Some(first) = name.get(..1) {
                    name.replace_range(..1, &first.to_uppercase());
                }
                line = format!("{}// {name}: {}", &line[..at], &rest[close + 3..]);
            }
        }
        line = line.replace(&format!("// {inv}: "), "// ");
        out.push_str(&line);
    }
    out
}

/// The fixture's helpers (`ids`, `minus`, `intersection`, `reassigning`,
/// `hasDuplicates`) and its cancel answer, rewritten into plain Java over the class's
/// imports, so both shapes assert one text. String literals are left alone.
pub fn dialect(java: &str) -> String {
    let mut out = String::new();
    let mut rest = java;
    while !rest.is_empty() {
        if let Some(lit) = string_literal(rest) {
            out.push_str(&rest[..lit]);
            rest = &rest[lit..];
            continue;
        }
        if let Some((name, args, len)) = helper_call(rest, &out) {
            let args: Vec<String> = args.iter().map(|a| dialect(a)).collect();
            out.push_str(&expand(name, &args));
            rest = &rest[len..];
            continue;
        }
        let c = rest.chars().next().expect("not empty");
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out.replace(
        "cancel.error().equals(\"NONE\")",
        "(cancel.response().errorCode() == Errors.NONE.code() && cancel.response().responses().get(0).partitions().get(0).errorCode() == Errors.NONE.code())",
    )
}

const HELPERS: [&str; 5] = [
    "ids",
    "minus",
    "intersection",
    "reassigning",
    "hasDuplicates",
];

/// The length of the string literal `text` starts with, quotes included.
fn string_literal(text: &str) -> Option<usize> {
    let body = text.strip_prefix('"')?;
    let mut escaped = false;
    for (i, c) in body.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return Some(i + 2),
            _ => {}
        }
    }
    Some(text.len())
}

/// A helper call `text` starts with (not a longer identifier's tail, nor a member):
/// its name, its top-level arguments and its length.
fn helper_call<'t>(text: &'t str, before: &str) -> Option<(&'static str, Vec<&'t str>, usize)> {
    if before.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.') {
        return None;
    }
    let name = HELPERS
        .iter()
        .find(|h| text.starts_with(*h) && text[h.len()..].starts_with('('))?;
    let open = name.len();
    let mut depth = 0;
    let mut args = Vec::new();
    let mut start = open + 1;
    let mut i = open;
    while i < text.len() {
        if let Some(lit) = string_literal(&text[i..]) {
            i += lit;
            continue;
        }
        let c = text.as_bytes()[i];
        match c {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    let last = text[start..i].trim();
                    if !last.is_empty() {
                        args.push(last);
                    }
                    return Some((name, args, i + 1));
                }
            }
            b',' if depth == 1 => {
                args.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

fn expand(name: &str, args: &[String]) -> String {
    let arg = |k: usize| args.get(k).map_or("", String::as_str);
    // A conditional operand is bracketed before a member call binds to its last branch.
    let operand = |k: usize| match arg(k) {
        a if a.contains(" ? ") => format!("({a})"),
        a => a.to_string(),
    };
    match name {
        "ids" if args.iter().all(|a| a.parse::<i64>().is_ok()) => {
            if args.is_empty() {
                "new TreeSet<Integer>()".to_string()
            } else {
                format!("new TreeSet<>(List.of({}))", args.join(", "))
            }
        }
        "ids" => format!("new TreeSet<>(Replicas.toList({}))", arg(0)),
        "minus" => format!(
            "{}.stream().filter(id -> !{}.contains(id)).collect(Collectors.toCollection(() -> new TreeSet<>()))",
            operand(0),
            operand(1)
        ),
        "intersection" => format!(
            "{}.stream().filter(id -> {}.contains(id)).collect(Collectors.toCollection(() -> new TreeSet<>()))",
            operand(0),
            operand(1)
        ),
        "reassigning" => format!(
            "({p}.addingReplicas.length > 0 || {p}.removingReplicas.length > 0)",
            p = arg(0)
        ),
        _ => format!(
            "(new TreeSet<>(Replicas.toList({a})).size() != {a}.length)",
            a = arg(0)
        ),
    }
}

pub fn join(ids: &[BrokerId]) -> String {
    ids.iter()
        .map(|b| b.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn ints(ids: &[BrokerId]) -> String {
    format!("new int[] {{{}}}", join(ids))
}

/// `ids(1, 2)`: a constant set in the emitted Java.
pub fn set(ids: &[BrokerId]) -> String {
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    format!("ids({})", join(&sorted))
}

/// `[1, 2]`: a set as the emitted messages print it (`TreeSet.toString`).
pub fn shown(ids: &[BrokerId]) -> String {
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    format!("[{}]", join(&sorted))
}

/// Text safe inside a Javadoc comment.
pub fn javadoc(text: &str) -> String {
    text.replace("*/", "*&#47;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The `LeaderRecoveryState` constant's name.
pub fn recovery_state(lrs: LeaderRecoveryState) -> &'static str {
    match lrs {
        LeaderRecoveryState::Recovered => "RECOVERED",
        LeaderRecoveryState::Recovering => "RECOVERING",
    }
}

/// The fixture call (`ctx.…`, conformance/ReproFixture) for the requests history formats 5
/// and 6 added, and the AlterPartition with a stale broker epoch; `None` for any other event.
pub fn format_5_call(event: &Event) -> Option<String> {
    Some(match event {
        Event::AlterPartition {
            partition,
            isr,
            broker: Some(broker),
            leader_epoch: Some(le),
            partition_epoch: Some(pe),
            leader_recovery_state,
            stale_epoch: Some(stale),
        } => format!(
            "ctx.alterPartitionWithStaleEpoch({partition}, {broker}, {le}, {pe}, {}, LeaderRecoveryState.{}, {stale})",
            ints(isr),
            recovery_state(*leader_recovery_state)
        ),
        Event::ElectLeadersMany {
            partitions,
            election,
        } => {
            let list = partitions.as_ref().map_or("null".to_string(), |l| {
                let ids: Vec<BrokerId> = l.iter().map(|&p| p as BrokerId).collect();
                ints(&ids)
            });
            format!("ctx.electLeaders({list}, ElectionType.{})", election.api_name())
        }
        Event::AlterTopicConfig {
            partition,
            min_insync_replicas,
            unclean_leader_election_enable,
        } => {
            let or_null = |v: Option<String>| v.unwrap_or_else(|| "null".to_string());
            format!(
                "ctx.alterTopicConfig({partition}, {}, {})",
                or_null(min_insync_replicas.map(|m| m.to_string())),
                or_null(unclean_leader_election_enable.map(|u| u.to_string()))
            )
        }
        Event::LaggingHeartbeat { broker } => format!("ctx.laggingHeartbeat({broker})"),
        Event::UnregisterBroker { broker } => format!("ctx.unregisterBroker({broker})"),
        Event::CreatePartitions {
            partition,
            replicas,
        } => format!("ctx.createPartition({partition}, {})", ints(replicas)),
        Event::DeleteTopic { partition } => format!("ctx.deleteTopic({partition})"),
        Event::UpdateFeatures {
            eligible_leader_replicas,
        } => format!("ctx.updateEligibleLeaderReplicas({eligible_leader_replicas})"),
        Event::AssignReplicaDir {
            partition,
            broker,
            dir,
        } => format!("ctx.assignReplicaDir({partition}, {broker}, {dir})"),
        Event::LogDirOffline { broker, dir } => format!("ctx.logDirOffline({broker}, {dir})"),
        _ => return None,
    })
}
