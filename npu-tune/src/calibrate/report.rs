//! What a calibration says: the errors per kernel and per pipe before and after, the
//! effects the model lacks (a residual the constants cannot explain), and the new
//! target file with each constant's provenance.
//!
//! A kernel's error is the relative error of its total time, what a tuner ranks
//! schedules by (for a row with no total, the root mean square over its pipes); a
//! pipe's error is the median over the rows of that pipe's relative error. When a per-launch residual is flagged, the total's prediction
//! after the fit includes it, and the report says so: the target cannot hold it, but a
//! reader comparing the simulator with the device should add it.

use std::fmt::Write as _;

use npu_core::target::Target;

use super::Calibration;
use super::columns::Quantity;
use super::fit::{Fitted, MIN_LEVERAGE, MIN_SHARE, Observation, Verdict, median};
use super::subject::Subject;

/// One figure of one subject: measured, and predicted before and after the fit.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelError {
    /// Index of the subject.
    pub subject: usize,
    /// The figure.
    pub quantity: Quantity,
    /// Measured cycles.
    pub measured: f64,
    /// The simulator's cycles under the target as it was.
    pub before: f64,
    /// The simulator's cycles under the fitted target.
    pub after: f64,
}

/// An effect the model lacks, found in the residuals.
#[derive(Clone, Debug, PartialEq)]
pub enum Flag {
    /// Every launch's total is longer than the model by about `cycles` (± `error`).
    Launch {
        /// Cycles per launch.
        cycles: f64,
        /// Its standard error.
        error: f64,
    },
    /// A figure is measured consistently above (or below) the fitted model.
    Quantity {
        /// The figure.
        quantity: Quantity,
        /// The median relative residual, measured over predicted minus one.
        median: f64,
        /// Rows with a residual of the median's sign, and rows.
        agreeing: usize,
        /// Rows of this figure.
        rows: usize,
    },
}

/// Least relative size, against the median total, of a per-launch residual worth a flag.
const LAUNCH_SHARE: f64 = 0.005;
/// Least median relative residual of a figure worth a flag, and the least share of its
/// rows that must agree in sign.
const QUANTITY_RESIDUAL: f64 = 0.03;
const AGREEING: f64 = 0.9;

/// The figures of every observation under the target before and after the fit.
pub(crate) fn errors(
    subjects: &[Subject],
    observations: &[Observation],
    start: &Target,
    fitted: &Fitted,
) -> Result<Vec<KernelError>, String> {
    let mut cache: Vec<Option<(super::Simulated, super::Simulated)>> = vec![None; subjects.len()];
    let mut errors = Vec::new();
    for o in observations {
        if cache[o.subject].is_none() {
            let subject = &subjects[o.subject];
            cache[o.subject] = Some((subject.simulate(start)?, subject.simulate(&fitted.target)?));
        }
        let (before, after) = cache[o.subject].as_ref().ok_or("no simulation")?;
        errors.push(KernelError {
            subject: o.subject,
            quantity: o.quantity,
            measured: o.cycles,
            before: before.get(o.quantity),
            after: after.get(o.quantity),
        });
    }
    Ok(errors)
}

/// The effects the residuals show (module docs).
pub(crate) fn flags(errors: &[KernelError], fitted: &Fitted) -> Vec<Flag> {
    let mut flags = Vec::new();
    let totals: Vec<f64> = errors
        .iter()
        .filter(|e| e.quantity == Quantity::Total)
        .map(|e| e.measured)
        .collect();
    if let (Some((cycles, error)), Some(typical)) = (fitted.launch, median(&totals))
        && cycles.abs() > 3.0 * error
        && cycles.abs() > LAUNCH_SHARE * typical
    {
        flags.push(Flag::Launch { cycles, error });
    }
    let launch = launch_cycles(&flags);
    let mut quantities: Vec<Quantity> = errors.iter().map(|e| e.quantity).collect();
    quantities.sort();
    quantities.dedup();
    for quantity in quantities {
        let residuals: Vec<f64> = errors
            .iter()
            .filter(|e| e.quantity == quantity)
            .map(|e| e.measured / adjusted(e, launch) - 1.0)
            .collect();
        let Some(middle) = median(&residuals) else {
            continue;
        };
        let agreeing = residuals
            .iter()
            .filter(|r| r.signum() == middle.signum())
            .count();
        if residuals.len() >= 3
            && middle.abs() > QUANTITY_RESIDUAL
            && agreeing as f64 >= AGREEING * residuals.len() as f64
        {
            flags.push(Flag::Quantity {
                quantity,
                median: middle,
                agreeing,
                rows: residuals.len(),
            });
        }
    }
    flags
}

/// The per-launch cycles a flag adds to every total (0 without one).
fn launch_cycles(flags: &[Flag]) -> f64 {
    flags
        .iter()
        .find_map(|f| match f {
            Flag::Launch { cycles, .. } => Some(*cycles),
            Flag::Quantity { .. } => None,
        })
        .unwrap_or(0.0)
}

/// The prediction after the fit, a total with the flagged per-launch cycles.
fn adjusted(error: &KernelError, launch: f64) -> f64 {
    match error.quantity {
        Quantity::Total => error.after + launch,
        Quantity::Pipe(_) => error.after,
    }
}

/// Per subject measured: the relative error of its total before and after, in subject
/// order (of a subject with no total, the root mean square over its pipes).
pub fn kernel_errors(calibration: &Calibration) -> Vec<(usize, f64, f64)> {
    let launch = launch_cycles(&calibration.flags);
    let mut subjects: Vec<usize> = calibration.errors.iter().map(|e| e.subject).collect();
    subjects.sort_unstable();
    subjects.dedup();
    subjects
        .into_iter()
        .map(|s| {
            let all = calibration.errors.iter().filter(|e| e.subject == s);
            let totals: Vec<&KernelError> = all
                .clone()
                .filter(|e| e.quantity == Quantity::Total)
                .collect();
            let mine: Vec<&KernelError> = match totals.is_empty() {
                true => all.collect(),
                false => totals,
            };
            let rms = |f: &dyn Fn(&KernelError) -> f64| {
                (mine
                    .iter()
                    .map(|e| (f(e) / e.measured - 1.0).powi(2))
                    .sum::<f64>()
                    / mine.len() as f64)
                    .sqrt()
            };
            (s, rms(&|e| e.before), rms(&|e| adjusted(e, launch)))
        })
        .collect()
}

/// Per figure: rows, and the median absolute relative error before and after.
pub fn quantity_errors(calibration: &Calibration) -> Vec<(Quantity, usize, f64, f64)> {
    let launch = launch_cycles(&calibration.flags);
    let mut quantities: Vec<Quantity> = calibration.errors.iter().map(|e| e.quantity).collect();
    quantities.sort();
    quantities.dedup();
    quantities
        .into_iter()
        .map(|q| {
            let mine: Vec<&KernelError> = calibration
                .errors
                .iter()
                .filter(|e| e.quantity == q)
                .collect();
            let before: Vec<f64> = mine
                .iter()
                .map(|e| (e.before / e.measured - 1.0).abs())
                .collect();
            let after: Vec<f64> = mine
                .iter()
                .map(|e| (adjusted(e, launch) / e.measured - 1.0).abs())
                .collect();
            let m = |v: &[f64]| median(v).unwrap_or(0.0);
            (q, mine.len(), m(&before), m(&after))
        })
        .collect()
}

/// Why a constant kept its value, or where its new one came from, in one phrase.
pub fn provenance(fit: &super::ConstantFit) -> String {
    match fit.verdict {
        Verdict::Fitted => format!(
            "fitted from {} rows (leverage {:.0}, independent share {:.2}; estimate {})",
            fit.rows,
            fit.leverage,
            fit.share,
            number(fit.estimate)
        ),
        Verdict::Unused => "left as it was: no measured figure depends on it".into(),
        Verdict::Weak => format!(
            "left as it was: the {} rows that depend on it give it leverage {:.1}, under {MIN_LEVERAGE}",
            fit.rows, fit.leverage
        ),
        Verdict::Entangled => format!(
            "left as it was: other constants explain its effect (independent share {:.3}, under {MIN_SHARE})",
            fit.share
        ),
    }
}

/// The report as Markdown.
pub fn render_report(calibration: &Calibration) -> String {
    let mut text = String::from("# Calibration\n\n");
    let fitted = &calibration.fitted;
    let _ = writeln!(
        text,
        "{} rows of {} kernels; {} Gauss-Newton steps; relative residual {:.2}%; condition number at most {:.1}.\n",
        calibration.observations.len(),
        measured_kernels(calibration),
        fitted.iterations,
        fitted.sigma * 100.0,
        fitted.condition
    );
    let (before, after, rows) = calibration.clock;
    let _ = match rows {
        0 => writeln!(
            text,
            "clock_mhz {before}: left as it was: no row has both cycles and a time\n"
        ),
        _ => writeln!(
            text,
            "clock_mhz {before} -> {after:.1}: the median ratio of cycles to microseconds over {rows} rows\n"
        ),
    };
    render_flags(&mut text, calibration);
    render_constants(&mut text, fitted);
    render_errors(&mut text, calibration);
    if !calibration.warnings.is_empty() {
        text.push_str("\n## Warnings\n\n");
        for warning in &calibration.warnings {
            let _ = writeln!(text, "- {warning}");
        }
    }
    text
}

fn render_flags(text: &mut String, calibration: &Calibration) {
    text.push_str("## Residuals the fitted constants leave\n\n");
    if calibration.flags.is_empty() {
        text.push_str("None: the residuals are within the noise.\n");
    }
    for flag in &calibration.flags {
        let _ = match flag {
            Flag::Launch { cycles, error } => writeln!(
                text,
                "- every launch takes {cycles:.0} cycles (± {error:.0}) beyond the model: the simulator has no per-launch cost, so this is reported, not fitted into a constant; the errors after the fit add it to each total"
            ),
            Flag::Quantity {
                quantity,
                median,
                agreeing,
                rows,
            } => writeln!(
                text,
                "- {} is measured {:+.1}% off the fitted model (median; {agreeing} of {rows} rows agree in sign): {}",
                quantity.name(),
                median * 100.0,
                suspects(&calibration.fitted, *quantity)
            ),
        };
    }
    text.push('\n');
}

/// What may explain a figure off the model: the constants it depends on that were not
/// fitted, or else an effect the model lacks.
fn suspects(fitted: &Fitted, quantity: Quantity) -> String {
    let kept: Vec<String> = fitted
        .constants
        .iter()
        .filter(|f| f.verdict != Verdict::Fitted && f.quantities.contains(&quantity))
        .map(|f| format!("`{}`", f.constant.key()))
        .collect();
    match kept.is_empty() {
        true => "an effect the model lacks".into(),
        false => format!(
            "constants it depends on were left as they were ({}), or the model lacks an effect",
            kept.join(", ")
        ),
    }
}

fn render_constants(text: &mut String, fitted: &Fitted) {
    text.push_str(
        "## Constants\n\n| constant | before | after | where it came from |\n|---|---:|---:|---|\n",
    );
    for fit in &fitted.constants {
        let _ = writeln!(
            text,
            "| `{}` | {} | {} | {} |",
            fit.constant.key(),
            number(fit.before),
            number(fit.after),
            provenance(fit)
        );
    }
}

fn render_errors(text: &mut String, calibration: &Calibration) {
    text.push_str("\n## Error per figure (median of |simulated / measured - 1|)\n\n| figure | rows | before | after |\n|---|---:|---:|---:|\n");
    for (quantity, rows, before, after) in quantity_errors(calibration) {
        let _ = writeln!(
            text,
            "| {} | {rows} | {:.2}% | {:.2}% |",
            quantity.name(),
            before * 100.0,
            after * 100.0
        );
    }
    text.push_str("\n## Error per kernel (|simulated / measured - 1| of its total)\n\n| kernel | before | after |\n|---|---:|---:|\n");
    for (subject, before, after) in kernel_errors(calibration) {
        let _ = writeln!(
            text,
            "| {} | {:.2}% | {:.2}% |",
            calibration.subjects[subject],
            before * 100.0,
            after * 100.0
        );
    }
}

/// The fitted target as a target file: a comment with each constant's provenance,
/// then the TOML.
pub fn target_text(calibration: &Calibration) -> String {
    let fitted = &calibration.fitted;
    let mut text = format!(
        "# Calibrated by `autotune calibrate` from {} measured figures of {} kernels.\n",
        calibration.observations.len(),
        measured_kernels(calibration)
    );
    let (before, after, rows) = calibration.clock;
    let _ = match rows {
        0 => writeln!(
            text,
            "# clock_mhz: left as it was ({before}): no row has both cycles and a time"
        ),
        _ => writeln!(
            text,
            "# clock_mhz: {before} -> {after:.1}, from {rows} rows"
        ),
    };
    for fit in &fitted.constants {
        let _ = writeln!(
            text,
            "# {}: {} -> {}: {}",
            fit.constant.key(),
            number(fit.before),
            number(fit.after),
            provenance(fit)
        );
    }
    text.push('\n');
    text.push_str(&fitted.target.to_toml());
    text
}

/// A value as a person reads it: whole numbers without a fraction.
fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{value:.0}")
    } else {
        format!("{value:.4}")
    }
}

/// How many programs the observations measure.
fn measured_kernels(calibration: &Calibration) -> usize {
    let mut subjects: Vec<usize> = calibration.observations.iter().map(|o| o.subject).collect();
    subjects.sort_unstable();
    subjects.dedup();
    subjects.len()
}
