//! The offline tuner's speed and search quality, side by side in one run:
//!
//! - the default heuristic on vmla (10 rounds x 8 candidates) and on the whole bundled
//!   suite (with the random and grid baselines), wall time and evaluations per second,
//!   timing first (the default: only candidates entering the best three are simulated
//!   on data) beside `--verify all`;
//! - on each bundled kernel, exhaustive grid search against the heuristic: how many
//!   evaluations the heuristic needs to come within 2% of the grid's best;
//! - on the cube, the heuristic (10 x 8, seeds 0 to 4) against the exhaustive search
//!   of a matmul's sub-grid (see [`matmul_sub_grid`]), timing-only, per seed: the
//!   goal is within 2% of the grid's best on 5 of 5 seeds in at most 80 evaluations.
//!
//! `cargo bench --bench autotune`. A plain harness: each measurement is seconds long.
//! - candidate checks: the schedule blocks of vmla, softmax and matmul at points spread
//!   over each kernel's space, checked by `npu_core::check_schedule` (the block alone,
//!   against the checked algorithm) beside the whole kernel text checked again (what
//!   it did before), checks per second and the ratio.
//!
//! Arguments after `--` pick sections: `speed`, `checks`, `grid` (per kernel) and
//! `matmul` (`cargo bench --bench autotune -- matmul`); none runs them all.

use std::time::Instant;

use npu_tune::evaluate::Problem;
use npu_tune::generator::{Generator, Grid, Heuristic};
use npu_tune::kernels::{Bundled, SUITE};
use npu_tune::record::{KernelResult, Verdict};
use npu_tune::run::{RunConfig, Silent, Verify, run};
use npu_tune::space::Space;
use npu_tune::space::Spec;

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

/// The matmuls the heuristic is held to the grid on: the suite's ascend910b f16
/// matmul (128 x 256 x 256, m too short to give 20 cube cores work alone) and the
/// int8 one (256 x 512 x 256, the shape).
const MATMULS: [&str; 2] = ["matmul", "matmul_i8"];

/// The sub-grid of a matmul's space searched exhaustively, and the size of the whole
/// space. The whole space (every core grid, tiles of m, n and k, 125 cube blocks, three
/// buffer depths) has millions of points; the sub-grid keeps every core grid, every
/// cube block, every k tile and both L0 depths, and
/// - leaves m and n unsplit: each core computes its whole share of the output, which
///   on these shapes fits L1 (the m and n splits only cut it into more, smaller steps);
/// - stages a and b in L1 at depth 2 when k is split (the copy of the next k tile
///   overlaps the cube's work on this one, and both fit) and at depth 1 when it is
///   not (one L1 tile per core: a second buffer would hold nothing).
///
/// The heuristic searches the whole space, so it can beat this grid.
fn matmul_sub_grid(problem: &Problem) -> (Vec<Spec>, u64) {
    let kernel = &problem.kernel;
    let mut space = Space::of(kernel);
    let full = space.size();
    for &axis in kernel.output_axes() {
        space.tiles[axis] = vec![None];
    }
    let points = (0..space.size())
        .map(|i| space.point(kernel, i))
        .filter(|spec| {
            spec.depth
                == if spec.tiles.iter().any(Option::is_some) {
                    2
                } else {
                    1
                }
        })
        .collect();
    (points, full)
}

/// Every point checked and, when legal, simulated timing-only, on every core: the
/// fastest cycles, the number of legal points, and the fastest point.
fn exhaustive(problem: &Problem, points: &[Spec]) -> (Option<u64>, usize, Option<Spec>) {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let results: Vec<(Option<(u64, usize)>, usize)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|worker| {
                scope.spawn(move || {
                    let mut best: Option<(u64, usize)> = None;
                    let mut legal = 0;
                    for index in (worker..points.len()).step_by(workers) {
                        let text = points[index].to_dsl(&problem.kernel, "s");
                        let outcome = problem.evaluate_with(&text, |_| false);
                        if outcome.verdict != Verdict::Rejected {
                            legal += 1;
                        }
                        if outcome.verdict == Verdict::Correct
                            && let Some(cycles) = outcome.cycles
                            && best.is_none_or(|b| (cycles, index) < b)
                        {
                            best = Some((cycles, index));
                        }
                    }
                    (best, legal)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let legal = results.iter().map(|(_, l)| l).sum();
    let best = results.iter().filter_map(|(b, _)| *b).min();
    (
        best.map(|(cycles, _)| cycles),
        legal,
        best.map(|(_, index)| points[index].clone()),
    )
}

fn evaluations(results: &[KernelResult]) -> usize {
    results.iter().map(|r| r.candidates.len()).sum()
}

fn main() {
    // `cargo test --benches` runs this with `--bench` absent: do a quick smoke run only.
    let quick = !std::env::args().any(|a| a == "--bench");
    let rounds = if quick { 1 } else { 10 };
    let sections: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let section = |name: &str| sections.is_empty() || sections.iter().any(|s| s == name);

    if section("speed") {
        speed(rounds);
    }
    if section("checks") {
        checks(if quick { 20 } else { 1000 });
    }
    if quick {
        // The sub-grid's first points, so the smoke run exercises its code.
        let matmul = Bundled::find("matmul").unwrap().problem(0, None).unwrap();
        let (best, _, _) = exhaustive(&matmul, &matmul_sub_grid(&matmul).0[..64]);
        println!("matmul sub-grid, first 64 points: best {best:?}");
        return;
    }
    let suite: Vec<Problem> = SUITE.iter().map(|b| b.problem(0, None).unwrap()).collect();
    if section("grid") {
        grid_per_kernel(&suite);
    }
    if section("matmul") {
        matmul_against_grid();
    }
}

/// Candidate checks per second on vmla, softmax and matmul: `points` distinct blocks
/// each (or the whole space when smaller), by the block alone and by the whole text.
fn checks(points: u64) {
    for name in ["vmla", "softmax", "matmul"] {
        let kernel = (Bundled::find(name).unwrap().kernel)();
        let space = Space::of(kernel);
        let step = (space.size() / points).max(1) as usize;
        let mut texts: Vec<String> = (0..space.size())
            .step_by(step)
            .map(|index| space.point(kernel, index).to_dsl(kernel, "candidate"))
            .collect();
        texts.sort();
        texts.dedup();
        // The best of five passes each, the two paths taking turns: the machine is shared.
        let rate = |check: &dyn Fn(&str) -> bool| {
            let start = Instant::now();
            let accepted = texts.iter().filter(|t| check(t)).count();
            (texts.len() as f64 / start.elapsed().as_secs_f64(), accepted)
        };
        let whole_text = |text: &str| {
            let source = format!("{}\n{}", kernel.header.trim_end(), text);
            npu_core::check_source(&source, &kernel.target).is_ok()
        };
        let block_alone = |text: &str| npu_core::check_schedule(kernel, text).is_ok();
        let (mut whole, mut block) = ((0.0f64, 0), (0.0f64, 0));
        for _ in 0..5 {
            let (w, b) = (rate(&whole_text), rate(&block_alone));
            whole = (whole.0.max(w.0), w.1);
            block = (block.0.max(b.0), b.1);
        }
        let ((whole, accepted_whole), (block, accepted)) = (whole, block);
        assert_eq!(accepted, accepted_whole, "{name}: the two paths disagree");
        println!(
            "checks {name}: {} blocks ({accepted} legal): {block:.0}/s by the block alone, {whole:.0}/s by the whole text, {:.1}x",
            texts.len(),
            block / whole
        );
    }
}

/// The heuristic's speed on vmla and on the suite, timing first and verifying all.
fn speed(rounds: u32) {
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
}

/// The heuristic on matmuls, per seed, against the exhaustive search of a sub-grid.
fn matmul_against_grid() {
    println!("\nheuristic (10 x 8) vs the exhaustive sub-grid on matmuls, timing-only:");
    println!("goal: within 2% of the grid's best on 5 of 5 seeds in <= 80 evaluations");
    for name in MATMULS {
        let problem = Bundled::find(name).unwrap().problem(0, None).unwrap();
        let (points, full) = matmul_sub_grid(&problem);
        let start = Instant::now();
        let (best, legal, spec) = exhaustive(&problem, &points);
        let seconds = start.elapsed().as_secs_f64();
        let grid_best = best.unwrap_or(u64::MAX);
        let text = spec.map_or(String::new(), |s| s.to_dsl(&problem.kernel, "grid_best"));
        // The grid's best is checked on data, as the tuner checks its bests.
        let verdict = problem.evaluate(&text).verdict;
        println!(
            "{name}: sub-grid of {} points ({legal} legal) of the space's {full}, searched in {seconds:.1} s; best {grid_best} cycles ({verdict:?} on data):\n{text}",
            points.len(),
        );
        println!(
            "{:>6} {:>12} {:>12} {:>8} {:>12} {:>22}",
            "seed", "heur. best", "grid best", "ratio", "evaluations", "heur. evals to ±2%"
        );
        let mut met = 0;
        for seed in 0..5 {
            let (heuristic, _) = timed(
                std::slice::from_ref(&problem),
                &mut Heuristic::default(),
                &RunConfig {
                    seed,
                    ..config(&format!("heur-{name}-{seed}"), 10, 8, false)
                },
            );
            let result = &heuristic[0];
            let heuristic_best = result.best.as_ref().map_or(u64::MAX, |b| b.cycles);
            let reached = result
                .candidates
                .iter()
                .filter(|c| c.generator == "heuristic")
                .position(|c| {
                    c.verdict == Verdict::Correct
                        && c.cycles
                            .is_some_and(|cycles| cycles as f64 <= grid_best as f64 * 1.02)
                })
                .map(|i| i + 1);
            met += usize::from(reached.is_some_and(|n| n <= 80));
            println!(
                "{seed:>6} {heuristic_best:>12} {grid_best:>12} {:>8.3} {:>12} {:>22}",
                heuristic_best as f64 / grid_best as f64,
                result.evaluations,
                reached.map_or("not reached".to_string(), |n| n.to_string()),
            );
        }
        println!("{name}: within 2% in <= 80 evaluations on {met} of 5 seeds (goal 5 of 5)");
    }
}

/// Exhaustive grid search against the heuristic on every kernel small enough.
fn grid_per_kernel(suite: &[Problem]) {
    println!("\nexhaustive grid vs heuristic (10 x 8), per kernel:");
    println!(
        "{:<12} {:>6} {:>12} {:>12} {:>22} {:>8}",
        "kernel", "grid", "grid best", "heur. best", "heur. evals to ±2%", "ratio"
    );
    for problem in suite {
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
