//! What a calibration found, as one value: the fit, the clock, the observations and
//! their residuals, and the warnings.

use super::fit::{Fitted, Observation};
use super::residuals::{Flag, KernelError};

/// Everything a calibration found.
#[derive(Clone, Debug, PartialEq)]
pub struct Calibration {
    /// The constants fitted, and the target with them and the fitted clock.
    pub fitted: Fitted,
    /// The clock before and after, in MHz, and how many rows gave it (0: not fitted).
    pub clock: (f64, f64, usize),
    /// The subjects measured, by index as observations name them.
    pub subjects: Vec<String>,
    /// The observations fitted, in cycles.
    pub observations: Vec<Observation>,
    /// Per subject and quantity: measured, predicted before and after.
    pub errors: Vec<KernelError>,
    /// Effects the model lacks, found in the residuals.
    pub flags: Vec<Flag>,
    /// What was left out, and why.
    pub warnings: Vec<String>,
}
