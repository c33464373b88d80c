//! The benchmark's CSV rows (`bench`, `bench --parts rediscover`, ci/bench.sh) and what
//! every report computes from them: reading and appending rows, the date and machine a
//! row records, medians. One file under both the measuring and the rendering side, so
//! neither needs the other.
//!
//! CSV columns (one row per trial or throughput run):
//! `date,machine,engine,bug,invariant,trial,result,seconds,execs,triggered_s`
//! - `result`: `detected`, `timeout` (budget spent), `unreachable` (exhaust: not within
//!   its depth), or `throughput` (then `execs` per `seconds`, `bug` names the family or
//!   the fuzz target);
//! - `execs`: executions (histories) until detection or the budget; for `exhaust`, the
//!   shortest counterexample's operations after the start;
//! - `triggered_s`: when the two sides' states first differed (hunt only; empty when
//!   the engine cannot tell).

use crate::error::Error;
use std::path::{Path, PathBuf};

/// Every row of `csv`, its header skipped; an error names the line.
pub fn read_rows(csv: &Path) -> Result<Vec<Row>, Error> {
    let text = std::fs::read_to_string(csv).map_err(Error::io(csv))?;
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if i == 0 && line == CSV_HEADER || line.trim().is_empty() {
            continue;
        }
        let row = Row::parse(line).map_err(|message| Error::Input {
            path: csv.to_path_buf(),
            message: format!("line {}: {message}", i + 1),
        })?;
        rows.push(row);
    }
    if rows.is_empty() {
        return Err(Error::Input {
            path: csv.to_path_buf(),
            message: "no rows".into(),
        });
    }
    Ok(rows)
}

pub const CSV_HEADER: &str =
    "date,machine,engine,bug,invariant,trial,result,seconds,execs,triggered_s";

/// One CSV row.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub date: String,
    pub machine: String,
    pub engine: String,
    pub bug: String,
    pub invariant: String,
    pub trial: u32,
    pub result: String,
    pub seconds: f64,
    pub execs: u64,
    pub triggered_s: Option<f64>,
}

impl Row {
    pub fn csv(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{:.4},{},{}",
            self.date,
            self.machine,
            self.engine,
            self.bug,
            self.invariant,
            self.trial,
            self.result,
            self.seconds,
            self.execs,
            self.triggered_s
                .map_or(String::new(), |t| format!("{t:.4}"))
        )
    }

    pub fn parse(line: &str) -> Result<Row, String> {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != 10 {
            return Err(format!("expected 10 fields, got {}: `{line}`", f.len()));
        }
        let num = |i: usize| -> Result<f64, String> {
            f[i].parse()
                .map_err(|_| format!("field {} is not a number: `{line}`", i + 1))
        };
        Ok(Row {
            date: f[0].into(),
            machine: f[1].into(),
            engine: f[2].into(),
            bug: f[3].into(),
            invariant: f[4].into(),
            trial: num(5)? as u32,
            result: f[6].into(),
            seconds: num(7)?,
            execs: num(8)? as u64,
            triggered_s: if f[9].is_empty() { None } else { Some(num(9)?) },
        })
    }
}

/// `YYYY-MM-DD` (UTC) of now, without a date library (days-to-civil, H. Hinnant).
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let z = secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// A short machine description: CPU model and core count (no commas: it is a CSV field).
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown cpu".into());
    // The machine's cores, not this process's affinity (the benchmark pins to one).
    let cores = std::fs::read_to_string("/proc/cpuinfo").map_or(1, |t| {
        t.lines()
            .filter(|l| l.starts_with("processor"))
            .count()
            .max(1)
    });
    format!("{cpu} x{cores}").replace(',', " ")
}

/// The median of `sorted` (not empty), the mean of the middle two when even.
pub fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// The distinct items in first-seen order.
pub fn dedup<'a>(it: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for x in it {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// Makes a row from (engine, bug, invariant, trial), the date and machine filled in.
pub type RowFn<'a> = dyn Fn(&str, &str, &str, u32) -> Row + 'a;

/// Appends rows to the CSV as they are measured, so an interrupted run keeps them.
pub struct CsvSink {
    file: Option<(PathBuf, std::fs::File)>,
}

impl CsvSink {
    pub fn open(path: Option<&Path>) -> Result<CsvSink, Error> {
        use std::io::Write;
        let Some(path) = path else {
            return Ok(CsvSink { file: None });
        };
        let fresh = !path.exists();
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(Error::io(path))?;
        if fresh {
            writeln!(file, "{CSV_HEADER}").map_err(Error::io(path))?;
        }
        Ok(CsvSink {
            file: Some((path.to_path_buf(), file)),
        })
    }

    pub fn push(&mut self, row: &Row) -> Result<(), Error> {
        use std::io::Write;
        if let Some((path, file)) = &mut self.file {
            writeln!(file, "{}", row.csv()).map_err(Error::io(path))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_and_bad_rows_are_errors() {
        let r = Row {
            date: "2026-11-30".into(),
            machine: "cpu x2".into(),
            engine: "hunt".into(),
            bug: "CE-a".into(),
            invariant: "INV-1".into(),
            trial: 3,
            result: "detected".into(),
            seconds: 0.25,
            execs: 812,
            triggered_s: Some(0.01),
        };
        assert_eq!(Row::parse(&r.csv()).unwrap(), r);
        assert!(Row::parse("a,b,c").is_err());
        assert!(Row::parse("d,m,hunt,CE-a,INV-1,x,detected,1,1,").is_err());
    }

    #[test]
    fn today_is_a_plausible_date() {
        let d = today();
        assert_eq!(d.len(), 10);
        assert!(d.as_str() > "2024-01-01", "{d}");
    }
}
