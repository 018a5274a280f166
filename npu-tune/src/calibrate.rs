//! Calibration: fitting a target's cost constants to what a device measured.
//!
//! The stages, each in its own module:
//!
//! - `columns`: msprof's column names (cited from the CANN documentation) and what
//!   each measures in the simulator's terms.
//! - `csv` and `measured`: reading `op_summary_*.csv`, `PipeUtilization.csv` and the
//!   AIE cycles file into [`Measurement`]s, with an error for a file that cannot be
//!   trusted (not UTF-8, truncated, a column missing or doubled, a value that is no
//!   number) and a warning for what can be left out (columns the documentation does not
//!   list, rows of kernels npu did not emit).
//! - `subject`: the programs measured, each known by the symbol npu-emit gives its
//!   kernel (`KERNEL_SCHEDULE_HASH`), which is how a profiler's row finds its schedule.
//! - `profile`: the simulator's own rows in op_summary's columns (`--profile-out`).
//! - `constants`, `lsq` and `fit`: the constants, the least-squares solver and the
//!   Gauss-Newton fit with its identifiability rule.
//! - `report`: the report (errors per kernel and per pipe, before and after; effects
//!   the model lacks) and the new target file with each constant's provenance.
//!
//! [`calibrate`] runs them: it matches rows to subjects, fits the clock (the ratio of
//! a row's cycles to its microseconds), converts every time to cycles, fits the
//! constants and measures the errors. Nothing is written here; the caller writes the
//! target and the report only when every stage succeeded.

mod columns;
mod constants;
mod csv;
mod fit;
mod lsq;
mod measured;
mod outcome;
mod profile;
mod report;
mod residuals;
mod subject;

use npu_core::target::Target;

pub use columns::Quantity;
pub use constants::Constant;
pub use fit::{ConstantFit, Fitted, MIN_LEVERAGE, MIN_SHARE, Observation, Verdict};
pub use measured::{Measurement, Read, read_aie_cycles, read_op_summary, read_pipe_utilization};
pub use outcome::Calibration;
pub use profile::{PROFILE_COLUMNS, ProfileRow, write_op_summary};
pub use report::{kernel_errors, provenance, quantity_errors, render_report, target_text};
pub use residuals::{Flag, KernelError};
pub use subject::{Simulated, Subject};

use columns::{Core, Unit};
use fit::median;

/// Fits `target`'s constants to the measurements in `reads` of the programs in
/// `subjects` (module docs).
pub fn calibrate(
    target: &Target,
    subjects: &[Subject],
    reads: &[Read],
) -> Result<Calibration, String> {
    let mut warnings: Vec<String> = reads.iter().flat_map(|r| r.warnings.clone()).collect();
    let matched = match_rows(subjects, reads, &mut warnings)?;
    let (clock, clock_rows) = fit_clock(target, subjects, &matched);
    let observations = observations(subjects, &matched, clock, &mut warnings);
    let mut fitted = fit::fit(subjects, &observations, target)?;
    fitted.target.clock_mhz = clock.round().clamp(1.0, f64::from(u32::MAX)) as u32;
    let errors = residuals::errors(subjects, &observations, target, &fitted)?;
    let flags = residuals::flags(&errors, &fitted);
    Ok(Calibration {
        fitted,
        clock: (f64::from(target.clock_mhz), clock, clock_rows),
        subjects: subjects.iter().map(|s| s.symbol.clone()).collect(),
        observations,
        errors,
        flags,
        warnings,
    })
}

/// Each measurement with the index of the subject its symbol names; a row of a symbol
/// no subject has is a warning, and no matched row at all an error.
fn match_rows<'r>(
    subjects: &[Subject],
    reads: &'r [Read],
    warnings: &mut Vec<String>,
) -> Result<Vec<(usize, &'r Measurement)>, String> {
    let mut matched = Vec::new();
    for measurement in reads.iter().flat_map(|r| &r.measurements) {
        match subjects.iter().position(|s| s.symbol == measurement.symbol) {
            Some(index) => matched.push((index, measurement)),
            None => warnings.push(format!(
                "{}: `{}` is no kernel npu emitted here (its symbols end in the hash of kernel, target and schedule); the row is left out",
                measurement.origin, measurement.symbol
            )),
        }
    }
    if matched.is_empty() {
        let known: Vec<&str> = subjects.iter().take(5).map(|s| s.symbol.as_str()).collect();
        return Err(format!(
            "no row names a kernel npu emitted for these kernels (such as {})",
            known.join(", ")
        ));
    }
    Ok(matched)
}

/// The clock in MHz: the median ratio of a row's cycles to its microseconds, from the
/// rows that have both; the target's clock when none has.
fn fit_clock(
    target: &Target,
    subjects: &[Subject],
    matched: &[(usize, &Measurement)],
) -> (f64, usize) {
    let ratios: Vec<f64> = matched
        .iter()
        .filter_map(|(index, m)| {
            let core = subjects[*index].core();
            let total = |unit: Unit| {
                m.values
                    .iter()
                    .find(|v| v.0 == core && v.1 == Quantity::Total && v.2 == unit)
                    .map(|v| v.3)
            };
            match (total(Unit::Cycles), total(Unit::Micros)) {
                (Some(cycles), Some(us)) if us > 0.0 && cycles > 0.0 => Some(cycles / us),
                _ => None,
            }
        })
        .collect();
    match median(&ratios) {
        Some(clock) => (clock, ratios.len()),
        None => (f64::from(target.clock_mhz), 0),
    }
}

/// Every positive value of each matched row, of the core its subject runs on, in
/// cycles at `clock`: a total's cycle count where the row has one.
fn observations(
    subjects: &[Subject],
    matched: &[(usize, &Measurement)],
    clock: f64,
    warnings: &mut Vec<String>,
) -> Vec<Observation> {
    let mut observations = Vec::new();
    for (index, m) in matched {
        let core = subjects[*index].core();
        let mine = |v: &&(Core, Quantity, Unit, f64)| v.0 == core;
        let mut seen: Vec<Quantity> = Vec::new();
        let mut values: Vec<_> = m.values.iter().filter(mine).collect();
        values.sort_by_key(|v| (v.1, v.2 == Unit::Micros));
        for &(_, quantity, unit, value) in values {
            let cycles = if unit == Unit::Cycles {
                value
            } else {
                value * clock
            };
            if cycles > 0.0 && !seen.contains(&quantity) {
                seen.push(quantity);
                observations.push(Observation {
                    subject: *index,
                    quantity,
                    cycles,
                });
            }
        }
        if let (false, Some(task)) = (seen.contains(&Quantity::Total), m.task_duration_us) {
            warnings.push(format!(
                "{}: no core time; its total is `Task Duration(us)`, which counts scheduling and response too",
                m.origin
            ));
            observations.push(Observation {
                subject: *index,
                quantity: Quantity::Total,
                cycles: task * clock,
            });
        }
        if observations.last().is_none_or(|o| o.subject != *index) {
            warnings.push(format!(
                "{}: no value of the core `{}` runs on",
                m.origin, m.symbol
            ));
        }
        if let Some(warning) = block_dim_differs(&subjects[*index], m) {
            warnings.push(warning);
        }
    }
    observations
}

/// A warning when the row's `Block Dim` is not the core count the program runs on: the
/// row may be of another build of the kernel.
fn block_dim_differs(subject: &Subject, m: &Measurement) -> Option<String> {
    let dim = m.block_dim?;
    let cores = subject.simulate(&subject.kernel.target).ok()?.cores;
    (dim != cores).then(|| {
        format!(
            "{}: Block Dim {dim}, but `{}` runs on {cores} cores",
            m.origin, m.symbol
        )
    })
}
