//! The model-speed comparison's data: ci/bench-speed.sh's CSV rows, the measurements with
//! the goals, and each side's median figure. Rendered by `speed_report` (Markdown)
//! and `speed_plot` (SVG).
//!
//! CSV columns (one row per run of one measurement on one side):
//! `session,machine,side,revision,measurement,run,value,unit,result`
//! - `session`: when the script started (UTC, ISO 8601); the report shows the latest;
//! - `side`: `base` or `current`;
//! - `result`: `ok`, or `timeout` when the run was stopped at its cap (`value` is the cap).

pub const SPEED_CSV_HEADER: &str =
    "session,machine,side,revision,measurement,run,value,unit,result";

/// One CSV row.
#[derive(Clone, Debug, PartialEq)]
pub struct SpeedRow {
    pub session: String,
    pub machine: String,
    pub side: String,
    pub revision: String,
    pub measurement: String,
    pub run: u32,
    pub value: f64,
    pub unit: String,
    pub timeout: bool,
}

impl SpeedRow {
    pub fn parse(line: &str) -> Result<SpeedRow, String> {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != 9 {
            return Err(format!("expected 9 fields, got {}: `{line}`", f.len()));
        }
        if f[2] != "base" && f[2] != "current" {
            return Err(format!("side `{}` is neither base nor current", f[2]));
        }
        let run = f[5]
            .parse()
            .map_err(|_| format!("run `{}` is not a number", f[5]))?;
        let value: f64 = f[6]
            .parse()
            .map_err(|_| format!("value `{}` is not a number", f[6]))?;
        if !value.is_finite() || value < 0.0 {
            return Err(format!("value `{}` is not a figure", f[6]));
        }
        let timeout = match f[8] {
            "ok" => false,
            "timeout" => true,
            other => return Err(format!("result `{other}` is neither ok nor timeout")),
        };
        Ok(SpeedRow {
            session: f[0].into(),
            machine: f[1].into(),
            side: f[2].into(),
            revision: f[3].into(),
            measurement: f[4].into(),
            run,
            value,
            unit: f[7].into(),
            timeout,
        })
    }
}

/// Every row, the header skipped; an error names the line.
pub fn parse_csv(text: &str) -> Result<Vec<SpeedRow>, String> {
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if i == 0 && line == SPEED_CSV_HEADER || line.trim().is_empty() {
            continue;
        }
        rows.push(SpeedRow::parse(line).map_err(|m| format!("line {}: {m}", i + 1))?);
    }
    if rows.is_empty() {
        return Err("no rows".into());
    }
    Ok(rows)
}

/// The rows of the latest session (sessions are ISO times: they sort as strings).
pub fn latest_session(rows: &[SpeedRow]) -> Vec<SpeedRow> {
    let last = rows.iter().map(|r| r.session.as_str()).max().unwrap_or("");
    rows.iter().filter(|r| r.session == last).cloned().collect()
}

/// What the issue asks of a measurement.
#[derive(Clone, Copy)]
pub(crate) enum Goal {
    None,
    /// current / base at least this.
    Times(f64),
    /// A share (of `trivial`'s rate) at least this.
    Share(f64),
    /// Seconds below this.
    Below(f64),
    /// Seconds, no goal.
    Seconds,
}

pub(crate) struct Measure {
    pub(crate) id: &'static str,
    pub(crate) label: &'static str,
    /// A derived row: `id`'s rate over `<engine>-trivial`'s, run by run.
    pub(crate) share: bool,
    pub(crate) goal: Goal,
}

/// The table's rows, in order; the ids are ci/bench-speed.sh's `measurement` column.
pub(crate) const MEASURES: &[Measure] = &[
    m(
        "hunt-default",
        "`hunt`, default pairs, histories/s",
        Goal::Times(10.0),
    ),
    m(
        "hunt-trunk:transients-tracked",
        "`hunt --rules trunk:transients-tracked`, histories/s",
        Goal::Times(10.0),
    ),
    m(
        "hunt-trunk:complete",
        "`hunt --rules trunk:complete`, histories/s",
        Goal::Times(10.0),
    ),
    m(
        "hunt-complete",
        "`hunt --rules complete`, histories/s",
        Goal::Times(10.0),
    ),
    m(
        "libfuzzer-kraft_diff",
        "libFuzzer `kraft_diff`, exec/s",
        Goal::None,
    ),
    m(
        "libfuzzer-trivial",
        "libFuzzer `trivial`, exec/s",
        Goal::None,
    ),
    m(
        "libfuzzer-kraft_diff-replay",
        "libFuzzer `kraft_diff` replaying 3,000 fixed 600-byte inputs (never padded), exec/s",
        Goal::None,
    ),
    share(
        "libfuzzer-kraft_diff",
        "libFuzzer `kraft_diff` / `trivial`",
        Goal::Share(0.05),
    ),
    m(
        "afl-kraft_diff",
        "AFL++ `afl_kraft_diff`, exec/s",
        Goal::None,
    ),
    m("afl-trivial", "AFL++ `afl_trivial`, exec/s", Goal::None),
    share(
        "afl-kraft_diff",
        "AFL++ `afl_kraft_diff` / `afl_trivial`",
        Goal::None,
    ),
    m(
        "exhaust-complete-depth6",
        "`exhaust --rules complete --depth 6` (`kraft` start), s",
        Goal::Below(60.0),
    ),
    m(
        "exhaust-complete-depth6-cpu",
        "the same `exhaust`, CPU s (user + system)",
        Goal::Seconds,
    ),
    m(
        "exhaust-complete-depth6-all-cores",
        "the same `exhaust` on every core (its default `--jobs`), wall s",
        Goal::Below(60.0),
    ),
];

const fn m(id: &'static str, label: &'static str, goal: Goal) -> Measure {
    Measure {
        id,
        label,
        share: false,
        goal,
    }
}

const fn share(id: &'static str, label: &'static str, goal: Goal) -> Measure {
    Measure {
        id,
        label,
        share: true,
        goal,
    }
}

/// One side's figure: the median of its runs, and whether it is only a lower bound (the
/// median run was stopped at its cap).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Figure {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub runs: usize,
    pub lower_bound: bool,
}

/// The median of (value, capped) pairs; a capped run sorts above every run of the same
/// value that finished.
pub(crate) fn figure(mut v: Vec<(f64, bool)>) -> Option<Figure> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mid = v[(v.len() - 1) / 2];
    let hi = v[v.len() / 2];
    Some(Figure {
        median: (mid.0 + hi.0) / 2.0,
        min: v[0].0,
        max: v[v.len() - 1].0,
        runs: v.len(),
        lower_bound: mid.1 || hi.1,
    })
}

pub(crate) fn side_figure(rows: &[SpeedRow], m: &Measure, side: &str) -> Option<Figure> {
    let of = |id: &str| -> Vec<&SpeedRow> {
        rows.iter()
            .filter(|r| r.side == side && r.measurement == id)
            .collect()
    };
    if m.share {
        let engine = m.id.split('-').next().unwrap_or("");
        let trivial = of(&format!("{engine}-trivial"));
        let shares = of(m.id)
            .iter()
            .filter_map(|r| {
                let t = trivial.iter().find(|t| t.run == r.run && t.value > 0.0)?;
                Some((r.value / t.value, false))
            })
            .collect();
        return figure(shares);
    }
    figure(of(m.id).iter().map(|r| (r.value, r.timeout)).collect())
}

pub(crate) fn number(x: f64, m: &Measure) -> String {
    match m.goal {
        _ if m.share => format!("{:.2} %", x * 100.0),
        Goal::Below(_) | Goal::Seconds if x < 10.0 => format!("{x:.2} s"),
        Goal::Below(_) | Goal::Seconds => format!("{x:.1} s"),
        _ => format!("{x:.0}"),
    }
}

/// current over base where higher is better, base over current for times (so above 1 is
/// always faster); `None` when both are lower bounds.
pub(crate) fn speedup(m: &Measure, base: Figure, current: Figure) -> Option<(f64, &'static str)> {
    let times = matches!(m.goal, Goal::Below(_) | Goal::Seconds);
    let (num, den) = if times {
        (base, current)
    } else {
        (current, base)
    };
    match (num.lower_bound, den.lower_bound) {
        (true, true) => None,
        (true, false) => Some((num.median / den.median, "> ")),
        (false, true) => Some((num.median / den.median, "< ")),
        (false, false) => Some((num.median / den.median, "")),
    }
}

/// The revisions of one side (one, unless the CSV was edited by hand).
pub(crate) fn revision(rows: &[SpeedRow], side: &str) -> String {
    let revs = crate::bench::row::dedup(
        rows.iter()
            .filter(|r| r.side == side)
            .map(|r| r.revision.as_str()),
    );
    revs.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_rows_are_errors_naming_the_line() {
        let bad = |row: &str| parse_csv(&format!("{SPEED_CSV_HEADER}\n{row}\n")).unwrap_err();
        assert_eq!(bad("a,b"), "line 2: expected 9 fields, got 2: `a,b`");
        assert_eq!(
            bad("t,m,left,a,hunt-default,1,5,histories/s,ok"),
            "line 2: side `left` is neither base nor current"
        );
        assert_eq!(
            bad("t,m,base,a,hunt-default,1,x,histories/s,ok"),
            "line 2: value `x` is not a number"
        );
        assert_eq!(
            bad("t,m,base,a,hunt-default,1,-1,histories/s,ok"),
            "line 2: value `-1` is not a figure"
        );
        assert_eq!(
            bad("t,m,base,a,hunt-default,1,5,histories/s,crashed"),
            "line 2: result `crashed` is neither ok nor timeout"
        );
        assert_eq!(parse_csv(SPEED_CSV_HEADER).unwrap_err(), "no rows");
    }

    #[test]
    fn capped_runs_are_lower_bounds_and_two_bounds_have_no_ratio() {
        let capped = |v: f64| (v, true);
        let f = figure(vec![(5.0, false), capped(9.0), capped(9.0)]).unwrap();
        assert!(f.lower_bound && f.median == 9.0 && f.min == 5.0);
        let f = figure(vec![(5.0, false), (6.0, false), capped(9.0)]).unwrap();
        assert!(!f.lower_bound && f.median == 6.0);
        // Even runs: the median is the mean of the middle two, a bound if either is one.
        let f = figure(vec![(4.0, false), capped(8.0)]).unwrap();
        assert!(f.lower_bound && f.median == 6.0);
        let m = MEASURES
            .iter()
            .find(|m| m.id == "exhaust-complete-depth6")
            .unwrap();
        assert_eq!(speedup(m, f, f), None, "two lower bounds have no ratio");
        let done = figure(vec![(30.0, false)]).unwrap();
        assert_eq!(
            speedup(m, f, done),
            Some((0.2, "> ")),
            "times: base over current"
        );
        assert_eq!(speedup(m, done, f), Some((5.0, "< ")));
    }
}
