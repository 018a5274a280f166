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

use crate::atomic::write_atomic;
use crate::record::KernelResult;

mod svg;

pub use svg::render_svg;

/// Where [`write_reports`] put the three files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportPaths {
    /// `DIR/KERNEL.json`: the whole [`KernelResult`].
    pub json: PathBuf,
    /// `DIR/KERNEL.md`: the summary for people.
    pub markdown: PathBuf,
    /// `DIR/KERNEL.svg`: the convergence plot.
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
        // A run of no rounds proposed nothing: its shares are not 0%, they are none.
        let share = |value: f64| match result.evaluations {
            0 => "n/a".to_string(),
            _ => percent(value),
        };
        let _ = writeln!(
            out,
            "  Comp@1 {}   Pass@1 {}   duplicates {}   failures per round [{}]   mean round {time}",
            share(result.comp_at_1),
            share(result.pass_at_1),
            share(result.duplicate_share),
            failures(&result.failures_per_round),
        );
    }
    out
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

#[cfg(test)]
mod tests;
