//! The versioned history format (docs/history-format.md): what hunt writes, replay reads
//! and the regression corpus holds. A history is a broker list and a list of events;
//! the first partition-creating event makes partition 0.

use crate::error::Error;
use crate::model::broker::{LAG_MAX_MS_MAX, LAG_MAX_MS_MIN};
use crate::model::{
    BrokerConfig, BrokerId, Event, Survives, BROKERS_MAX, PARTITIONS_MAX, REPLICAS_MAX,
};

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_default_config(c: &BrokerConfig) -> bool {
    *c == BrokerConfig::default()
}

/// Largest record count, time step and seal a history may name (offsets stay far from
/// the integer limits, so no arithmetic in the model can overflow).
pub const RECORDS_MAX: i64 = 1_000_000;
pub const ADVANCE_MS_MAX: i64 = 86_400_000;
pub const SEAL_MAX: i64 = 1_000_000_000;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The format this build writes. Raise it when an old file would change meaning; what
/// each version added is in docs/history-format.md (`format`). Version 1 is read as 2 with
/// its defaults, version 2's unclean restart as `"survives": "high_watermark"`. Since 4 a
/// history is written as the lowest version that holds it, so a file that uses nothing
/// newer keeps its bytes and hash: 4 turns ELR on (`eligible_leader_replicas`), 5 adds
/// controller operations (`Event::is_format_5`), 6 topics of several partitions and their
/// deletion (`Event::is_format_6`; `partition` then counts live partitions only), 7 log
/// directories (`Event::is_format_7`; every broker has two).
pub const FORMAT_VERSION: u32 = 7;
/// The version a history with a format 6 operation and none of version 7 is written as.
pub const FORMAT_VERSION_6: u32 = 6;
/// The version a history with a format 5 operation and none of version 6 is written as.
pub const FORMAT_VERSION_5: u32 = 5;
/// The version a history with ELR on that uses nothing version 5 added is written as.
pub const FORMAT_VERSION_WITH_ELR: u32 = 4;
/// The version a history that uses nothing version 4 added is written as.
pub const FORMAT_VERSION_WITHOUT_ELR: u32 = 3;
/// Every version this build reads.
pub const FORMAT_VERSIONS_READ: [u32; 7] = [1, 2, 3, 4, 5, 6, 7];
/// A history longer than this is refused (memory and time stay bounded).
pub const EVENTS_MAX: usize = 1024;
/// No list inside an event may be longer than this.
pub const LIST_MAX: usize = 64;
/// Broker work a history may ask for through its time steps (`History::task_work`: runs
/// of the ISR-expiration task × partitions × brokers). Bounds the time and memory of a
/// replay (about 2 s, see README "Bounds"), whatever `replica_lag_time_max_ms` and `ms`.
pub const TASK_WORK_MAX: u64 = 4_000_000;
/// Files larger than this are refused before parsing.
pub const FILE_BYTES_MAX: u64 = 4 << 20;

#[derive(Clone, PartialEq, Eq, Debug, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct History {
    pub format: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The rule sets (`A:B`) this history is meant to be replayed with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<String>,
    pub brokers: Vec<BrokerId>,
    /// Broker-side settings (`replica_lag_time_max_ms`, `consolidation_enable`).
    #[serde(default, skip_serializing_if = "is_default_config")]
    pub broker_config: BrokerConfig,
    /// The cluster feature `eligible.leader.replicas.version` at 1 (KIP-966): the
    /// controller keeps ELR and may leave an ISR empty. Format 4; default off.
    #[serde(default, skip_serializing_if = "is_false")]
    pub eligible_leader_replicas: bool,
    pub events: Vec<Event>,
    /// Expected verdict per rule set: a regression asserts exactly these violations.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expect: Vec<Expectation>,
}

#[derive(Clone, PartialEq, Eq, Debug, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expectation {
    pub rules: String,
    /// Every invariant the rule set violates, with the step of first violation.
    pub violations: Vec<ExpectedViolation>,
}

#[derive(Clone, PartialEq, Eq, Debug, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedViolation {
    pub invariant: String,
    pub step: usize,
}

impl History {
    pub fn new(brokers: Vec<BrokerId>, events: Vec<Event>) -> History {
        History {
            format: FORMAT_VERSION_WITHOUT_ELR,
            description: None,
            rules: None,
            brokers,
            broker_config: BrokerConfig::default(),
            eligible_leader_replicas: false,
            events,
            expect: Vec::new(),
        }
    }

    /// Parse and validate JSON text. Errors are one line and name the problem.
    pub fn from_json(text: &str) -> Result<History, String> {
        let value = serde_json::from_str::<strict::Value>(text)
            .map_err(|e| format!("malformed JSON: {e}"))?
            .0;
        let version = match value.get("format").and_then(serde_json::Value::as_u64) {
            Some(v) if FORMAT_VERSIONS_READ.iter().any(|&r| u64::from(r) == v) => v as u32,
            Some(v) => {
                return Err(format!(
                "unknown format version {v} (this isrfuzz reads versions 1 to {FORMAT_VERSION})"
            ))
            }
            None => {
                return Err(format!(
                    "missing or non-integer `format` field (expected {FORMAT_VERSION})"
                ))
            }
        };
        let mut history: History =
            serde_json::from_value(value).map_err(|e| format!("not a history: {e}"))?;
        if version == 1 {
            history.migrate_from_v1()?;
        }
        if version <= 2 {
            history.migrate_from_v2(version)?;
        }
        history.migrate_to_v4(version)?;
        history.validate()?;
        Ok(history)
    }

    pub fn load(path: &Path) -> Result<History, Error> {
        let bytes = read_limited(path)?;
        let text = String::from_utf8(bytes)
            .map_err(|_| Error::input(path)("not UTF-8 text".to_string()))?;
        History::from_json(&text).map_err(Error::input(path))
    }

    /// Pretty JSON with one line per event and per expectation, so a history reads like
    /// a table and diffs line by line.
    pub fn to_json(&self) -> String {
        let line = |v: &dyn erased::Json| v.compact();
        let mut out = String::from("{\n");
        out += &format!("  \"format\": {},\n", self.format);
        if let Some(d) = &self.description {
            out += &format!("  \"description\": {},\n", line(d));
        }
        if let Some(r) = &self.rules {
            out += &format!("  \"rules\": {},\n", line(r));
        }
        out += &format!("  \"brokers\": {},\n", line(&self.brokers));
        if !is_default_config(&self.broker_config) {
            out += &format!("  \"broker_config\": {},\n", line(&self.broker_config));
        }
        if self.eligible_leader_replicas {
            out += "  \"eligible_leader_replicas\": true,\n";
        }
        out += &format!("  \"events\": [\n{}\n  ]", list(&self.events));
        if !self.expect.is_empty() {
            out += &format!(",\n  \"expect\": [\n{}\n  ]", list(&self.expect));
        }
        out += "\n}\n";
        out
    }

    /// Version 1 → 2: nothing to fill in (the new fields' defaults are what version 1
    /// meant), but a version 1 file must not use them: it would be misread by an older
    /// isrfuzz, so it is refused rather than silently upgraded.
    fn migrate_from_v1(&mut self) -> Result<(), String> {
        let uses_v2 = self.events.iter().position(|e| match e {
            Event::Produce { acks, .. } => !acks.is_one(),
            Event::CreatePartition {
                min_insync_replicas,
                ..
            } => *min_insync_replicas != 1,
            _ => false,
        });
        if let Some(i) = uses_v2 {
            return Err(format!(
                "event {i} uses a format 2 field (acks, min_insync_replicas) in a format 1 file: set \"format\": 2"
            ));
        }
        self.format = 2;
        Ok(())
    }

    /// Version 2 → 3: an unclean restart kept the log up to the high watermark, which
    /// version 3 spells `"survives": "high_watermark"`. A version 2 file may not use what
    /// version 3 added (an older isrfuzz would refuse or misread it).
    fn migrate_from_v2(&mut self, written: u32) -> Result<(), String> {
        let uses_v3 = self.events.iter().position(|e| {
            matches!(
                e,
                Event::DeleteRecords { .. }
                    | Event::FlushBroker { .. }
                    | Event::RestartBroker {
                        survives: Some(_),
                        ..
                    }
            )
        });
        if let Some(i) = uses_v3 {
            return Err(format!(
                "event {i} uses a format 3 event or field (delete_records, flush_broker, survives) in a format {written} file: set \"format\": 3"
            ));
        }
        for e in &mut self.events {
            if let Event::RestartBroker {
                unclean: true,
                survives,
                ..
            } = e
            {
                *survives = Some(Survives::HighWatermark);
            }
        }
        self.format = 3;
        Ok(())
    }

    /// Version 3 → 4: nothing to fill in (ELR off is what version 3 meant), but a file
    /// before version 4 may not turn ELR on. A version 4 file with ELR off is the version
    /// 3 file it equals.
    fn migrate_to_v4(&mut self, written: u32) -> Result<(), String> {
        if written < 4 && self.eligible_leader_replicas {
            return Err(format!(
                "`eligible_leader_replicas` is a format 4 field, found in a format {written} file: set \"format\": 4"
            ));
        }
        let operations: [(u32, fn(&Event) -> bool, &str); 3] = [
            (5, Event::is_format_5, "stale_epoch, elect_leaders_many, alter_topic_config, lagging_heartbeat, unregister_broker, update_features"),
            (6, Event::is_format_6, "create_partitions, delete_topic"),
            (7, Event::is_format_7, "assign_replica_dir, log_dir_offline"),
        ];
        for (version, uses, names) in operations {
            match self.events.iter().position(uses) {
                Some(i) if written < version => return Err(format!(
                    "event {i} uses a format {version} operation ({names}) in a format {written} file: set \"format\": {version}"
                )),
                _ => {}
            }
        }
        self.format = self.written_format();
        Ok(())
    }

    /// The version this history is written as: 7 or 6 when an event uses what that version
    /// added, else 5 when one uses what version 5 added, else 4 with ELR on, else 3.
    pub fn written_format(&self) -> u32 {
        if self.events.iter().any(Event::is_format_7) {
            FORMAT_VERSION
        } else if self.events.iter().any(Event::is_format_6) {
            FORMAT_VERSION_6
        } else if self.events.iter().any(Event::is_format_5) {
            FORMAT_VERSION_5
        } else if self.eligible_leader_replicas {
            FORMAT_VERSION_WITH_ELR
        } else {
            FORMAT_VERSION_WITHOUT_ELR
        }
    }

    /// Structural checks: the things that make a history meaningless rather than a
    /// request the controller would reject (those are kept and replayed as rejections).
    pub fn validate(&self) -> Result<(), String> {
        if self.format != self.written_format() {
            return Err(format!(
                "format version {} does not match the history (expected {}: 7 with a format 7 operation, else 6 with a format 6 operation, else 5 with a format 5 operation, else 4 with `eligible_leader_replicas`, else 3)",
                self.format,
                self.written_format()
            ));
        }
        if self.brokers.is_empty() || self.brokers.len() > BROKERS_MAX {
            return Err(format!(
                "`brokers` must list 1 to {BROKERS_MAX} broker ids, found {}",
                self.brokers.len()
            ));
        }
        if let Some(b) = self.brokers.iter().find(|&&b| b < 0) {
            return Err(format!(
                "invalid broker id {b} in `brokers` (ids are non-negative)"
            ));
        }
        if let Some((i, b)) = self
            .brokers
            .iter()
            .enumerate()
            .find(|(i, b)| self.brokers[..*i].contains(b))
        {
            return Err(format!(
                "duplicate broker id {b} in `brokers` (position {i})"
            ));
        }
        let lag = self.broker_config.replica_lag_time_max_ms;
        if !(LAG_MAX_MS_MIN..=LAG_MAX_MS_MAX).contains(&lag) {
            return Err(format!(
                "replica_lag_time_max_ms {lag} outside {LAG_MAX_MS_MIN}..={LAG_MAX_MS_MAX}"
            ));
        }
        if self.events.is_empty() {
            // Nothing to replay: almost always a truncated or hand-edited file.
            return Err("`events` is empty: a history needs at least one event".into());
        }
        if self.events.len() > EVENTS_MAX {
            return Err(format!(
                "{} events, more than the limit of {EVENTS_MAX}",
                self.events.len()
            ));
        }
        let mut partitions = 0usize;
        let mut work = 0u64;
        for (step, event) in self.events.iter().enumerate() {
            self.validate_event(step, event, partitions)?;
            // Created ever: a bound on the live ones (a deletion may be refused).
            partitions += usize::from(event.creates_a_partition());
            work = work.saturating_add(self.task_work(event, partitions));
            if work > TASK_WORK_MAX {
                return Err(format!(
                    "step {step} ({event}): the history's time steps would cost {work} units of broker work (ISR-expiration runs, every replica_lag_time_max_ms/2 = {} ms, × partitions × brokers), more than the limit of {TASK_WORK_MAX}",
                    (lag / 2).max(1)
                ));
            }
        }
        if partitions > PARTITIONS_MAX {
            return Err(format!(
                "{partitions} partitions, more than the limit of {PARTITIONS_MAX}"
            ));
        }
        Ok(())
    }

    /// An upper bound on the broker work of `event`: runs of the ISR-expiration task it
    /// makes (each preceded by fetches of every replica), × partitions × brokers.
    fn task_work(&self, event: &Event, partitions: usize) -> u64 {
        let Event::AdvanceTime { ms } = *event else {
            return 0;
        };
        let period = (self.broker_config.replica_lag_time_max_ms / 2).max(1);
        let runs = (ms.max(0) / period) as u64 + 1;
        runs * partitions.max(1) as u64 * self.brokers.len() as u64
    }

    fn validate_event(&self, step: usize, event: &Event, partitions: usize) -> Result<(), String> {
        if let Some(b) = event.broker() {
            if !self.brokers.contains(&b) {
                return Err(format!(
                    "step {step} ({event}): broker {b} is not in `brokers`"
                ));
            }
        }
        if let Some(p) = event.partition() {
            if p >= partitions {
                return Err(format!(
                    "step {step} ({event}): partition {p} is not created before this step"
                ));
            }
        }
        let longest = match event {
            Event::CreatePartition { replicas: l, .. }
            | Event::CreatePartitions { replicas: l, .. }
            | Event::Reassign { target: l, .. }
            | Event::AlterPartition { isr: l, .. } => l.len(),
            Event::ElectLeadersMany {
                partitions: Some(l),
                ..
            } => l.len(),
            _ => 0,
        };
        if let Event::ElectLeadersMany {
            partitions: Some(list),
            ..
        } = event
        {
            validate_partition_list(step, event, list, partitions)?;
        }
        if let Event::RestartBroker {
            unclean: false,
            survives: Some(_),
            ..
        } = event
        {
            return Err(format!(
                "step {step} ({event}): `survives` needs `\"unclean\": true` (a clean shutdown loses nothing)"
            ));
        }
        if longest > LIST_MAX {
            return Err(format!(
                "step {step}: a list of {longest} ids, more than the limit of {LIST_MAX}"
            ));
        }
        let out_of_range = out_of_range(event);
        if let Some((field, value, lo, hi)) = out_of_range {
            return Err(format!(
                "step {step} ({event}): {field} {value} outside {lo}..={hi}"
            ));
        }
        Ok(())
    }

    /// A stable 64-bit content hash (FNV-1a over the compact JSON), for file names.
    pub fn content_hash(&self) -> u64 {
        let bare = History {
            description: None,
            rules: None,
            expect: Vec::new(),
            ..self.clone()
        };
        let text = serde_json::to_string(&bare).expect("a history always serializes");
        text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        })
    }
}

/// A numeric field outside its bounds: (field, value, lowest, highest).
fn out_of_range(event: &Event) -> Option<(&'static str, i64, i64, i64)> {
    match *event {
        Event::Produce { records, .. } => {
            (!(1..=RECORDS_MAX).contains(&records)).then_some(("records", records, 1, RECORDS_MAX))
        }
        Event::AdvanceTime { ms } => {
            (!(1..=ADVANCE_MS_MAX).contains(&ms)).then_some(("ms", ms, 1, ADVANCE_MS_MAX))
        }
        Event::AlterDisklessSwitch { seal, .. } => {
            (!(-2..=SEAL_MAX).contains(&seal)).then_some(("seal", seal, -2, SEAL_MAX))
        }
        // -1 is DeleteRecords' "up to the high watermark".
        Event::DeleteRecords { offset, .. } => {
            (!(-1..=SEAL_MAX).contains(&offset)).then_some(("offset", offset, -1, SEAL_MAX))
        }
        // A topic config Kafka accepts up to any int; more than the largest
        // replica set can never be met, so the model bounds it there.
        Event::CreatePartition {
            min_insync_replicas,
            ..
        }
        | Event::AlterTopicConfig {
            min_insync_replicas: Some(min_insync_replicas),
            ..
        } => {
            let (n, max) = (i64::from(min_insync_replicas), REPLICAS_MAX as i64);
            (!(1..=max).contains(&n)).then_some(("min_insync_replicas", n, 1, max))
        }
        // Every broker registers two directories, numbered 0 and 1.
        Event::AssignReplicaDir { dir, .. } | Event::LogDirOffline { dir, .. } => {
            let (d, max) = (
                i64::from(dir),
                i64::from(crate::model::dirs::DIRS_PER_BROKER) - 1,
            );
            (!(0..=max).contains(&d)).then_some(("dir", d, 0, max))
        }
        _ => None,
    }
}

/// An election's partitions: each created before the step, none twice (each is one topic
/// of the request: a duplicate would be elected twice from the same state, which no
/// client sends).
fn validate_partition_list(
    step: usize,
    event: &Event,
    list: &[usize],
    partitions: usize,
) -> Result<(), String> {
    if let Some(p) = list.iter().find(|&&p| p >= partitions) {
        return Err(format!(
            "step {step} ({event}): partition {p} is not created before this step"
        ));
    }
    if let Some(i) = (1..list.len()).find(|&i| list[..i].contains(&list[i])) {
        return Err(format!(
            "step {step} ({event}): partition {} is listed twice",
            list[i]
        ));
    }
    Ok(())
}

/// The bytes of a regular file, at most [`FILE_BYTES_MAX`] of them (read with that limit,
/// whatever the file's metadata says). FIFOs, devices, sockets and folders are refused
/// with one line, without blocking (the file is opened non-blocking, then checked).
pub fn read_limited(path: &Path) -> Result<Vec<u8>, Error> {
    use std::io::Read;
    let mut open = std::fs::OpenOptions::new();
    open.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut open, libc::O_NONBLOCK);
    let file = open.open(path).map_err(Error::io(path))?;
    let meta = file.metadata().map_err(Error::io(path))?;
    if !meta.is_file() {
        return Err(Error::input(path)(
            "not a regular file (a folder, FIFO, device or socket); refused".to_string(),
        ));
    }
    let mut bytes = Vec::new();
    file.take(FILE_BYTES_MAX + 1)
        .read_to_end(&mut bytes)
        .map_err(Error::io(path))?;
    if bytes.len() as u64 > FILE_BYTES_MAX {
        return Err(Error::input(path)(format!(
            "more than the limit of {FILE_BYTES_MAX} bytes"
        )));
    }
    Ok(bytes)
}

fn list<T: Serialize>(items: &[T]) -> String {
    let lines: Vec<String> = items
        .iter()
        .map(|e| format!("    {}", erased::Json::compact(e)))
        .collect();
    lines.join(",\n")
}

mod erased {
    /// Compact JSON of any serializable value (object-safe, for the line helper).
    pub trait Json {
        fn compact(&self) -> String;
    }
    impl<T: serde::Serialize + ?Sized> Json for T {
        fn compact(&self) -> String {
            serde_json::to_string(self).expect("a history always serializes")
        }
    }
}

mod strict {
    //! JSON values that refuse a key given twice in one object (serde_json keeps the last
    //! one silently, so a hand edit could change a history without a word).
    use serde::de::{Deserialize, Deserializer, Error, MapAccess, SeqAccess, Visitor};
    use serde_json::Map;

    pub struct Value(pub serde_json::Value);

    impl<'de> Deserialize<'de> for Value {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
            d.deserialize_any(Strict).map(Value)
        }
    }

    struct Strict;

    impl<'de> Visitor<'de> for Strict {
        type Value = serde_json::Value;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON value")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = Map::new();
            while let Some(key) = map.next_key::<String>()? {
                let value = map.next_value::<Value>()?.0;
                if out.insert(key.clone(), value).is_some() {
                    return Err(A::Error::custom(format!("duplicate key `{key}`")));
                }
            }
            Ok(serde_json::Value::Object(out))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some(v) = seq.next_element::<Value>()? {
                out.push(v.0);
            }
            Ok(serde_json::Value::Array(out))
        }
        fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
            Ok(v.into())
        }
        fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
            Ok(v.into())
        }
        fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
            Ok(v.into())
        }
        fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
            Ok(serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, Into::into))
        }
        fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
            Ok(v.into())
        }
        fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
            Ok(v.into())
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(serde_json::Value::Null)
        }
    }
}
