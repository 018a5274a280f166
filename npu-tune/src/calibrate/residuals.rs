//! The residuals a fit leaves: each figure measured and predicted before and after,
//! the errors per kernel and per figure, and the effects the constants cannot explain.
//!
//! A kernel's error is the relative error of its total time, what a tuner ranks
//! schedules by (for a row with no total, the root mean square over its pipes); a
//! pipe's error is the median over the rows of that pipe's relative error. When a
//! per-launch residual is flagged, the total's prediction after the fit includes it:
//! the target cannot hold it, but a reader comparing the simulator with the device
//! should add it.

use npu_core::target::Target;

use super::columns::Quantity;
use super::fit::{Fitted, Observation, median};
use super::subject::{Simulated, Subject};

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
    let mut cache: Vec<Option<(Simulated, Simulated)>> = vec![None; subjects.len()];
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
pub(crate) fn kernel_errors(errors: &[KernelError], flags: &[Flag]) -> Vec<(usize, f64, f64)> {
    let launch = launch_cycles(flags);
    let mut subjects: Vec<usize> = errors.iter().map(|e| e.subject).collect();
    subjects.sort_unstable();
    subjects.dedup();
    subjects
        .into_iter()
        .map(|s| {
            let all = errors.iter().filter(|e| e.subject == s);
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
pub(crate) fn quantity_errors(
    errors: &[KernelError],
    flags: &[Flag],
) -> Vec<(Quantity, usize, f64, f64)> {
    let launch = launch_cycles(flags);
    let mut quantities: Vec<Quantity> = errors.iter().map(|e| e.quantity).collect();
    quantities.sort();
    quantities.dedup();
    quantities
        .into_iter()
        .map(|q| {
            let mine: Vec<&KernelError> = errors.iter().filter(|e| e.quantity == q).collect();
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
