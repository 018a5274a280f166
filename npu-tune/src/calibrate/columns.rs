//! The profiler's vocabulary: the columns of msprof's `op_summary_*.csv` and of
//! `msprof op`'s `PipeUtilization.csv`, spelled as the CANN documentation spells them,
//! and what each measures in the simulator's terms.
//!
//! Sources (CANN 8.0 documentation):
//! - op_summary: <https://www.hiascend.com/document/detail/en/canncommercial/800/devaids/profiling/atlasprofiling_16_0067.html>
//!   (`Op Name`, `OP Type`, `Task Type`, `Task Duration(us)`, `Block Dim`, and with
//!   `--aic-metrics=PipeUtilization` the per-pipe `*_time(us)` columns below).
//! - PipeUtilization.csv: <https://www.hiascend.com/document/detail/en/canncommercial/800/devaids/optool/atlasopdev_16_0099.html>
//!   (`block_id`, `sub_block_id`, `aic_time(us)`, `aic_total_cycles`, `aiv_time(us)`,
//!   `aiv_total_cycles`, `aiv_vec_time(us)`, `aic_cube_time(us)`, `ai*_scalar_time(us)`,
//!   `aic_fixpipe_time(us)`, `aic_mte1_time(us)`, `ai*_mte2_time(us)`,
//!   `ai*_mte3_time(us)`; `ai*` is `aic` on the cube core and `aiv` on a vector core).
//!
//! A kernel with a cube (a matmul) runs on the cube core and is read from the `aic_`
//! columns; every other kernel runs on vector cores and is read from the `aiv_` ones.

use npu_core::program::Pipe;

/// What a column measures: one pipe's busy time, or the whole core's time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Quantity {
    /// The busy time of one pipe of the core (the simulator's critical core).
    Pipe(Pipe),
    /// The core's time from start to end (the simulator's total cycles).
    Total,
}

impl Quantity {
    /// The name reports use: the pipe's (`MTE2`) or `total`.
    pub fn name(self) -> &'static str {
        match self {
            Quantity::Pipe(pipe) => pipe.name(),
            Quantity::Total => "total",
        }
    }
}

/// The unit a column is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unit {
    Micros,
    Cycles,
}

/// Which core's columns: the cube core's (`aic_`) or a vector core's (`aiv_`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Core {
    Cube,
    Vector,
}

/// One column: its name, the core it describes, what it measures and its unit.
pub(crate) struct Column {
    pub name: &'static str,
    pub core: Core,
    pub quantity: Quantity,
    pub unit: Unit,
}

const fn column(name: &'static str, core: Core, quantity: Quantity, unit: Unit) -> Column {
    Column {
        name,
        core,
        quantity,
        unit,
    }
}

use Core::{Cube, Vector};
use Quantity::Total;
use Unit::{Cycles, Micros};

/// Every value column npu reads or writes. `aicore_time(us)` is op_summary's name of
/// the cube core's time and `aic_time(us)` PipeUtilization's; `aic_mac_time(us)` is
/// op_summary's name of the cube's busy time and `aic_cube_time(us)` PipeUtilization's.
pub(crate) const VALUE_COLUMNS: [Column; 16] = [
    column("aicore_time(us)", Cube, Total, Micros),
    column("aic_time(us)", Cube, Total, Micros),
    column("aic_total_cycles", Cube, Total, Cycles),
    column("aic_mac_time(us)", Cube, Quantity::Pipe(Pipe::M), Micros),
    column("aic_cube_time(us)", Cube, Quantity::Pipe(Pipe::M), Micros),
    column("aic_scalar_time(us)", Cube, Quantity::Pipe(Pipe::S), Micros),
    column(
        "aic_mte1_time(us)",
        Cube,
        Quantity::Pipe(Pipe::Mte1),
        Micros,
    ),
    column(
        "aic_mte2_time(us)",
        Cube,
        Quantity::Pipe(Pipe::Mte2),
        Micros,
    ),
    column(
        "aic_mte3_time(us)",
        Cube,
        Quantity::Pipe(Pipe::Mte3),
        Micros,
    ),
    column(
        "aic_fixpipe_time(us)",
        Cube,
        Quantity::Pipe(Pipe::Fix),
        Micros,
    ),
    column("aiv_time(us)", Vector, Total, Micros),
    column("aiv_total_cycles", Vector, Total, Cycles),
    column("aiv_vec_time(us)", Vector, Quantity::Pipe(Pipe::V), Micros),
    column(
        "aiv_scalar_time(us)",
        Vector,
        Quantity::Pipe(Pipe::S),
        Micros,
    ),
    column(
        "aiv_mte2_time(us)",
        Vector,
        Quantity::Pipe(Pipe::Mte2),
        Micros,
    ),
    column(
        "aiv_mte3_time(us)",
        Vector,
        Quantity::Pipe(Pipe::Mte3),
        Micros,
    ),
];

/// The row's symbol in op_summary.
pub(crate) const OP_NAME: &str = "Op Name";
/// The task's duration, scheduling and response included: the core's time when no
/// core-time column was collected (`--aic-metrics` off).
pub(crate) const TASK_DURATION: &str = "Task Duration(us)";
/// The core count of the launch.
pub(crate) const BLOCK_DIM: &str = "Block Dim";

/// Columns the documentation lists that npu does not read: present in real files, so
/// not worth a warning.
pub(crate) const IGNORED_COLUMNS: [&str; 22] = [
    "Device_id",
    "Model Name",
    "Model ID",
    "Task ID",
    "Stream ID",
    "Infer ID",
    "OP Type",
    "OP State",
    "Task Type",
    "Task Start Time(us)",
    "Task Wait Time(us)",
    "Mix Block Dim",
    "HF32 Eligible",
    "Input Shapes",
    "Input Data Types",
    "Input Formats",
    "Output Shapes",
    "Output Data Types",
    "Output Formats",
    "Context ID",
    "block_id",
    "sub_block_id",
];

/// Whether msprof's documentation lists `name` (a column npu reads or ignores, or one
/// of its ratio, rate and bandwidth columns).
pub(crate) fn documented(name: &str) -> bool {
    name == OP_NAME
        || name == BLOCK_DIM
        || name == TASK_DURATION
        || VALUE_COLUMNS.iter().any(|c| c.name == name)
        || IGNORED_COLUMNS.contains(&name)
        || name.ends_with("_ratio")
        || name.ends_with("_rate")
        || name.ends_with("(GB/s)")
        || name.ends_with("_instr_number")
}
