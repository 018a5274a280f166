//! What a tuning run leaves behind, per kernel: `KERNEL.json` (the whole
//! [`KernelResult`], every candidate included), `KERNEL.md` (the summary for people),
//! `KERNEL.svg` (best cycles against evaluations, one line per generator), and the
//! table printed at the end of the run.
//!
//! Rendering is pure; only [`write_reports`] touches the disk, and it replaces each file
//! atomically, so a crash leaves the previous report or the new one.
//!
//! Every speedup and efficiency shown is computed here from cycles, the same way for the
//! baselines and the generator: speedup = hand cycles / cycles, efficiency = roofline
//! cycles / cycles.

use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

use crate::tuner::atomic::write_atomic;
use crate::tuner::record::{Convergence, KernelResult};

/// Where [`write_reports`] put the three files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportPaths {
    pub json: PathBuf,
    pub markdown: PathBuf,
    pub svg: PathBuf,
}

/// How [`render_table_with`] renders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableOptions {
    /// Show the mean round time; without it the time reads `[time]`, so that the table
    /// can be snapshotted.
    pub show_times: bool,
}

/// Writes `KERNEL.json`, `KERNEL.md` and `KERNEL.svg` into `dir` (created if needed),
/// each atomically. The kernel name must be usable as a file name.
pub fn write_reports(dir: &Path, result: &KernelResult) -> io::Result<ReportPaths> {
    let kernel = result.kernel.as_str();
    if kernel.is_empty() || kernel == "." || kernel == ".." || kernel.contains(['/', '\\', '\0']) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("kernel name `{kernel}` cannot be used as a report file name"),
        ));
    }
    std::fs::create_dir_all(dir)?;
    let paths = ReportPaths {
        json: dir.join(format!("{kernel}.json")),
        markdown: dir.join(format!("{kernel}.md")),
        svg: dir.join(format!("{kernel}.svg")),
    };
    write_atomic(&paths.json, render_json(result)?.as_bytes())?;
    write_atomic(&paths.markdown, render_markdown(result).as_bytes())?;
    write_atomic(&paths.svg, render_svg(result).as_bytes())?;
    Ok(paths)
}

/// `KERNEL.json`: the whole result as pretty JSON, ending in a newline.
///
/// serde_json writes a non-finite float (0/0 rates when nothing ran) as `null`, which
/// would not read back, so such a result is refused here rather than written broken.
pub fn render_json(result: &KernelResult) -> io::Result<String> {
    let floats = [
        ("comp_at_1", result.comp_at_1),
        ("pass_at_1", result.pass_at_1),
        ("duplicate_share", result.duplicate_share),
        ("fast_1", result.fast_1),
        ("fast_1_5", result.fast_1_5),
        ("mean_round_seconds", result.mean_round_seconds),
    ];
    let best_floats = result.best.iter().flat_map(|best| {
        [
            ("best.efficiency", Some(best.efficiency)),
            ("best.speedup_over_hand", best.speedup_over_hand),
            (
                "best.speedup_over_first_correct",
                best.speedup_over_first_correct,
            ),
            ("best.vector_score", Some(best.vector_score)),
        ]
    });
    let not_finite = floats
        .into_iter()
        .map(|(name, value)| (name, Some(value)))
        .chain(best_floats)
        .find(|(_, value)| value.is_some_and(|value| !value.is_finite()));
    if let Some((name, value)) = not_finite {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{} report: {name} is {}, which JSON cannot hold",
                result.kernel,
                value.unwrap_or_default()
            ),
        ));
    }
    let mut json = serde_json::to_string_pretty(result).map_err(io::Error::other)?;
    json.push('\n');
    Ok(json)
}

/// `KERNEL.md`: the comparison table, the metrics and the best schedule.
pub fn render_markdown(result: &KernelResult) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# {} on {}\n",
        markdown_text(&result.kernel),
        markdown_text(&result.target)
    );
    let _ = writeln!(
        out,
        "Generator: {}. Roofline: {} cycles; attainable: {} cycles.\n",
        markdown_text(&result.generator),
        result.roofline_cycles,
        result.attainable_cycles
    );
    out.push_str(
        "| schedule | cycles | speedup over hand | efficiency vs roofline | vs attainable | evaluations |\n",
    );
    out.push_str("| --- | ---: | ---: | ---: | ---: | ---: |\n");
    for row in rows(result) {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            markdown_text(&row.name),
            row.cycles_text(),
            row.speedup_text(),
            row.efficiency_text(),
            row.attainable_text(),
            row.evaluations
        );
    }
    out.push('\n');

    let _ = writeln!(out, "- Comp@1: {}", percent(result.comp_at_1));
    let _ = writeln!(out, "- Pass@1: {}", percent(result.pass_at_1));
    let _ = writeln!(out, "- Duplicates: {}", percent(result.duplicate_share));
    for share in &result.constraints {
        let _ = writeln!(
            out,
            "- Decoded under the {}: {} candidates, {} correct",
            share.constraint, share.candidates, share.correct
        );
    }
    let _ = writeln!(out, "- fast_1: {}", percent(result.fast_1));
    let _ = writeln!(out, "- fast_1.5: {}", percent(result.fast_1_5));
    let _ = writeln!(
        out,
        "- Failures per round: {}",
        failures(&result.failures_per_round)
    );
    let _ = writeln!(
        out,
        "- Mean round time: {}",
        seconds(result.mean_round_seconds)
    );
    if let Some(best) = &result.best {
        let _ = writeln!(
            out,
            "- Evaluations to the best: {}",
            best.evaluations_to_best
        );
        let _ = writeln!(
            out,
            "- Speedup over the first correct draft: {}",
            best.speedup_over_first_correct
                .map_or_else(|| "-".to_string(), speedup)
        );
        let _ = writeln!(out, "- Vector score: {}", percent(best.vector_score));
    }
    out.push('\n');

    out.push_str("## Best schedule\n\n");
    match &result.best {
        Some(best) => {
            let _ = writeln!(
                out,
                "{} cycles. Symptom: {}\n",
                best.cycles,
                markdown_text(&best.symptom)
            );
            let fence = "`".repeat(longest_backtick_run(&best.source).max(2) + 1);
            let _ = writeln!(out, "{fence}text");
            out.push_str(&best.source);
            if !best.source.ends_with('\n') {
                out.push('\n');
            }
            let _ = writeln!(out, "{fence}");
        }
        None => {
            let _ = writeln!(
                out,
                "{} found no correct schedule.",
                markdown_text(&result.generator)
            );
        }
    }
    out
}

/// The table printed at the end of a run, times shown.
pub fn render_table(results: &[KernelResult]) -> String {
    render_table_with(results, TableOptions { show_times: true })
}

/// The table printed at the end of a run: per kernel, hand, grid, random and the
/// generator's best with cycles, speedup over hand, efficiency and evaluations, then a
/// line with the first round's Comp@1 and Pass@1, failures per round and the mean round
/// time. Columns line up across kernels.
pub fn render_table_with(results: &[KernelResult], options: TableOptions) -> String {
    const HEADINGS: [&str; 6] = [
        "schedule",
        "cycles",
        "vs hand",
        "efficiency",
        "attainable",
        "evaluations",
    ];
    let blocks: Vec<Vec<[String; 6]>> = results
        .iter()
        .map(|result| {
            rows(result)
                .iter()
                .map(|row| {
                    [
                        row.name.clone(),
                        row.cycles_text(),
                        row.speedup_text(),
                        row.efficiency_text(),
                        row.attainable_text(),
                        row.evaluations.to_string(),
                    ]
                })
                .collect()
        })
        .collect();
    let mut widths = HEADINGS.map(str::len);
    for cells in blocks.iter().flatten() {
        for (width, cell) in widths.iter_mut().zip(cells) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: &[String; 6]| {
        let mut text = format!("  {:<width$}", cells[0], width = widths[0]);
        for (cell, width) in cells.iter().zip(widths).skip(1) {
            let _ = write!(text, "  {cell:>width$}");
        }
        text.push('\n');
        text
    };

    let mut out = String::new();
    for (index, (result, block)) in results.iter().zip(&blocks).enumerate() {
        if index > 0 {
            out.push('\n');
        }
        let _ = writeln!(
            out,
            "{} on {} (roofline {} cycles, attainable {})",
            result.kernel, result.target, result.roofline_cycles, result.attainable_cycles
        );
        out.push_str(&line(&HEADINGS.map(String::from)));
        for cells in block {
            out.push_str(&line(cells));
        }
        let time = if options.show_times {
            seconds(result.mean_round_seconds)
        } else {
            "[time]".to_string()
        };
        let _ = writeln!(
            out,
            "  Comp@1 {}   Pass@1 {}   duplicates {}   failures per round [{}]   mean round {time}",
            percent(result.comp_at_1),
            percent(result.pass_at_1),
            percent(result.duplicate_share),
            failures(&result.failures_per_round),
        );
    }
    out
}

/// `KERNEL.svg`: best cycles so far against evaluations, one step line per generator,
/// with dashed lines for the hand schedule and the roofline.
pub fn render_svg(result: &KernelResult) -> String {
    Plot::new(result).render()
}

/// One row of the comparison: a baseline or the generator's best.
struct Row {
    name: String,
    cycles: Option<u64>,
    evaluations: u64,
    hand: Option<u64>,
    roofline: u64,
    attainable: u64,
}

impl Row {
    fn cycles_text(&self) -> String {
        self.cycles
            .map_or_else(|| "-".to_string(), |c| c.to_string())
    }

    fn speedup_text(&self) -> String {
        match (self.hand, self.cycles) {
            (Some(hand), Some(cycles)) if cycles > 0 => speedup(hand as f64 / cycles as f64),
            _ => "-".to_string(),
        }
    }

    fn efficiency_text(&self) -> String {
        self.fraction_text(self.roofline)
    }

    fn attainable_text(&self) -> String {
        self.fraction_text(self.attainable)
    }

    /// `bound / cycles` as a percentage.
    fn fraction_text(&self, bound: u64) -> String {
        match self.cycles {
            Some(cycles) if cycles > 0 && bound > 0 => percent(bound as f64 / cycles as f64),
            _ => "-".to_string(),
        }
    }
}

/// The rows in the order the issue asks for: hand, grid, random, the generator.
fn rows(result: &KernelResult) -> Vec<Row> {
    let baselines = &result.baselines;
    let hand = baselines.hand.cycles;
    let row = |name: &str, cycles, evaluations| Row {
        name: name.to_string(),
        cycles,
        evaluations,
        hand,
        roofline: result.roofline_cycles,
        attainable: result.attainable_cycles,
    };
    vec![
        row("hand", hand, baselines.hand.evaluations),
        row("grid", baselines.grid.cycles, baselines.grid.evaluations),
        row(
            "random",
            baselines.random.cycles,
            baselines.random.evaluations,
        ),
        row(
            &result.generator,
            result.best.as_ref().map(|best| best.cycles),
            result.evaluations,
        ),
    ]
}

fn speedup(ratio: f64) -> String {
    if ratio.is_finite() {
        format!("{ratio:.2}x")
    } else {
        "-".to_string()
    }
}

fn percent(share: f64) -> String {
    if share.is_finite() {
        format!("{:.0}%", share * 100.0)
    } else {
        "-".to_string()
    }
}

fn seconds(value: f64) -> String {
    if value.is_finite() {
        format!("{value:.2} s")
    } else {
        "-".to_string()
    }
}

fn failures(per_round: &[u32]) -> String {
    if per_round.is_empty() {
        return "-".to_string();
    }
    let texts: Vec<String> = per_round.iter().map(u32::to_string).collect();
    texts.join(", ")
}

/// Text for a Markdown table cell or line: pipes escaped, newlines folded.
fn markdown_text(text: &str) -> String {
    text.replace('|', "\\|").replace(['\r', '\n'], " ")
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// Text for SVG: the five XML special characters escaped.
fn xml_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Control characters other than tab and newline are not allowed in XML 1.0.
            c if c.is_control() && c != '\t' && c != '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The convergence plot's geometry and data.
struct Plot<'a> {
    result: &'a KernelResult,
    /// Evaluations at the right end of the x axis, and the tick step.
    x_top: u64,
    x_step: u64,
    /// Cycles at the top of the y axis, and the tick step.
    y_top: u64,
    y_step: u64,
    /// The series, the main generator first.
    series: Vec<&'a Convergence>,
}

const WIDTH: f64 = 800.0;
const HEIGHT: f64 = 440.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 560.0;
const TOP: f64 = 50.0;
const BOTTOM: f64 = 380.0;
/// Line colours, the main generator's first (a colour-blind-safe palette).
const COLOURS: [&str; 6] = [
    "#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00",
];
/// Characters that fit the title and a legend name (before its cycles) at their sizes.
const TITLE_CHARS: usize = 84;
const LEGEND_CHARS: usize = 16;
const HAND_COLOUR: &str = "#555555";
const ROOFLINE_COLOUR: &str = "#c00000";

impl<'a> Plot<'a> {
    fn new(result: &'a KernelResult) -> Self {
        let mut series: Vec<&Convergence> = result
            .convergence
            .iter()
            .filter(|series| !series.points.is_empty())
            .collect();
        // A stable sort keeps the others in their recorded order.
        series.sort_by_key(|series| series.generator != result.generator);

        let last_evaluation = series
            .iter()
            .flat_map(|series| series.points.iter().map(|&(evaluations, _)| evaluations))
            .max()
            .unwrap_or(0)
            .max(1);
        let x_step = nice_step(last_evaluation as f64 / 6.0);
        let x_top = last_evaluation.div_ceil(x_step) * x_step;

        // The early points of a search can be many times the hand schedule, and would
        // squash the interesting part of the plot; above three times the hand schedule
        // (or the worst final value, if higher) the lines are clipped at the top edge.
        let highest_point = series
            .iter()
            .flat_map(|series| series.points.iter().map(|&(_, cycles)| cycles))
            .max()
            .unwrap_or(0);
        let highest_final = series
            .iter()
            .filter_map(|series| series.points.last().map(|&(_, cycles)| cycles))
            .max()
            .unwrap_or(0);
        let hand = result.baselines.hand.cycles.unwrap_or(0);
        let cap = hand.max(highest_final).saturating_mul(3);
        let highest = highest_point
            .min(if cap > 0 { cap } else { highest_point })
            .max(hand)
            .max(result.roofline_cycles)
            .max(1);
        let y_step = nice_step(highest as f64 * 1.05 / 6.0);
        let y_top = (highest + highest / 20).div_ceil(y_step).max(1) * y_step;

        Plot {
            result,
            x_top,
            x_step,
            y_top,
            y_step,
            series,
        }
    }

    fn x(&self, evaluations: u64) -> f64 {
        LEFT + (RIGHT - LEFT) * evaluations as f64 / self.x_top as f64
    }

    fn y(&self, cycles: u64) -> f64 {
        BOTTOM - (BOTTOM - TOP) * cycles as f64 / self.y_top as f64
    }

    fn render(&self) -> String {
        let result = self.result;
        let mut svg = String::new();
        let _ = writeln!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">"#
        );
        let _ = writeln!(
            svg,
            r#"<title>{}: best cycles by evaluations</title>"#,
            xml_text(&result.kernel)
        );
        let _ = writeln!(
            svg,
            r#"<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="white"/>"#
        );
        let _ = writeln!(
            svg,
            r#"<clipPath id="plot"><rect x="{LEFT}" y="{TOP}" width="{}" height="{}"/></clipPath>"#,
            RIGHT - LEFT,
            BOTTOM - TOP
        );
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="28" text-anchor="middle" font-size="15" font-weight="bold">{}</text>"#,
            WIDTH / 2.0,
            xml_text(&shorten(
                &format!(
                    "{} on {}: best cycles by evaluations",
                    result.kernel, result.target
                ),
                TITLE_CHARS
            ))
        );
        self.render_axes(&mut svg);
        self.render_reference_lines(&mut svg);
        self.render_series(&mut svg);
        if self.series.is_empty() {
            let _ = writeln!(
                svg,
                r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#777777">no schedule ran</text>"##,
                (LEFT + RIGHT) / 2.0,
                (TOP + BOTTOM) / 2.0
            );
        }
        self.render_legend(&mut svg);
        svg.push_str("</svg>\n");
        svg
    }

    /// Grid lines, ticks, tick labels, the axes and their titles.
    fn render_axes(&self, svg: &mut String) {
        svg.push_str(r##"<g stroke="#e6e6e6" stroke-width="1">"##);
        svg.push('\n');
        for cycles in (self.y_step..=self.y_top).step_by(self.y_step as usize) {
            let y = self.y(cycles);
            let _ = writeln!(
                svg,
                r#"<line x1="{LEFT}" y1="{y:.1}" x2="{RIGHT}" y2="{y:.1}"/>"#
            );
        }
        svg.push_str("</g>\n");

        svg.push_str(r##"<g stroke="#333333" stroke-width="1">"##);
        svg.push('\n');
        for evaluations in (0..=self.x_top).step_by(self.x_step as usize) {
            let x = self.x(evaluations);
            let _ = writeln!(
                svg,
                r#"<line x1="{x:.1}" y1="{BOTTOM}" x2="{x:.1}" y2="{}"/>"#,
                BOTTOM + 5.0
            );
        }
        for cycles in (0..=self.y_top).step_by(self.y_step as usize) {
            let y = self.y(cycles);
            let _ = writeln!(
                svg,
                r#"<line x1="{}" y1="{y:.1}" x2="{LEFT}" y2="{y:.1}"/>"#,
                LEFT - 5.0
            );
        }
        let _ = writeln!(
            svg,
            r#"<polyline points="{LEFT},{TOP} {LEFT},{BOTTOM} {RIGHT},{BOTTOM}" fill="none"/>"#
        );
        svg.push_str("</g>\n");

        svg.push_str(r##"<g fill="#333333">"##);
        svg.push('\n');
        for evaluations in (0..=self.x_top).step_by(self.x_step as usize) {
            let _ = writeln!(
                svg,
                r#"<text x="{:.1}" y="{}" text-anchor="middle">{evaluations}</text>"#,
                self.x(evaluations),
                BOTTOM + 19.0
            );
        }
        for cycles in (0..=self.y_top).step_by(self.y_step as usize) {
            let _ = writeln!(
                svg,
                r#"<text x="{}" y="{:.1}" text-anchor="end" dominant-baseline="middle">{}</text>"#,
                LEFT - 9.0,
                self.y(cycles),
                tick_label(cycles, self.y_step)
            );
        }
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{}" text-anchor="middle" font-size="13">evaluations</text>"#,
            (LEFT + RIGHT) / 2.0,
            BOTTOM + 42.0
        );
        let middle = (TOP + BOTTOM) / 2.0;
        let _ = writeln!(
            svg,
            r#"<text x="22" y="{middle:.1}" text-anchor="middle" font-size="13" transform="rotate(-90 22 {middle:.1})">best cycles so far</text>"#
        );
        svg.push_str("</g>\n");
    }

    /// The hand schedule and the roofline, dashed across the plot.
    fn render_reference_lines(&self, svg: &mut String) {
        let lines = [
            (self.result.baselines.hand.cycles, HAND_COLOUR, "6 4"),
            (Some(self.result.roofline_cycles), ROOFLINE_COLOUR, "2 3"),
        ];
        for (cycles, colour, dashes) in lines {
            let Some(cycles) = cycles.filter(|&cycles| cycles > 0) else {
                continue;
            };
            let y = self.y(cycles);
            let _ = writeln!(
                svg,
                r#"<line x1="{LEFT}" y1="{y:.1}" x2="{RIGHT}" y2="{y:.1}" stroke="{colour}" stroke-width="1.5" stroke-dasharray="{dashes}"/>"#
            );
        }
    }

    /// One step line per generator: the best so far holds until the next improvement.
    fn render_series(&self, svg: &mut String) {
        svg.push_str(r#"<g clip-path="url(#plot)" fill="none" stroke-linejoin="round">"#);
        svg.push('\n');
        // The main generator last, so it is drawn on top.
        for (index, series) in self.series.iter().enumerate().rev() {
            let mut points = String::new();
            let mut previous: Option<u64> = None;
            for &(evaluations, cycles) in &series.points {
                let x = self.x(evaluations);
                if let Some(previous) = previous {
                    let _ = write!(points, " {x:.1},{:.1}", self.y(previous));
                }
                let _ = write!(points, " {x:.1},{:.1}", self.y(cycles));
                previous = Some(cycles);
            }
            let width = if index == 0 { 2.5 } else { 1.5 };
            let _ = writeln!(
                svg,
                r#"<polyline points="{}" stroke="{}" stroke-width="{width}"/>"#,
                points.trim_start(),
                COLOURS[index % COLOURS.len()]
            );
        }
        svg.push_str("</g>\n");
        // The final bests, unclipped: they are never above the top of the axis.
        for (index, series) in self.series.iter().enumerate().rev() {
            if let Some(&(evaluations, cycles)) = series.points.last() {
                let _ = writeln!(
                    svg,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{}"/>"#,
                    self.x(evaluations),
                    self.y(cycles),
                    COLOURS[index % COLOURS.len()]
                );
            }
        }
    }

    /// Right of the plot: each generator with its final best, then the dashed lines.
    fn render_legend(&self, svg: &mut String) {
        let x = RIGHT + 20.0;
        let mut y = TOP + 10.0;
        let mut entry = |svg: &mut String,
                         colour: &str,
                         width: f64,
                         dashes: &str,
                         label: String| {
            let dash_attribute = if dashes.is_empty() {
                String::new()
            } else {
                format!(r#" stroke-dasharray="{dashes}""#)
            };
            let _ = writeln!(
                svg,
                r#"<line x1="{x}" y1="{y}" x2="{}" y2="{y}" stroke="{colour}" stroke-width="{width}"{dash_attribute}/>"#,
                x + 24.0
            );
            let _ = writeln!(
                svg,
                r#"<text x="{}" y="{y}" dominant-baseline="middle">{label}</text>"#,
                x + 32.0
            );
            y += 22.0;
        };
        for (index, series) in self.series.iter().enumerate() {
            let best = series.points.last().map_or(0, |&(_, cycles)| cycles);
            entry(
                svg,
                COLOURS[index % COLOURS.len()],
                if index == 0 { 2.5 } else { 1.5 },
                "",
                format!(
                    "{} ({})",
                    xml_text(&shorten(&series.generator, LEGEND_CHARS)),
                    grouped(best)
                ),
            );
        }
        if let Some(hand) = self.result.baselines.hand.cycles {
            entry(
                svg,
                HAND_COLOUR,
                1.5,
                "6 4",
                format!("hand ({})", grouped(hand)),
            );
        }
        if self.result.roofline_cycles > 0 {
            entry(
                svg,
                ROOFLINE_COLOUR,
                1.5,
                "2 3",
                format!("roofline ({})", grouped(self.result.roofline_cycles)),
            );
        }
    }
}

/// `text` cut to `max` characters, an ellipsis marking the cut.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut short: String = text.chars().take(max.saturating_sub(1)).collect();
    short.push('…');
    short
}

/// `1,018,866`: digits grouped by thousands, for the legend.
fn grouped(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// A tick step near `raw`: 1, 2 or 5 times a power of ten, at least 1.
fn nice_step(raw: f64) -> u64 {
    // NaN, from an empty range, lands here too.
    if raw.is_nan() || raw <= 1.0 {
        return 1;
    }
    let magnitude = 10f64.powf(raw.log10().floor());
    let residual = raw / magnitude;
    let nice = if residual <= 1.0 {
        1.0
    } else if residual <= 2.0 {
        2.0
    } else if residual <= 5.0 {
        5.0
    } else {
        10.0
    };
    (nice * magnitude).round() as u64
}

/// `250k`, `1.5M` where the step allows an exact short form, the plain number otherwise.
fn tick_label(value: u64, step: u64) -> String {
    if value == 0 {
        "0".to_string()
    } else if step.is_multiple_of(100_000) && value >= 1_000_000 {
        let millions = value as f64 / 1e6;
        format!("{}M", trim_float(millions))
    } else if step.is_multiple_of(1_000) {
        format!("{}k", value / 1_000)
    } else {
        value.to_string()
    }
}

fn trim_float(value: f64) -> String {
    let text = format!("{value:.1}");
    text.strip_suffix(".0").unwrap_or(&text).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tuner::record::{
        BaselineResult, Baselines, Best, CandidateRecord, Convergence, Verdict,
    };
    use npu_core::{Code, DiagnosticRecord};

    fn candidate(round: u32, index: u32, verdict: Verdict, cycles: Option<u64>) -> CandidateRecord {
        let diagnostics = if verdict == Verdict::Rejected {
            vec![DiagnosticRecord {
                code: Code::E020,
                line: 2,
                column: 5,
                message: "ub holds 196608 B; a, b, y at depth 2 need 262144 B".into(),
                help: Some("split i by 2048 or less fits".into()),
            }]
        } else {
            Vec::new()
        };
        CandidateRecord {
            kernel: "vmla".into(),
            generator: "heuristic".into(),
            round,
            index,
            source: format!("split i by {};\nbuffer ub depth 2;", 512 << index),
            verdict,
            cycles,
            diagnostics,
            feedback: String::new(),
            report: None,
            knowledge: Vec::new(),
            verified: true,
            constraint: None,
        }
    }

    fn sample() -> KernelResult {
        let baseline = |cycles, evaluations| BaselineResult {
            cycles: Some(cycles),
            evaluations,
            source: Some("split i by 1024;".into()),
        };
        KernelResult {
            kernel: "vmla".into(),
            target: "ascend910b".into(),
            generator: "heuristic".into(),
            evaluations: 12,
            roofline_cycles: 1000,
            attainable_cycles: 1050,
            best: Some(Best {
                cycles: 1087,
                source: "split i by 4096;\nbuffer ub depth 2;\ncores 8;".into(),
                efficiency: 1000.0 / 1087.0,
                speedup_over_hand: Some(2000.0 / 1087.0),
                speedup_over_first_correct: Some(1600.0 / 1087.0),
                evaluations_to_best: 9,
                vector_score: 0.71,
                symptom: "vector busy 71%, MTE2 busy 64%: balanced".into(),
            }),
            baselines: Baselines {
                hand: baseline(2000, 1),
                random: baseline(1700, 12),
                grid: baseline(1500, 12),
            },
            comp_at_1: 0.75,
            pass_at_1: 0.5,
            duplicate_share: 0.0,
            constraints: Vec::new(),
            fast_1: 0.4,
            fast_1_5: 0.2,
            failures_per_round: vec![2, 1, 0],
            mean_round_seconds: 0.4125,
            convergence: vec![
                Convergence {
                    generator: "random".into(),
                    points: vec![(1, 5200), (2, 2600), (4, 2100), (7, 1900), (11, 1700)],
                },
                Convergence {
                    generator: "grid".into(),
                    points: vec![(1, 3100), (3, 2400), (5, 1800), (8, 1500), (12, 1500)],
                },
                Convergence {
                    generator: "heuristic".into(),
                    points: vec![
                        (1, 1600),
                        (2, 1600),
                        (5, 1300),
                        (6, 1210),
                        (9, 1087),
                        (12, 1087),
                    ],
                },
            ],
            candidates: vec![
                candidate(0, 0, Verdict::Correct, Some(1600)),
                candidate(0, 1, Verdict::Rejected, None),
                candidate(0, 2, Verdict::Wrong, Some(1400)),
                candidate(0, 3, Verdict::Correct, Some(1650)),
            ],
        }
    }

    #[test]
    fn markdown() {
        insta::assert_snapshot!(render_markdown(&sample()));
    }

    #[test]
    fn table() {
        let mut second = sample();
        second.kernel = "softmax_rows".into();
        second.generator = "llm".into();
        second.best = None;
        second.baselines.random.cycles = None;
        second.failures_per_round = vec![4, 4, 3, 2, 1];
        let table = render_table_with(&[sample(), second], TableOptions { show_times: false });
        insta::assert_snapshot!(table);
    }

    #[test]
    fn table_with_times() {
        let table = render_table(&[sample()]);
        assert!(table.contains("mean round 0.41 s"), "{table}");
    }

    #[test]
    fn svg() {
        insta::assert_snapshot!(render_svg(&sample()));
    }

    #[test]
    fn svg_escapes_text() {
        let mut result = sample();
        result.kernel = "a<b&\"c'".into();
        result.convergence[0].generator = "r<&>".into();
        let svg = render_svg(&result);
        assert!(svg.contains("a&lt;b&amp;&quot;c&apos;"));
        assert!(svg.contains("r&lt;&amp;&gt;"));
        assert!(!svg.contains("a<b"));
    }

    #[test]
    fn svg_without_points_says_so() {
        let mut result = sample();
        result.convergence.clear();
        result.baselines.hand.cycles = None;
        let svg = render_svg(&result);
        assert!(svg.contains(">no schedule ran</text>"));
        assert!(!svg.contains("<polyline points=\"\""));
    }

    #[test]
    fn json_holds_every_field_and_reads_back() {
        let json = render_json(&sample()).unwrap();
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        for pointer in [
            "/kernel",
            "/target",
            "/generator",
            "/evaluations",
            "/roofline_cycles",
            "/best/cycles",
            "/best/source",
            "/baselines/hand/cycles",
            "/baselines/random/cycles",
            "/baselines/grid/cycles",
            "/comp_at_1",
            "/pass_at_1",
            "/duplicate_share",
            "/candidates/1/verdict",
            "/candidates/1/diagnostics/0/code",
            "/candidates/1/cycles",
        ] {
            assert!(value.pointer(pointer).is_some(), "{pointer} missing");
        }
        assert_eq!(value["candidates"].as_array().unwrap().len(), 4);
        let back: KernelResult = serde_json::from_str(&json).unwrap();
        assert_eq!(render_markdown(&back), render_markdown(&sample()));
    }

    #[test]
    fn json_refuses_non_finite_rates() {
        let mut result = sample();
        result.comp_at_1 = f64::NAN;
        let error = render_json(&result).unwrap_err();
        assert_eq!(
            error.to_string(),
            "vmla report: comp_at_1 is NaN, which JSON cannot hold"
        );
    }

    #[test]
    fn markdown_fences_outlast_backticks_in_the_source() {
        let mut result = sample();
        result.best.as_mut().unwrap().source = "```\nsplit i by 4096;".into();
        let markdown = render_markdown(&result);
        assert!(
            markdown.contains("````text\n```\nsplit i by 4096;\n````\n"),
            "{markdown}"
        );
    }

    #[test]
    fn write_reports_writes_three_files() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("reports");
        let paths = write_reports(&out, &sample()).unwrap();
        assert_eq!(paths.json, out.join("vmla.json"));
        assert_eq!(paths.markdown, out.join("vmla.md"));
        assert_eq!(paths.svg, out.join("vmla.svg"));
        let markdown = std::fs::read_to_string(&paths.markdown).unwrap();
        assert_eq!(markdown, render_markdown(&sample()));
        assert!(
            std::fs::read_to_string(&paths.svg)
                .unwrap()
                .starts_with("<svg")
        );
        let mut names: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["vmla.json", "vmla.md", "vmla.svg"]);

        let mut result = sample();
        result.kernel = "../escape".into();
        let error = write_reports(&out, &result).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn tick_steps_and_labels() {
        let steps: Vec<u64> = [0.3, 1.0, 1.4, 3.0, 7.0, 12.0, 240.0, 45_000.0]
            .map(nice_step)
            .to_vec();
        assert_eq!(steps, [1, 1, 2, 5, 10, 20, 500, 50_000]);
        let labels: Vec<String> = [
            (0, 500),
            (2500, 500),
            (4000, 1000),
            (1_500_000, 500_000),
            (3_000_000, 1_000_000),
        ]
        .map(|(value, step)| tick_label(value, step))
        .to_vec();
        assert_eq!(labels, ["0", "2500", "4k", "1.5M", "3M"]);
        let grouped: Vec<String> = [0, 999, 1000, 1_018_866].map(grouped).to_vec();
        assert_eq!(grouped, ["0", "999", "1,000", "1,018,866"]);
        assert_eq!(shorten("grid-search", 6), "grid-…");
        assert_eq!(shorten("grid", 6), "grid");
    }
}
