//! The model-speed plot (docs/benchmarks-speed.svg): per measurement, a bar for the base
//! revision and one for the current tree, each row on its own linear scale (the units
//! differ), the issue's goal as a dashed tick; a run stopped at its cap is a hollow bar.

use crate::bench::speed_data::MEASURES;
use crate::bench::speed_data::{number, revision, side_figure, Figure, Goal, Measure, SpeedRow};
use crate::findings::svg_doc::{self, el, escape_text, Px};
use std::fmt::Write as _;

// The plot's geometry, in pixels.
const LEFT: f64 = 350.0;
const WIDTH: f64 = 360.0;
const ROW: f64 = 34.0;
const TOP: f64 = 44.0;
const BAR: f64 = 10.0;
const BASE_COLOR: &str = "#999999";
const CURRENT_COLOR: &str = "#1b9e77";
const GOAL_COLOR: &str = "#d95f02";

/// What the goal means in the row's unit, if it is a point on the row's scale.
fn goal_value(m: &Measure, base: Option<Figure>) -> Option<f64> {
    match m.goal {
        Goal::None | Goal::Seconds => None,
        Goal::Times(t) => base.filter(|b| !b.lower_bound).map(|b| b.median * t),
        Goal::Share(s) | Goal::Below(s) => Some(s),
    }
}

/// A label as the plot shows it: escaped, without the Markdown's code quotes.
fn text(s: &str) -> String {
    escape_text(&s.replace('`', ""))
}

pub fn svg(rows: &[SpeedRow]) -> String {
    let shown: Vec<(&Measure, Option<Figure>, Option<Figure>)> = MEASURES
        .iter()
        .map(|m| {
            (
                m,
                side_figure(rows, m, "base"),
                side_figure(rows, m, "current"),
            )
        })
        .filter(|(_, b, c)| b.is_some() || c.is_some())
        .collect();
    let height = TOP + ROW * shown.len() as f64 + 40.0;
    let mut s = svg_doc::open(LEFT + WIDTH + 90.0, height, "sans-serif") + svg_doc::BACKGROUND;
    let title = el("text").attr("x", 10).attr("y", 16).attr("font-size", 12);
    let title = title.wrap(format_args!(
        "Model speed: base {} (grey) against current {} (green)",
        text(&revision(rows, "base")),
        text(&revision(rows, "current"))
    ));
    let key = el("text")
        .attr("x", 10)
        .attr("y", 30)
        .wrap("Each row on its own scale; dashed: the goal; hollow: stopped at its cap");
    let _ = writeln!(s, "{title}\n{key}");
    for (i, &(m, b, c)) in shown.iter().enumerate() {
        svg_row(&mut s, TOP + ROW * i as f64, m, b, c);
    }
    let ly = TOP + ROW * shown.len() as f64 + 20.0;
    for (k, (name, color)) in [("base", BASE_COLOR), ("current", CURRENT_COLOR)]
        .iter()
        .enumerate()
    {
        let lx = LEFT + k as f64 * 100.0;
        let key = el("rect")
            .attr("x", Px(lx))
            .attr("y", Px(ly - 9.0))
            .attr("width", 10)
            .attr("height", 10)
            .attr("fill", color)
            .empty();
        let name = el("text")
            .attr("x", Px(lx + 14.0))
            .attr("y", Px(ly))
            .wrap(name);
        let _ = writeln!(s, "{key}{name}");
    }
    s.push_str(svg_doc::CLOSE);
    s
}

/// One measurement: its label, the two bars with their figures, the goal tick.
fn svg_row(s: &mut String, y: f64, m: &Measure, base: Option<Figure>, current: Option<Figure>) {
    let goal = goal_value(m, base);
    let full = [base.map(|f| f.median), current.map(|f| f.median), goal]
        .into_iter()
        .flatten()
        .fold(0.0, f64::max)
        * 1.1;
    let at = |v: f64| if full > 0.0 { v / full * WIDTH } else { 0.0 };
    let label = el("text")
        .attr("x", Px(LEFT - 8.0))
        .attr("y", Px(y + BAR + 4.0))
        .attr("text-anchor", "end")
        .wrap(text(m.label));
    let _ = writeln!(s, "{label}");
    for (k, (f, color)) in [(base, BASE_COLOR), (current, CURRENT_COLOR)]
        .into_iter()
        .enumerate()
    {
        let Some(f) = f else { continue };
        let by = y + 2.0 + k as f64 * (BAR + 2.0);
        let w = at(f.median);
        let (fill, label) = if f.lower_bound {
            ("white", format!("> {}", number(f.median, m)))
        } else {
            (color, number(f.median, m))
        };
        let bar = el("rect")
            .attr("x", LEFT)
            .attr("y", Px(by))
            .attr("width", Px(w))
            .attr("height", BAR)
            .attr("fill", fill)
            .attr("stroke", color)
            .empty();
        let figure = el("text")
            .attr("x", Px(LEFT + w + 4.0))
            .attr("y", Px(by + BAR - 1.0))
            .wrap(text(&label));
        let _ = writeln!(s, "{bar}{figure}");
    }
    if let Some(g) = goal {
        let gx = LEFT + at(g);
        let tick = el("line")
            .attr("x1", Px(gx))
            .attr("y1", Px(y))
            .attr("x2", Px(gx))
            .attr("y2", Px(y + 2.0 * BAR + 6.0))
            .attr("stroke", GOAL_COLOR)
            .attr("stroke-dasharray", "3,2");
        let _ = writeln!(s, "{}", tick.empty());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::speed_data::parse_csv;
    use expect_test::expect;

    #[test]
    fn bars_scale_per_row_with_the_goal_and_hollow_caps() {
        let rows = parse_csv(
            "session,machine,side,revision,measurement,run,value,unit,result\n\
             t,m,base,aaa,hunt-complete,1,1000,histories/s,ok\n\
             t,m,current,bbb,hunt-complete,1,2000,histories/s,ok\n\
             t,m,base,aaa,exhaust-complete-depth6,1,120,s,timeout\n\
             t,m,current,bbb,exhaust-complete-depth6,1,30,s,ok\n",
        )
        .unwrap();
        // hunt: goal 10 x 1000, so the row's scale is 11000 and the goal tick at 10/11.
        // exhaust: base hollow at the cap (> 120 s), the goal tick at 60 s of 132.
        expect![[r##"
            <svg xmlns="http://www.w3.org/2000/svg" width="800" height="152" font-family="sans-serif" font-size="11">
            <rect width="100%" height="100%" fill="white"/>
            <text x="10" y="16" font-size="12">Model speed: base aaa (grey) against current bbb (green)</text>
            <text x="10" y="30">Each row on its own scale; dashed: the goal; hollow: stopped at its cap</text>
            <text x="342.0" y="58.0" text-anchor="end">hunt --rules complete, histories/s</text>
            <rect x="350" y="46.0" width="32.7" height="10" fill="#999999" stroke="#999999"/><text x="386.7" y="55.0">1000</text>
            <rect x="350" y="58.0" width="65.5" height="10" fill="#1b9e77" stroke="#1b9e77"/><text x="419.5" y="67.0">2000</text>
            <line x1="677.3" y1="44.0" x2="677.3" y2="70.0" stroke="#d95f02" stroke-dasharray="3,2"/>
            <text x="342.0" y="92.0" text-anchor="end">exhaust --rules complete --depth 6 (kraft start), s</text>
            <rect x="350" y="80.0" width="327.3" height="10" fill="white" stroke="#999999"/><text x="681.3" y="89.0">> 120.0 s</text>
            <rect x="350" y="92.0" width="81.8" height="10" fill="#1b9e77" stroke="#1b9e77"/><text x="435.8" y="101.0">30.0 s</text>
            <line x1="513.6" y1="78.0" x2="513.6" y2="104.0" stroke="#d95f02" stroke-dasharray="3,2"/>
            <rect x="350.0" y="123.0" width="10" height="10" fill="#999999"/><text x="364.0" y="132.0">base</text>
            <rect x="450.0" y="123.0" width="10" height="10" fill="#1b9e77"/><text x="464.0" y="132.0">current</text>
            </svg>
        "##]]
        .assert_eq(&svg(&rows));
    }
}
