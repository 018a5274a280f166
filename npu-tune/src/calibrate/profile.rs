//! The simulator speaking the profiler's language: each subject's simulated times as a
//! row of msprof's `op_summary_*.csv`, with the columns `--aic-metrics=PipeUtilization`
//! adds (`columns` cites the pages), cycles converted to microseconds with the
//! target's clock. `autotune --profile-out FILE` writes the tuned kernels' rows, so a
//! simulated profile and a measured one can be read side by side, and `autotune
//! calibrate` reads either.
//!
//! A matmul fills the cube core's `aic_` columns and a vector kernel the `aiv_` ones;
//! the other core's are `N/A`, as msprof writes a value it did not collect. `Task
//! Duration(us)` is the core's time: the simulator models no scheduling or response
//! time around a launch.

use npu_core::program::Pipe;
use npu_core::target::Target;

use super::columns::Core;
use super::subject::Subject;

/// The columns written, in order.
pub const PROFILE_COLUMNS: [&str; 19] = [
    "Op Name",
    "OP Type",
    "Task Type",
    "Block Dim",
    "Task Duration(us)",
    "aicore_time(us)",
    "aic_total_cycles",
    "aic_mac_time(us)",
    "aic_scalar_time(us)",
    "aic_mte1_time(us)",
    "aic_mte2_time(us)",
    "aic_mte3_time(us)",
    "aic_fixpipe_time(us)",
    "aiv_time(us)",
    "aiv_total_cycles",
    "aiv_vec_time(us)",
    "aiv_scalar_time(us)",
    "aiv_mte2_time(us)",
    "aiv_mte3_time(us)",
];

/// The pipes of the cube core's columns after the total, in column order.
const CUBE_PIPES: [Pipe; 6] = [
    Pipe::M,
    Pipe::S,
    Pipe::Mte1,
    Pipe::Mte2,
    Pipe::Mte3,
    Pipe::Fix,
];
/// The pipes of a vector core's columns after the total, in column order.
const VECTOR_PIPES: [Pipe; 4] = [Pipe::V, Pipe::S, Pipe::Mte2, Pipe::Mte3];

/// One launch's row, in cycles.
#[derive(Clone, Debug, PartialEq)]
pub struct ProfileRow {
    /// The kernel's symbol (`Op Name`).
    pub symbol: String,
    /// The kernel's name (`OP Type`).
    pub kernel: String,
    /// Whether the cube core ran it (its `aic_` columns) or vector cores (`aiv_`).
    pub cube: bool,
    /// Cores of the launch (`Block Dim`).
    pub block_dim: u64,
    /// The core's cycles from start to end.
    pub total_cycles: f64,
    /// `Task Duration` in cycles: the total, plus whatever surrounds a launch.
    pub task_cycles: f64,
    /// Busy cycles of each pipe, by [`Pipe::index`].
    pub pipes: [f64; Pipe::COUNT],
    /// The clock its cycles become microseconds at.
    pub clock_mhz: f64,
}

impl ProfileRow {
    /// The simulator's row for `subject` under `target`'s costs.
    pub fn simulated(subject: &Subject, target: &Target) -> Result<ProfileRow, String> {
        let simulated = subject.simulate(target)?;
        Ok(ProfileRow {
            symbol: subject.symbol.clone(),
            kernel: subject.kernel.name.clone(),
            cube: subject.core() == Core::Cube,
            block_dim: simulated.cores,
            total_cycles: simulated.total,
            task_cycles: simulated.total,
            pipes: simulated.pipes,
            clock_mhz: f64::from(target.clock_mhz),
        })
    }
}

/// `rows` as an `op_summary_*.csv`, each row's times at its clock: the header
/// ([`PROFILE_COLUMNS`]), then a line per row in the given order.
pub fn write_op_summary(rows: &[ProfileRow]) -> String {
    let mut text = PROFILE_COLUMNS.join(",");
    text.push('\n');
    for row in rows {
        text.push_str(&line(row));
        text.push('\n');
    }
    text
}

fn line(row: &ProfileRow) -> String {
    let us = |cycles: f64| format!("{:.6}", cycles / row.clock_mhz);
    let na = |count: usize| vec!["N/A".to_string(); count];
    let side = |pipes: &[Pipe]| -> Vec<String> {
        let mut fields = vec![us(row.total_cycles), format!("{:.0}", row.total_cycles)];
        fields.extend(pipes.iter().map(|p| us(row.pipes[p.index()])));
        fields
    };
    let (task_type, cube, vector) = match row.cube {
        true => ("AI_CORE", side(&CUBE_PIPES), na(2 + VECTOR_PIPES.len())),
        false => (
            "AI_VECTOR_CORE",
            na(2 + CUBE_PIPES.len()),
            side(&VECTOR_PIPES),
        ),
    };
    let mut fields = vec![
        row.symbol.clone(),
        row.kernel.clone(),
        task_type.to_string(),
        row.block_dim.to_string(),
        us(row.task_cycles),
    ];
    fields.extend(cube);
    fields.extend(vector);
    fields.join(",")
}
