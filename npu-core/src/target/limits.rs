//! The ranges a target's numbers must lie in, and the check that they do.

use std::ops::RangeInclusive;

use super::{Target, TargetError, VectorOp};

// The ranges target numbers must lie in. Real chips sit orders of magnitude inside
// them; they exist so that a typo cannot reach the checker's or the simulator's
// arithmetic, where u64::MAX cycles would saturate into a "result".

/// Most cycles of any latency or per-operation cost: a millisecond at 1 GHz.
pub const MAX_CYCLES: u64 = 1_000_000;
/// Largest memory capacity: 1 TiB.
pub const MAX_BYTES: u64 = 1 << 40;
/// Largest alignment or vector repeat: 1 MiB.
pub const MAX_ALIGN: u64 = 1 << 20;
/// Most bytes per cycle of any copy path.
pub const MAX_BANDWIDTH: f64 = (1u64 << 20) as f64;
/// Fastest clock: 100 GHz.
pub const MAX_CLOCK_MHZ: u64 = 100_000;
/// Most cores of either kind.
pub const MAX_CORES: u64 = 4096;
/// Most event ids per pair of pipes.
pub const MAX_EVENTS: u64 = 1024;
/// Most repeats of one vector instruction.
pub const MAX_REPEAT: u64 = 1 << 20;
/// Largest side of the cube's fractal.
pub const MAX_FRACTAL: u64 = 4096;
/// Largest slow-down of a padded copy.
pub const MAX_PAD_PENALTY: f64 = 1000.0;
/// Most lanes a fold may use (`vector.lanes`).
const MAX_LANES: u32 = 4096;

impl Target {
    /// Every number is checked against a range real hardware stays far inside, so that
    /// a typo (or `u64::MAX`) is an error naming the field, never a schedule that
    /// "takes" 18446744073709551615 cycles.
    pub(super) fn validate(&self) -> Result<(), TargetError> {
        let fail = |what: String| Err(TargetError(format!("target `{}`: {what}", self.name)));
        if self.cores.vector == 0 && self.cores.cube == 0 {
            return fail("needs at least one core".to_string());
        }
        for (field, value, range, unit) in self.integer_fields() {
            if !range.contains(&value) {
                return fail(out_of_range(&field, value, &range, unit));
            }
        }
        let powers_of_two = [
            ("align.ub", self.align.ub),
            ("align.l1", self.align.l1),
            ("align.l0a", self.align.l0a),
            ("align.l0b", self.align.l0b),
            ("align.l0c", self.align.l0c),
            ("vector.repeat_bytes", self.vector.repeat_bytes),
        ];
        if let Some((field, value)) = powers_of_two.iter().find(|(_, v)| !v.is_power_of_two()) {
            return fail(format!("{field} is {value}, must be a power of two"));
        }
        if let Some((dtype, lanes)) = (self.vector.lanes.iter())
            .find(|(_, lanes)| !lanes.is_power_of_two() || **lanes > MAX_LANES)
        {
            return fail(format!(
                "vector.lanes.{dtype} is {lanes}, must be a power of two no larger than {MAX_LANES}"
            ));
        }
        for (field, value, range) in self.float_fields() {
            if !(value.is_finite() && range.contains(&value)) {
                return fail(format!(
                    "{field} is {value:?}, must be a number between {} and {}",
                    range.start(),
                    range.end()
                ));
            }
        }
        let l2_rate = self.dma.l2_bytes_per_cycle;
        if self.dma.l2_bytes > 0
            && !(l2_rate.is_finite()
                && (self.dma.gm_bytes_per_cycle..=MAX_BANDWIDTH).contains(&l2_rate))
        {
            return fail(format!(
                "dma.l2_bytes_per_cycle is {l2_rate:?}, must be a number between dma.gm_bytes_per_cycle ({}) and {MAX_BANDWIDTH} when dma.l2_bytes is set",
                self.dma.gm_bytes_per_cycle
            ));
        }
        if let Some(scratch) = self.memory.api_scratch
            && (scratch > self.memory.ub || !scratch.is_multiple_of(self.align.ub))
        {
            return fail(format!(
                "memory.api_scratch is {scratch}, must be a multiple of align.ub ({}) no larger than memory.ub ({})",
                self.align.ub, self.memory.ub
            ));
        }
        for op in &VectorOp::ALL[..VectorOp::REQUIRED] {
            if !self.vector.cycles.contains_key(op) {
                return fail(format!("vector.cycles has no cost for `{}`", op.name()));
            }
        }
        if let Some((op, implementation)) =
            self.vector.functions.iter().find(|(op, i)| !i.covers(**op))
        {
            return fail(format!(
                "vector.functions names `{}` for `{}`, which has no algorithm of it; `{}` covers {}",
                implementation.name(),
                op.name(),
                implementation.name(),
                implementation
                    .covered()
                    .iter()
                    .map(|op| format!("`{}`", op.name()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        Ok(())
    }

    /// The integer fields with the range each must lie in and its unit.
    fn integer_fields(&self) -> Vec<(String, u64, RangeInclusive<u64>, &'static str)> {
        let bytes = |field: &str, value: u64| (field.to_string(), value, 0..=MAX_BYTES, "bytes");
        let align = |field: &str, value: u64| (field.to_string(), value, 1..=MAX_ALIGN, "bytes");
        let cycles = |field: String, value: u64| (field, value, 0..=MAX_CYCLES, "cycles");
        let mut fields = vec![
            (
                "clock_mhz".to_string(),
                u64::from(self.clock_mhz),
                1..=MAX_CLOCK_MHZ,
                "MHz",
            ),
            (
                "cores.vector".to_string(),
                u64::from(self.cores.vector),
                0..=MAX_CORES,
                "cores",
            ),
            (
                "cores.cube".to_string(),
                u64::from(self.cores.cube),
                0..=MAX_CORES,
                "cores",
            ),
            bytes("memory.ub", self.memory.ub),
            bytes("memory.l1", self.memory.l1),
            bytes("memory.l0a", self.memory.l0a),
            bytes("memory.l0b", self.memory.l0b),
            bytes("memory.l0c", self.memory.l0c),
            bytes("dma.l2_bytes", self.dma.l2_bytes),
            align("align.ub", self.align.ub),
            align("align.l1", self.align.l1),
            align("align.l0a", self.align.l0a),
            align("align.l0b", self.align.l0b),
            align("align.l0c", self.align.l0c),
            (
                "events".to_string(),
                u64::from(self.events),
                0..=MAX_EVENTS,
                "events",
            ),
            (
                "vector.repeat_bytes".to_string(),
                self.vector.repeat_bytes,
                1..=MAX_ALIGN,
                "bytes",
            ),
            (
                "vector.max_repeat".to_string(),
                self.vector.max_repeat,
                1..=MAX_REPEAT,
                "repeats",
            ),
            cycles("vector.issue_cycles".to_string(), self.vector.issue_cycles),
            cycles("dma.latency_cycles".to_string(), self.dma.latency_cycles),
            cycles("dma.burst_cycles".to_string(), self.dma.burst_cycles),
            cycles("scalar.loop_cycles".to_string(), self.scalar.loop_cycles),
        ];
        for (op, value) in &self.vector.cycles {
            fields.push(cycles(format!("vector.cycles.{}", op.name()), *value));
        }
        if let Some(cube) = &self.cube {
            for (field, value) in [("cube.m", cube.m), ("cube.n", cube.n), ("cube.k", cube.k)] {
                fields.push((field.to_string(), value, 1..=MAX_FRACTAL, "elements"));
            }
            let fractal = cube.cycles_per_fractal;
            fields.push((
                "cube.cycles_per_fractal".to_string(),
                fractal,
                1..=MAX_CYCLES,
                "cycles",
            ));
            fields.push(cycles("cube.issue_cycles".to_string(), cube.issue_cycles));
        }
        fields
    }

    /// The fractional fields with the range each must lie in.
    fn float_fields(&self) -> [(&'static str, f64, RangeInclusive<f64>); 5] {
        [
            (
                "dma.gm_bytes_per_cycle",
                self.dma.gm_bytes_per_cycle,
                1.0..=MAX_BANDWIDTH,
            ),
            (
                "dma.core_bytes_per_cycle",
                self.dma.core_bytes_per_cycle,
                1.0..=MAX_BANDWIDTH,
            ),
            (
                "dma.mte1_bytes_per_cycle",
                self.dma.mte1_bytes_per_cycle,
                1.0..=MAX_BANDWIDTH,
            ),
            (
                "dma.fix_bytes_per_cycle",
                self.dma.fix_bytes_per_cycle,
                1.0..=MAX_BANDWIDTH,
            ),
            (
                "dma.pad_penalty",
                self.dma.pad_penalty,
                1.0..=MAX_PAD_PENALTY,
            ),
        ]
    }
}

/// "memory.ub is 2000000000000, must be at most 1099511627776 bytes".
fn out_of_range(field: &str, value: u64, range: &RangeInclusive<u64>, unit: &str) -> String {
    if *range.start() == 0 {
        format!("{field} is {value}, must be at most {} {unit}", range.end())
    } else {
        format!(
            "{field} is {value}, must be between {} and {} {unit}",
            range.start(),
            range.end()
        )
    }
}
