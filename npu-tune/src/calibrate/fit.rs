//! Fitting the target's constants to measured figures by least squares.
//!
//! Each observation is one figure of one subject (a pipe's busy cycles, or the total),
//! and the simulator predicts it from the constants. The fit is Gauss-Newton: at the
//! current constants, every constant is stepped once and the subjects simulated again,
//! which gives the change of every prediction per relative change of the constant (one
//! column of the design matrix); the least-squares step is solved by QR (`lsq`), and
//! the loop repeats from the new constants, at most [`ITERATIONS`] times. Pipe times are
//! linear in every constant (bandwidths in their inverse, see `constants`), so for
//! them one step is exact; totals are piecewise linear (a pipe that stops waiting for
//! another changes the slope), which the later steps follow.
//!
//! Rows are relative: each observation's residual is divided by the measured value, so
//! a 5,000-cycle kernel counts as much as a 5,000,000-cycle one and the columns are
//! comparable. One unknown beside the constants is fitted on the totals: a number of
//! cycles every launch spends beyond the model (the simulator has no per-launch
//! cost). It is never written to the target; the report names it when it is
//! significant, so an effect the model lacks shows as a residual instead of bending the
//! latency or a bandwidth to fit.
//!
//! **Identifiability.** A constant is fitted only when the design matrix gives it a
//! leverage of at least [`MIN_LEVERAGE`] and an independent share of at least
//! [`MIN_SHARE`] (`lsq` defines both): with rows of relative error `σ`, its relative
//! standard error is then at most `σ / 10`, and no other constant reproduces more than
//! 99% of its effect. The columns failing either are removed one at a time, the worst
//! first, and the system solved again; then each removed column, the longest first,
//! is tried again beside those kept and joins them when every column still passes (so
//! a group of nearly collinear constants, each weak beside the others, keeps its
//! strongest). Those left out keep their value and the report says why. On a rank-deficient matrix the shares are judged with a small ridge, only
//! to choose which column to remove; every step is solved without one.

use std::collections::BTreeSet;

use npu_core::target::Target;
use rayon::prelude::*;

use super::columns::Quantity;
use super::constants::Constant;
use super::lsq;
use super::subject::{Simulated, Subject};

/// Least leverage of a fitted constant (module docs).
pub const MIN_LEVERAGE: f64 = 4.0;
/// Least independent share of a fitted constant (module docs).
pub const MIN_SHARE: f64 = 0.01;
/// Most Gauss-Newton steps.
pub(crate) const ITERATIONS: usize = 4;

/// One measured figure of one subject, in cycles.
#[derive(Clone, Debug, PartialEq)]
pub struct Observation {
    /// Index of the subject measured.
    pub subject: usize,
    /// What was measured.
    pub quantity: Quantity,
    /// The measured cycles (positive).
    pub cycles: f64,
}

/// Whether a constant was fitted, and if not, why not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Fitted from the rows.
    Fitted,
    /// No measured figure depends on it.
    Unused,
    /// The rows pin it down too loosely: leverage below [`MIN_LEVERAGE`].
    Weak,
    /// Other constants reproduce its effect: independent share below [`MIN_SHARE`].
    Entangled,
}

/// The outcome for one constant.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstantFit {
    /// The constant.
    pub constant: Constant,
    /// Its value before, as the file held it.
    pub before: f64,
    /// Its value written: the estimate, rounded where the file holds whole cycles.
    pub after: f64,
    /// The fit's estimate in the file's units, before rounding (`before` when it was
    /// not fitted).
    pub estimate: f64,
    /// Observations whose prediction depends on it (by more than 0.1% of the
    /// measured value per 100% change of the constant).
    pub rows: usize,
    /// The figures of those observations.
    pub quantities: Vec<Quantity>,
    /// Its leverage in the last solve it took part in (0 when unused).
    pub leverage: f64,
    /// Its independent share in that solve.
    pub share: f64,
    /// Whether it was fitted.
    pub verdict: Verdict,
}

/// What the fit found.
#[derive(Clone, Debug, PartialEq)]
pub struct Fitted {
    /// The starting target with the fitted constants.
    pub target: Target,
    /// Every constant of the target, fitted or not.
    pub constants: Vec<ConstantFit>,
    /// Cycles per launch beyond the model, and its standard error, when the totals
    /// separate it from the constants.
    pub launch: Option<(f64, f64)>,
    /// Root mean square of the relative residuals of the last step.
    pub sigma: f64,
    /// Condition number bound of the last step's (column-scaled) design matrix.
    pub condition: f64,
    /// Gauss-Newton steps taken.
    pub iterations: usize,
}

/// The design at one point: predictions, and a column per constant (`None` when no
/// observation depends on it) plus the launch column (last).
struct Linear {
    /// What each observation measures.
    quantities: Vec<Quantity>,
    base: Vec<f64>,
    columns: Vec<Option<Vec<f64>>>,
    point: Vec<f64>,
    scale: Vec<f64>,
    launch_scale: f64,
}

/// The solve of one step: the relative change of each column (0 for those left out),
/// each column's figures and verdict, and the residual and conditioning.
struct Step {
    x: Vec<f64>,
    leverage: Vec<f64>,
    share: Vec<f64>,
    verdict: Vec<Verdict>,
    sigma: f64,
    condition: f64,
}

/// Fits `start`'s constants to `observations` of `subjects` (module docs).
pub(crate) fn fit(
    subjects: &[Subject],
    observations: &[Observation],
    start: &Target,
) -> Result<Fitted, String> {
    if observations.is_empty() {
        return Err("no measured figure matches a known kernel: nothing to fit".into());
    }
    let constants = Constant::of(start);
    let used: BTreeSet<_> = subjects.iter().flat_map(Subject::vector_ops).collect();
    let mut target = start.clone();
    let mut estimate: Vec<f64> = constants.iter().map(|c| c.fit_form(c.get(start))).collect();
    let mut iterations = 0;
    let mut last = None;
    while iterations < ITERATIONS {
        iterations += 1;
        let linear = linearise(subjects, observations, &constants, &used, &target)?;
        let step = solve_step(&linear, observations);
        let moved = step.x[..constants.len()]
            .iter()
            .fold(0.0f64, |m, x| m.max(x.abs()));
        for (j, constant) in constants.iter().enumerate() {
            if step.verdict[j] == Verdict::Fitted {
                let value = linear.point[j] + linear.scale[j] * step.x[j];
                estimate[j] = if value > 0.0 {
                    value
                } else {
                    linear.point[j] / 2.0
                };
                constant.set(&mut target, constant.file_form(estimate[j]));
            }
        }
        last = Some((linear, step));
        if moved < 1e-4 {
            break;
        }
    }
    let (linear, step) = last.ok_or("no step was taken")?;
    Ok(outcome(
        start, target, &constants, &estimate, &linear, &step, iterations,
    ))
}

/// The fit's result from the last step.
fn outcome(
    start: &Target,
    target: Target,
    constants: &[Constant],
    estimate: &[f64],
    linear: &Linear,
    step: &Step,
    iterations: usize,
) -> Fitted {
    let fits = constants
        .iter()
        .enumerate()
        .map(|(j, &constant)| {
            let fitted = step.verdict[j] == Verdict::Fitted;
            let column = linear.columns[j].as_deref().unwrap_or(&[]);
            let depends = || {
                column
                    .iter()
                    .zip(&linear.quantities)
                    .filter(|(v, _)| v.abs() > 1e-3)
            };
            let rows = depends().count();
            let mut quantities: Vec<Quantity> = depends().map(|(_, q)| *q).collect();
            quantities.sort();
            quantities.dedup();
            ConstantFit {
                constant,
                before: constant.get(start),
                after: constant.get(&target),
                estimate: match fitted {
                    true => constant.file_form(estimate[j]),
                    false => constant.get(start),
                },
                rows,
                quantities,
                leverage: step.leverage[j],
                share: step.share[j],
                verdict: step.verdict[j],
            }
        })
        .collect();
    let n = constants.len();
    let launch = (step.verdict[n] == Verdict::Fitted).then(|| {
        let value = step.x[n] * linear.launch_scale;
        let error = step.sigma * linear.launch_scale / step.leverage[n].sqrt();
        (value, error)
    });
    Fitted {
        target,
        constants: fits,
        launch,
        sigma: step.sigma,
        condition: step.condition,
        iterations,
    }
}

/// Simulates every subject under `target`.
fn simulate_all(subjects: &[Subject], target: &Target) -> Result<Vec<Simulated>, String> {
    subjects
        .par_iter()
        .map(|subject| subject.simulate(target))
        .collect()
}

/// The value a constant is stepped to for its column: one more cycle (a tenth more for
/// large counts), a twentieth more time per byte of a bandwidth, a tenth more of the
/// pad penalty.
fn stepped(constant: Constant, value: f64) -> f64 {
    if constant.inverse() {
        value / 1.05
    } else if constant.integer() {
        value + (value / 10.0).round().max(1.0)
    } else {
        value * 1.1
    }
}

/// The design matrix at `target` (module docs).
fn linearise(
    subjects: &[Subject],
    observations: &[Observation],
    constants: &[Constant],
    used: &BTreeSet<npu_core::target::VectorOp>,
    target: &Target,
) -> Result<Linear, String> {
    let sims = simulate_all(subjects, target)?;
    let base: Vec<f64> = observations
        .iter()
        .map(|o| sims[o.subject].get(o.quantity))
        .collect();
    let (mut columns, mut point, mut scale) = (Vec::new(), Vec::new(), Vec::new());
    for &constant in constants {
        let value = constant.get(target);
        let at = constant.fit_form(value);
        point.push(at);
        scale.push(if at != 0.0 { at } else { 1.0 });
        if matches!(constant, Constant::Vector(op) if !used.contains(&op)) {
            columns.push(None);
            continue;
        }
        let mut moved = target.clone();
        constant.set(&mut moved, stepped(constant, value));
        let delta = constant.fit_form(constant.get(&moved)) - at;
        let after = simulate_all(subjects, &moved)?;
        let unit = scale[scale.len() - 1] / delta;
        let column: Vec<f64> = observations
            .iter()
            .zip(&base)
            .map(|(o, b)| (after[o.subject].get(o.quantity) - b) * unit / o.cycles)
            .collect();
        columns.push(column.iter().any(|v| *v != 0.0).then_some(column));
    }
    let totals: Vec<f64> = observations
        .iter()
        .filter(|o| o.quantity == Quantity::Total)
        .map(|o| o.cycles)
        .collect();
    let launch_scale = median(&totals).unwrap_or(1.0);
    let launch: Vec<f64> = observations
        .iter()
        .map(|o| match o.quantity {
            Quantity::Total => launch_scale / o.cycles,
            Quantity::Pipe(_) => 0.0,
        })
        .collect();
    columns.push(launch.iter().any(|v| *v != 0.0).then_some(launch));
    Ok(Linear {
        quantities: observations.iter().map(|o| o.quantity).collect(),
        base,
        columns,
        point,
        scale,
        launch_scale,
    })
}

/// Chooses the identifiable columns and solves the step (module docs).
fn solve_step(linear: &Linear, observations: &[Observation]) -> Step {
    let count = linear.columns.len();
    let b: Vec<f64> = observations
        .iter()
        .zip(&linear.base)
        .map(|(o, base)| (o.cycles - base) / o.cycles)
        .collect();
    let mut step = Step {
        x: vec![0.0; count],
        leverage: vec![0.0; count],
        share: vec![0.0; count],
        verdict: vec![Verdict::Unused; count],
        sigma: rms(&b),
        condition: 1.0,
    };
    let candidates: Vec<usize> = (0..count)
        .filter(|&j| linear.columns[j].is_some())
        .collect();
    let mut kept = backward(linear, &b, candidates.clone(), &mut step);
    forward(linear, &b, &candidates, &mut kept, &mut step);
    kept.sort_unstable();
    let columns = gather(linear, &kept);
    if let Some(solution) = lsq::solve(&columns, &b) {
        record(&mut step, &kept, &solution);
        finish(&mut step, &kept, &solution, &columns, &b);
    }
    step
}

/// Backward elimination: the columns left once the worst failing one has been
/// removed, one at a time, until every one passes; each removed one's verdict and
/// figures are those of the solve that removed it.
fn backward(linear: &Linear, b: &[f64], mut kept: Vec<usize>, step: &mut Step) -> Vec<usize> {
    while !kept.is_empty() {
        let columns = gather(linear, &kept);
        let Some(solution) = lsq::solve(&columns, b) else {
            let worst = kept[ridge_worst(&columns)];
            step.verdict[worst] = Verdict::Entangled;
            kept.retain(|&j| j != worst);
            continue;
        };
        record(step, &kept, &solution);
        let worst = (0..kept.len())
            .min_by(|&a, &c| judged(&solution, a).total_cmp(&judged(&solution, c)))
            .unwrap_or(0);
        if judged(&solution, worst) >= 1.0 {
            break;
        }
        step.verdict[kept[worst]] = failed(&solution, worst);
        kept.remove(worst);
    }
    kept
}

/// Forward rescue: each removed constant, the longest column first, then the launch
/// column, joins the kept ones when
/// every column then passes. Backward elimination alone can remove every column of a
/// nearly collinear group (each weak beside the others), though one of them alone
/// would pass; this keeps the strongest of such a group.
fn forward(
    linear: &Linear,
    b: &[f64],
    candidates: &[usize],
    kept: &mut Vec<usize>,
    step: &mut Step,
) {
    let length = |j: usize| {
        linear.columns[j]
            .as_ref()
            .map_or(0.0, |c| c.iter().map(|v| v * v).sum::<f64>())
    };
    let mut removed: Vec<usize> = candidates
        .iter()
        .copied()
        .filter(|j| !kept.contains(j))
        .collect();
    // The constants first, the launch column (the last) after them: an effect the
    // model has is preferred to one it lacks.
    let launch = linear.columns.len() - 1;
    removed.sort_by(|&a, &c| {
        (a == launch)
            .cmp(&(c == launch))
            .then(length(c).total_cmp(&length(a)))
    });
    for j in removed {
        let mut trial = kept.clone();
        trial.push(j);
        let Some(solution) = lsq::solve(&gather(linear, &trial), b) else {
            continue;
        };
        if (0..trial.len()).all(|k| judged(&solution, k) >= 1.0) {
            kept.push(j);
        } else {
            let k = trial.len() - 1;
            step.leverage[j] = solution.leverage[k];
            step.share[j] = solution.share[k];
            step.verdict[j] = failed(&solution, k);
        }
    }
}

/// The columns `set` names.
fn gather(linear: &Linear, set: &[usize]) -> Vec<Vec<f64>> {
    set.iter()
        .filter_map(|&j| linear.columns[j].clone())
        .collect()
}

/// How far column `k` of a solve is from failing: at least 1 when it passes both rules.
fn judged(solution: &lsq::Solution, k: usize) -> f64 {
    (solution.leverage[k] / MIN_LEVERAGE).min(solution.share[k] / MIN_SHARE)
}

/// The verdict of column `k`, which failed.
fn failed(solution: &lsq::Solution, k: usize) -> Verdict {
    match solution.share[k] < MIN_SHARE {
        true => Verdict::Entangled,
        false => Verdict::Weak,
    }
}

/// Records each column's leverage and share in a solve of the columns `set`.
fn record(step: &mut Step, set: &[usize], solution: &lsq::Solution) {
    for (k, &j) in set.iter().enumerate() {
        step.leverage[j] = solution.leverage[k];
        step.share[j] = solution.share[k];
    }
}

/// Records an accepted solve in `step`.
fn finish(
    step: &mut Step,
    kept: &[usize],
    solution: &lsq::Solution,
    columns: &[Vec<f64>],
    b: &[f64],
) {
    let residual: Vec<f64> = (0..b.len())
        .map(|i| {
            b[i] - (0..kept.len())
                .map(|k| columns[k][i] * solution.x[k])
                .sum::<f64>()
        })
        .collect();
    let freedom = b.len().saturating_sub(kept.len()).max(1) as f64;
    step.sigma = (residual.iter().map(|r| r * r).sum::<f64>() / freedom).sqrt();
    step.condition = solution.condition;
    for (k, &j) in kept.iter().enumerate() {
        step.x[j] = solution.x[k];
        step.verdict[j] = Verdict::Fitted;
    }
}

/// The column with the least independent share under a small ridge (module docs), for
/// a matrix QR finds rank-deficient.
fn ridge_worst(columns: &[Vec<f64>]) -> usize {
    let n = columns.len();
    let ridged: Vec<Vec<f64>> = columns
        .iter()
        .enumerate()
        .map(|(j, column)| {
            let norm = column.iter().map(|v| v * v).sum::<f64>().sqrt().max(1e-300);
            let mut scaled: Vec<f64> = column.iter().map(|v| v / norm).collect();
            scaled.extend((0..n).map(|k| if k == j { 1e-4 } else { 0.0 }));
            scaled
        })
        .collect();
    let rows = ridged.first().map_or(0, Vec::len);
    match lsq::solve(&ridged, &vec![0.0; rows]) {
        Some(solution) => (0..n)
            .min_by(|&a, &b| solution.share[a].total_cmp(&solution.share[b]))
            .unwrap_or(0),
        None => n - 1,
    }
}

fn rms(values: &[f64]) -> f64 {
    (values.iter().map(|v| v * v).sum::<f64>() / values.len().max(1) as f64).sqrt()
}

/// The median of `values`; `None` when empty.
pub(crate) fn median(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}
