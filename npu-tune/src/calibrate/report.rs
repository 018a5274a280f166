//! What a calibration says: the report (errors per kernel and per pipe before and
//! after, the residuals the fitted constants leave) and the new target file with each
//! constant's provenance.

use std::fmt::Write as _;

use super::columns::Quantity;
use super::fit::{Fitted, MIN_LEVERAGE, MIN_SHARE, Verdict};
use super::outcome::Calibration;
use super::residuals::{self, Flag};

/// Per subject measured: the relative error of its total before and after
/// ([`residuals`] says how), in subject order.
pub fn kernel_errors(calibration: &Calibration) -> Vec<(usize, f64, f64)> {
    residuals::kernel_errors(&calibration.errors, &calibration.flags)
}

/// Per figure: rows, and the median absolute relative error before and after.
pub fn quantity_errors(calibration: &Calibration) -> Vec<(Quantity, usize, f64, f64)> {
    residuals::quantity_errors(&calibration.errors, &calibration.flags)
}

/// Why a constant kept its value, or where its new one came from, in one phrase.
pub fn provenance(fit: &super::fit::ConstantFit) -> String {
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
