//! What a device measured, read from the profiler's files by their documented column
//! names (`columns`): msprof's `op_summary_*.csv` (a row per launch, named by the
//! kernel's symbol in `Op Name`), `msprof op`'s `PipeUtilization.csv` (a row per core
//! of one launch, whose symbol the user gives) and the AIE cycles file.
//!
//! The AIE cycles file is npu's own, since the AIE tools print cycle counts rather than
//! write a table: one launch per line, the kernel's symbol and the cycles counted
//! between the kernel's `event0()` and `event1()` (what a trace of the two events, or
//! the core's cycle counter read before and after, gives), separated by white space;
//! `#` starts a comment and blank lines are skipped:
//!
//! ```text
//! # symbol              cycles between event0() and event1()
//! relu_hand_1b2c3d4e    18342
//! ```

use super::columns::{self, BLOCK_DIM, Core, OP_NAME, Quantity, TASK_DURATION, Unit};
use super::csv::{Table, parse};

/// What one launch measured: the kernel's symbol and each value read, by core.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// The kernel symbol the row names (`KERNEL_SCHEDULE_HASH`).
    pub symbol: String,
    /// Where the row is: file and line, for messages.
    pub origin: String,
    /// Values read: which core's column, what it measures, its unit and the value.
    pub(crate) values: Vec<(Core, Quantity, Unit, f64)>,
    /// `Task Duration(us)`, when the file has it: the core's time plus scheduling and
    /// response.
    pub(crate) task_duration_us: Option<f64>,
    /// `Block Dim`: the cores the launch ran on.
    pub block_dim: Option<u64>,
}

/// The measurements read from one file and what was worth a warning.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Read {
    /// One per launch.
    pub measurements: Vec<Measurement>,
    /// Columns the documentation does not list, values left out, and the like.
    pub warnings: Vec<String>,
}

/// Reads an `op_summary_*.csv` (`label` names it in messages).
pub fn read_op_summary(label: &str, bytes: &[u8]) -> Result<Read, String> {
    let table = parse(bytes).map_err(|e| format!("{label}: {e}"))?;
    let mut read = check_header(label, &table, true)?;
    let name_at = position(&table, OP_NAME).unwrap_or(0);
    for (line, fields) in &table.rows {
        let symbol = fields[name_at].trim().to_string();
        if symbol.is_empty() {
            return Err(format!("{label}: line {line}: `{OP_NAME}` is empty"));
        }
        read.measurements
            .push(measurement(label, &table, *line, fields, symbol)?);
    }
    Ok(read)
}

/// Reads a `PipeUtilization.csv` of one launch of `symbol`: a row per core, of which
/// the slowest (the largest core time) is kept, as the simulator reports its slowest
/// core.
pub fn read_pipe_utilization(label: &str, symbol: &str, bytes: &[u8]) -> Result<Read, String> {
    let table = parse(bytes).map_err(|e| format!("{label}: {e}"))?;
    let mut read = check_header(label, &table, false)?;
    let mut slowest: Option<Measurement> = None;
    for (line, fields) in &table.rows {
        let row = measurement(label, &table, *line, fields, symbol.to_string())?;
        if slowest
            .as_ref()
            .is_none_or(|s| core_time(&row) > core_time(s))
        {
            slowest = Some(row);
        }
    }
    let mut slowest = slowest.ok_or_else(|| format!("{label}: no rows after the header"))?;
    slowest.block_dim = Some(table.rows.len() as u64);
    read.measurements.push(slowest);
    Ok(read)
}

/// Reads an AIE cycles file (module docs): each line `SYMBOL CYCLES`.
pub fn read_aie_cycles(label: &str, bytes: &[u8]) -> Result<Read, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        format!(
            "{label}: not UTF-8 text: byte {} is not part of a UTF-8 character",
            e.valid_up_to()
        )
    })?;
    let mut read = Read::default();
    for (index, line) in text.lines().enumerate() {
        let content = line.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let at = format!("{label}: line {}", index + 1);
        let fields: Vec<&str> = content.split_whitespace().collect();
        let [symbol, cycles] = fields[..] else {
            return Err(format!(
                "{at}: expected `SYMBOL CYCLES`, found {} fields",
                fields.len()
            ));
        };
        let cycles = number(cycles).ok_or_else(|| {
            format!("{at}: `{cycles}` is not a cycle count (a non-negative number)")
        })?;
        read.measurements.push(Measurement {
            symbol: symbol.to_string(),
            origin: at,
            values: vec![(Core::Vector, Quantity::Total, Unit::Cycles, cycles)],
            task_duration_us: None,
            block_dim: None,
        });
    }
    if read.measurements.is_empty() {
        return Err(format!("{label}: no `SYMBOL CYCLES` line"));
    }
    Ok(read)
}

/// The header's problems: a duplicated column or a missing `Op Name` (`needs_name`)
/// are errors, as is a file with no time column; columns the documentation does not
/// list are a warning, since msprof adds columns between versions.
fn check_header(label: &str, table: &Table, needs_name: bool) -> Result<Read, String> {
    for (index, name) in table.header.iter().enumerate() {
        if table.header[..index].contains(name) {
            return Err(format!(
                "{label}: column `{name}` appears twice in the header"
            ));
        }
    }
    let found = || table.header.join(", ");
    if needs_name && position(table, OP_NAME).is_none() {
        return Err(format!(
            "{label}: no `{OP_NAME}` column, which names each row's kernel (the columns are: {})",
            found()
        ));
    }
    let timed = columns::VALUE_COLUMNS
        .iter()
        .any(|c| position(table, c.name).is_some())
        || position(table, TASK_DURATION).is_some();
    if !timed {
        return Err(format!(
            "{label}: no time column msprof writes (such as `aiv_vec_time(us)` or `{TASK_DURATION}`); \
             collect with --aic-metrics=PipeUtilization (the columns are: {})",
            found()
        ));
    }
    let mut read = Read::default();
    let unknown: Vec<&str> = table
        .header
        .iter()
        .map(String::as_str)
        .filter(|name| !columns::documented(name))
        .collect();
    if !unknown.is_empty() {
        read.warnings.push(format!(
            "{label}: ignoring columns msprof's documentation does not list: {}",
            unknown.join(", ")
        ));
    }
    Ok(read)
}

/// One row's values by column name.
fn measurement(
    label: &str,
    table: &Table,
    line: usize,
    fields: &[String],
    symbol: String,
) -> Result<Measurement, String> {
    let value = |name: &str| -> Result<Option<f64>, String> {
        let Some(at) = position(table, name) else {
            return Ok(None);
        };
        let text = fields[at].trim();
        if text.is_empty() || text == "N/A" {
            return Ok(None);
        }
        number(text).map(Some).ok_or_else(|| {
            format!("{label}: line {line}: `{name}` is `{text}`, not a non-negative number")
        })
    };
    let mut values = Vec::new();
    for column in &columns::VALUE_COLUMNS {
        if let Some(v) = value(column.name)? {
            values.push((column.core, column.quantity, column.unit, v));
        }
    }
    Ok(Measurement {
        symbol,
        origin: format!("{label}: line {line}"),
        values,
        task_duration_us: value(TASK_DURATION)?,
        block_dim: value(BLOCK_DIM)?.map(|v| v as u64),
    })
}

/// The largest core time of a PipeUtilization row, in microseconds.
fn core_time(row: &Measurement) -> f64 {
    row.values
        .iter()
        .filter(|(_, q, u, _)| *q == Quantity::Total && *u == Unit::Micros)
        .map(|v| v.3)
        .fold(0.0, f64::max)
}

fn position(table: &Table, name: &str) -> Option<usize> {
    table.header.iter().position(|h| h == name)
}

/// A finite, non-negative number.
fn number(text: &str) -> Option<f64> {
    text.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_summary_rows_are_read_by_column_name_in_any_order() {
        let a = b"Op Name,aiv_vec_time(us),Task Duration(us)\nk_s_0,1.5,3\n";
        let b = b"Task Duration(us),Op Name,aiv_vec_time(us)\n3,k_s_0,1.5\n";
        let (a, b) = (
            read_op_summary("a", a).unwrap(),
            read_op_summary("a", b).unwrap(),
        );
        assert_eq!(a.measurements[0].values, b.measurements[0].values);
        assert_eq!(a.measurements[0].task_duration_us, Some(3.0));
    }

    #[test]
    fn header_problems_are_errors_or_warnings() {
        let error = read_op_summary("f", b"aiv_vec_time(us)\n1\n").unwrap_err();
        assert!(error.contains("no `Op Name` column"), "{error}");
        let error = read_op_summary("f", b"Op Name,Op Name,aiv_time(us)\nk,k,1\n").unwrap_err();
        assert!(error.contains("appears twice"), "{error}");
        let read = read_op_summary("f", b"Op Name,aiv_time(us),my column\nk,1,x\n").unwrap();
        assert!(
            read.warnings[0].contains("my column"),
            "{:?}",
            read.warnings
        );
        let error = read_op_summary("f", b"Op Name,aiv_time(us)\nk,-1\n").unwrap_err();
        assert!(error.contains("line 2: `aiv_time(us)` is `-1`"), "{error}");
    }

    #[test]
    fn pipe_utilization_keeps_the_slowest_core() {
        let text =
            b"block_id,sub_block_id,aiv_time(us),aiv_total_cycles,aiv_vec_time(us),aiv_vec_ratio\n\
            0,aiv0,2.0,3600,1.0,0.5\n1,aiv1,3.0,5400,2.5,0.83\n";
        let read = read_pipe_utilization("p", "k_s_0", text).unwrap();
        let row = &read.measurements[0];
        assert_eq!((row.symbol.as_str(), row.block_dim), ("k_s_0", Some(2)));
        assert!(
            row.values
                .contains(&(Core::Vector, Quantity::Total, Unit::Cycles, 5400.0))
        );
        assert!(read.warnings.is_empty(), "{:?}", read.warnings);
    }

    #[test]
    fn aie_cycles_lines_are_symbol_and_cycles() {
        let read = read_aie_cycles("c", b"# comment\nrelu_s_00000000 1200\n\n").unwrap();
        assert_eq!(read.measurements[0].symbol, "relu_s_00000000");
        let error = read_aie_cycles("c", b"relu 12 13\n").unwrap_err();
        assert!(
            error.contains("line 1: expected `SYMBOL CYCLES`"),
            "{error}"
        );
    }
}
