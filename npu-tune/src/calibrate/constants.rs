//! The target's cost constants a calibration may fit: each one's name in the target
//! file, how it is read and written, and the form the fit works in.
//!
//! The simulator's pipe times are linear in most constants (cycles per loop iteration,
//! per vector instruction, per repeat of each operation, per fractal, per extra burst,
//! the pad penalty) and in the *inverse* of each bandwidth (a copy holds its pipe for
//! `bytes / bandwidth`), so a bandwidth is fitted as cycles per byte and written back
//! as its inverse. The copy latency shows only in the total time. The clock is not
//! among them: it is the ratio of the profiler's cycles to its microseconds.

use npu_core::target::{Target, VectorOp};

/// One cost constant of a target file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Constant {
    /// `scalar.loop_cycles`.
    LoopCycles,
    /// `vector.issue_cycles`.
    VectorIssue,
    /// `vector.cycles.OP`: cycles per repeat of one operation class.
    Vector(VectorOp),
    /// `cube.cycles_per_fractal`.
    CubeFractal,
    /// `cube.issue_cycles`.
    CubeIssue,
    /// `dma.core_bytes_per_cycle`.
    CoreBandwidth,
    /// `dma.gm_bytes_per_cycle`.
    GmBandwidth,
    /// `dma.l2_bytes_per_cycle`.
    L2Bandwidth,
    /// `dma.mte1_bytes_per_cycle`.
    Mte1Bandwidth,
    /// `dma.fix_bytes_per_cycle`.
    FixBandwidth,
    /// `dma.latency_cycles`.
    Latency,
    /// `dma.burst_cycles`.
    Burst,
    /// `dma.pad_penalty`.
    PadPenalty,
}

impl Constant {
    /// The constants `target` has: every vector operation its table prices, the
    /// cube's only with a cube, the L2's only with an L2.
    pub fn of(target: &Target) -> Vec<Constant> {
        let mut all = vec![Constant::LoopCycles, Constant::VectorIssue];
        all.extend(target.vector.cycles.keys().map(|op| Constant::Vector(*op)));
        if target.cube.is_some() {
            all.extend([Constant::CubeFractal, Constant::CubeIssue]);
        }
        all.extend([
            Constant::CoreBandwidth,
            Constant::GmBandwidth,
            Constant::Mte1Bandwidth,
            Constant::FixBandwidth,
            Constant::Latency,
            Constant::Burst,
            Constant::PadPenalty,
        ]);
        if target.dma.l2_bytes > 0 {
            all.push(Constant::L2Bandwidth);
        }
        all
    }

    /// The constant's key in the target file, e.g. `vector.cycles.exp`.
    pub fn key(self) -> String {
        match self {
            Constant::LoopCycles => "scalar.loop_cycles".into(),
            Constant::VectorIssue => "vector.issue_cycles".into(),
            Constant::Vector(op) => format!("vector.cycles.{}", op.name()),
            Constant::CubeFractal => "cube.cycles_per_fractal".into(),
            Constant::CubeIssue => "cube.issue_cycles".into(),
            Constant::CoreBandwidth => "dma.core_bytes_per_cycle".into(),
            Constant::GmBandwidth => "dma.gm_bytes_per_cycle".into(),
            Constant::L2Bandwidth => "dma.l2_bytes_per_cycle".into(),
            Constant::Mte1Bandwidth => "dma.mte1_bytes_per_cycle".into(),
            Constant::FixBandwidth => "dma.fix_bytes_per_cycle".into(),
            Constant::Latency => "dma.latency_cycles".into(),
            Constant::Burst => "dma.burst_cycles".into(),
            Constant::PadPenalty => "dma.pad_penalty".into(),
        }
    }

    /// Whether the target file holds it as a whole number of cycles.
    pub fn integer(self) -> bool {
        !self.inverse() && self != Constant::PadPenalty
    }

    /// Whether it is a bandwidth, fitted as its inverse (cycles per byte).
    pub fn inverse(self) -> bool {
        matches!(
            self,
            Constant::CoreBandwidth
                | Constant::GmBandwidth
                | Constant::L2Bandwidth
                | Constant::Mte1Bandwidth
                | Constant::FixBandwidth
        )
    }

    /// Its value in `target`, as the file holds it.
    pub fn get(self, target: &Target) -> f64 {
        let cube = target.cube.as_ref();
        match self {
            Constant::LoopCycles => target.scalar.loop_cycles as f64,
            Constant::VectorIssue => target.vector.issue_cycles as f64,
            Constant::Vector(op) => target.vector_cycles(op) as f64,
            Constant::CubeFractal => cube.map_or(0.0, |c| c.cycles_per_fractal as f64),
            Constant::CubeIssue => cube.map_or(0.0, |c| c.issue_cycles as f64),
            Constant::CoreBandwidth => target.dma.core_bytes_per_cycle,
            Constant::GmBandwidth => target.dma.gm_bytes_per_cycle,
            Constant::L2Bandwidth => target.dma.l2_bytes_per_cycle,
            Constant::Mte1Bandwidth => target.dma.mte1_bytes_per_cycle,
            Constant::FixBandwidth => target.dma.fix_bytes_per_cycle,
            Constant::Latency => target.dma.latency_cycles as f64,
            Constant::Burst => target.dma.burst_cycles as f64,
            Constant::PadPenalty => target.dma.pad_penalty,
        }
    }

    /// Sets it in `target` to `value`, rounded to a whole number where the file holds
    /// one; never below 0 (1 for a pad penalty, a positive bandwidth).
    pub fn set(self, target: &mut Target, value: f64) {
        let whole = value.round().max(0.0) as u64;
        let rate = value.max(1e-6);
        let dma = &mut target.dma;
        match self {
            Constant::LoopCycles => target.scalar.loop_cycles = whole,
            Constant::VectorIssue => target.vector.issue_cycles = whole,
            Constant::Vector(op) => {
                target.vector.cycles.insert(op, whole);
            }
            Constant::CubeFractal => {
                if let Some(cube) = target.cube.as_mut() {
                    cube.cycles_per_fractal = whole;
                }
            }
            Constant::CubeIssue => {
                if let Some(cube) = target.cube.as_mut() {
                    cube.issue_cycles = whole;
                }
            }
            Constant::CoreBandwidth => dma.core_bytes_per_cycle = rate,
            Constant::GmBandwidth => dma.gm_bytes_per_cycle = rate,
            Constant::L2Bandwidth => dma.l2_bytes_per_cycle = rate,
            Constant::Mte1Bandwidth => dma.mte1_bytes_per_cycle = rate,
            Constant::FixBandwidth => dma.fix_bytes_per_cycle = rate,
            Constant::Latency => dma.latency_cycles = whole,
            Constant::Burst => dma.burst_cycles = whole,
            Constant::PadPenalty => dma.pad_penalty = value.max(1.0),
        }
    }

    /// The value in the form the fit works in: the inverse of a bandwidth.
    pub(crate) fn fit_form(self, value: f64) -> f64 {
        if self.inverse() { 1.0 / value } else { value }
    }

    /// The file's value of a fit-form value.
    pub(crate) fn file_form(self, value: f64) -> f64 {
        if self.inverse() { 1.0 / value } else { value }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_constant_reads_back_what_is_set() {
        let mut target = Target::preset("ascend910b").unwrap();
        for constant in Constant::of(&target) {
            let value = constant.get(&target) * 2.0 + 1.0;
            constant.set(&mut target, value);
            assert_eq!(constant.get(&target), value, "{}", constant.key());
        }
        assert!(Constant::of(&target).contains(&Constant::L2Bandwidth));
        let aie = Target::preset("aie2_tile").unwrap();
        assert!(!Constant::of(&aie).contains(&Constant::CubeFractal));
    }
}
