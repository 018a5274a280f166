//! The offline tuner's speed and search quality, side by side in one run:
//!
//! - the default heuristic on vmla (10 rounds x 8 candidates) and on the whole bundled
//!   suite (with the random and grid baselines), wall time and evaluations per second,
//!   timing first (the default: only candidates entering the best three are simulated
//!   on data) beside `--verify all`;
//! - on each bundled kernel, exhaustive grid search against the heuristic: how many
//!   evaluations the heuristic needs to come within 2% of the grid's best.
//!
//! `cargo bench --bench autotune`. A plain harness: each measurement is seconds long.

use std::time::Instant;

use npu::kernels::{Bundled, SUITE};
use npu::tuner::evaluate::Problem;
use npu::tuner::generator::{Generator, Grid, Heuristic};
use npu::tuner::record::{KernelResult, Verdict};
use npu::tuner::run::{RunConfig, Silent, Verify, run};
use npu::tuner::space::Space;

fn config(name: &str, rounds: u32, candidates: usize, baselines: bool) -> RunConfig {
    RunConfig {
        verify: Verify::Best(3),
        ..config_all(name, rounds, candidates, baselines)
    }
}

fn config_all(name: &str, rounds: u32, candidates: usize, baselines: bool) -> RunConfig {
    let dir = std::env::temp_dir().join(format!("npu-bench-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    RunConfig {
        rounds,
        candidates,
        seed: 0,
        jobs: 0,
        report_dir: dir,
        resume: false,
        baselines,
        verify: Verify::All,
    }
}

fn timed(
    problems: &[Problem],
    generator: &mut dyn Generator,
    config: &RunConfig,
) -> (Vec<KernelResult>, f64) {
    let start = Instant::now();
    let results = run(problems, generator, config, &Silent).expect("tuning run");
    let seconds = start.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(&config.report_dir);
    (results, seconds)
}

fn evaluations(results: &[KernelResult]) -> usize {
    results.iter().map(|r| r.candidates.len()).sum()
}

fn main() {
    // `cargo test --benches` runs this with `--bench` absent: do a quick smoke run only.
    let quick = !std::env::args().any(|a| a == "--bench");
    let rounds = if quick { 1 } else { 10 };

    let vmla = [Bundled::find("vmla").unwrap().problem(0, None).unwrap()];
    let (results, seconds) = timed(
        &vmla,
        &mut Heuristic::default(),
        &config("vmla", rounds, 8, false),
    );
    let count = evaluations(&results);
    println!(
        "heuristic on vmla, {rounds} rounds x 8: {seconds:.2} s, {count} evaluations, {:.0} evaluations/s",
        count as f64 / seconds
    );

    let suite: Vec<Problem> = SUITE.iter().map(|b| b.problem(0, None).unwrap()).collect();
    for (policy, config) in [
        ("timing first", config("suite", rounds, 8, true)),
        ("verify all", config_all("suite-all", rounds, 8, true)),
    ] {
        let (results, seconds) = timed(&suite, &mut Heuristic::default(), &config);
        let count = evaluations(&results);
        let verified = results
            .iter()
            .flat_map(|r| &r.candidates)
            .filter(|c| c.verified && c.cycles.is_some())
            .count();
        println!(
            "heuristic + random + grid on the suite ({} kernels), {rounds} rounds x 8, {policy}: {seconds:.2} s, {count} evaluations ({verified} simulated on data), {:.0} evaluations/s",
            suite.len(),
            count as f64 / seconds
        );
    }
    if quick {
        return;
    }

    println!("\nexhaustive grid vs heuristic (10 x 8), per kernel:");
    println!(
        "{:<12} {:>6} {:>12} {:>12} {:>22} {:>8}",
        "kernel", "grid", "grid best", "heur. best", "heur. evals to ±2%", "ratio"
    );
    for problem in &suite {
        let size = Space::of(&problem.kernel).size();
        if size > 5_000 {
            println!(
                "{:<12} {size:>6} points: too many to enumerate here",
                problem.name
            );
            continue;
        }
        let grid_rounds = size.div_ceil(8) as u32;
        let (grid, _) = timed(
            std::slice::from_ref(problem),
            &mut Grid,
            &config("grid", grid_rounds, 8, false),
        );
        let grid_best = grid[0].best.as_ref().map_or(u64::MAX, |b| b.cycles);
        let (heuristic, _) = timed(
            std::slice::from_ref(problem),
            &mut Heuristic::default(),
            &config("heur", 10, 8, false),
        );
        let target = grid_best as f64 * 1.02;
        let reached = heuristic[0]
            .candidates
            .iter()
            .filter(|c| c.generator == "heuristic")
            .position(|c| {
                c.verdict == Verdict::Correct
                    && c.cycles.is_some_and(|cycles| cycles as f64 <= target)
            })
            .map(|i| i + 1);
        let heuristic_best = heuristic[0].best.as_ref().map_or(u64::MAX, |b| b.cycles);
        let grid_evaluations = grid[0].evaluations;
        println!(
            "{:<12} {:>6} {:>12} {:>12} {:>22} {:>8}",
            problem.name,
            grid_evaluations,
            grid_best,
            heuristic_best,
            reached.map_or("not reached".to_string(), |n| n.to_string()),
            reached.map_or("-".to_string(), |n| format!(
                "{:.2}",
                n as f64 / grid_evaluations as f64
            )),
        );
    }
}
