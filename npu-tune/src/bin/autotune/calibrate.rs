//! `autotune calibrate`: fit a target's constants to profiler files from a device, and
//! `--profile-out`: the tuned kernels' simulated profile in the same columns.
//!
//! The programs a profile's rows can name are re-derived, not read from the emitted
//! sources: every schedule of the selected bundled kernels checked on the target, and
//! the best schedule of each in the tuning reports of `--report-dir` (what `autotune
//! --emit` wrote). Each is known by the symbol npu-emit gives it, the kernel and
//! schedule names and a hash of kernel, target and schedule, which is how msprof's
//! `Op Name` names the row.

use std::path::{Path, PathBuf};

use npu_tune::atomic::write_atomic;
use npu_tune::calibrate::{
    ProfileRow, Read, Subject, calibrate, read_aie_cycles, read_op_summary, read_pipe_utilization,
    render_report, target_text, write_op_summary,
};
use npu_tune::evaluate::Problem;
use npu_tune::kernels::{self, Bundled};
use npu_tune::record::KernelResult;

use crate::problems::load_target;

/// What `autotune calibrate` takes.
#[derive(Debug, clap::Args)]
pub(crate) struct CalibrateArgs {
    /// The target to calibrate: a preset name or a target TOML file.
    #[arg(long)]
    target: String,
    /// Bundled kernels whose schedules the rows may name (default: every bundled
    /// kernel that checks on the target). Repeatable.
    #[arg(long = "kernel", value_name = "NAME")]
    kernels: Vec<String>,
    /// Where `autotune` wrote its reports: each kernel's best schedule is a program
    /// the rows may name too.
    #[arg(long, default_value = "target/autotune")]
    report_dir: PathBuf,
    /// msprof's op_summary_*.csv (collected with --aic-metrics=PipeUtilization).
    /// Repeatable.
    #[arg(long, value_name = "FILE")]
    op_summary: Vec<PathBuf>,
    /// `msprof op`'s PipeUtilization.csv of one launch, as SYMBOL=FILE. Repeatable.
    #[arg(long, value_name = "SYMBOL=FILE")]
    pipe_utilization: Vec<String>,
    /// AIE cycles file: lines `SYMBOL CYCLES` (cycles between event0() and event1()).
    /// Repeatable.
    #[arg(long, value_name = "FILE")]
    aie_cycles: Vec<PathBuf>,
    /// Where to write the calibrated target file.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Where to write the report (Markdown); default: beside --out, `.md`.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
}

/// Runs `autotune calibrate`: reads every file, fits, and only then writes the target
/// file and the report, each atomically.
pub(crate) fn run(args: &CalibrateArgs) -> Result<(), String> {
    let target = load_target(&args.target)?;
    let reads = read_inputs(args)?;
    let subjects = subjects(args, &target)?;
    let calibration = calibrate(&target, &subjects, &reads)?;
    for warning in &calibration.warnings {
        eprintln!("warning: {warning}");
    }
    let report_path = args
        .report
        .clone()
        .unwrap_or_else(|| args.out.with_extension("md"));
    let report = render_report(&calibration);
    write(&args.out, &target_text(&calibration))?;
    write(&report_path, &report)?;
    println!("{report}");
    eprintln!("wrote {} and {}", args.out.display(), report_path.display());
    Ok(())
}

/// Every profiler file named, read and checked before anything is fitted.
fn read_inputs(args: &CalibrateArgs) -> Result<Vec<Read>, String> {
    let mut reads = Vec::new();
    for path in &args.op_summary {
        reads.push(read_op_summary(&label(path), &bytes(path)?)?);
    }
    for pair in &args.pipe_utilization {
        let (symbol, path) = pair.split_once('=').ok_or_else(|| {
            format!("--pipe-utilization `{pair}`: expected SYMBOL=FILE (the kernel's symbol, then the file)")
        })?;
        let path = Path::new(path);
        reads.push(read_pipe_utilization(&label(path), symbol, &bytes(path)?)?);
    }
    for path in &args.aie_cycles {
        reads.push(read_aie_cycles(&label(path), &bytes(path)?)?);
    }
    if reads.is_empty() {
        return Err(
            "nothing to calibrate from: give --op-summary, --pipe-utilization or --aie-cycles"
                .into(),
        );
    }
    Ok(reads)
}

/// The programs the rows may name (module docs).
fn subjects(args: &CalibrateArgs, target: &npu_core::Target) -> Result<Vec<Subject>, String> {
    let selected: Vec<Bundled> = match args.kernels.is_empty() {
        true => kernels::all(),
        false => args
            .kernels
            .iter()
            .map(|name| Bundled::find(name).ok_or(format!("no bundled kernel `{name}`")))
            .collect::<Result<_, _>>()?,
    };
    let mut subjects = Vec::new();
    for bundled in selected {
        let own = (bundled.kernel)();
        let Ok(kernel) = npu_core::check_source(&own.source, target) else {
            continue;
        };
        subjects.extend(Subject::every_schedule(&kernel));
        if let Some(best) = best_schedule(&args.report_dir, &kernel) {
            subjects.push(Subject::new(&best, 0));
        }
    }
    Ok(subjects)
}

/// The best schedule `autotune` reported for `kernel` in `dir`, checked; `None` when
/// there is no such report or it does not check on this target.
fn best_schedule(dir: &Path, kernel: &npu_core::CheckedKernel) -> Option<npu_core::CheckedKernel> {
    let text = std::fs::read_to_string(dir.join(format!("{}.json", kernel.name))).ok()?;
    let result: KernelResult = serde_json::from_str(&text).ok()?;
    (result.target == kernel.target.name).then_some(())?;
    npu_core::check_schedule(kernel, &result.best?.source).ok()
}

/// `--profile-out FILE`: each tuned kernel's best schedule, simulated, as a row of
/// op_summary, written atomically.
pub(crate) fn write_profile(
    path: &Path,
    problems: &[Problem],
    results: &[KernelResult],
) -> Result<(), String> {
    let mut rows = Vec::new();
    for (problem, result) in problems.iter().zip(results) {
        let Some(best) = &result.best else { continue };
        let kernel = problem.check(&best.source).map_err(|r| r.render())?;
        let row = ProfileRow::simulated(&Subject::new(&kernel, 0), &kernel.target)?;
        rows.push(row);
    }
    write(path, &write_op_summary(&rows))?;
    eprintln!(
        "wrote the simulated profile of {} kernels to {}",
        rows.len(),
        path.display()
    );
    Ok(())
}

fn label(path: &Path) -> String {
    path.display().to_string()
}

fn bytes(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    write_atomic(path, text.as_bytes()).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
