//! The bundled kernels' hand schedules on the Ascend presets: emitted, compiled
//! against the CPU model, run on seeded random and edge inputs, and compared bit for
//! bit with the simulator's functional outputs. A kernel the backend cannot write
//! yet is named with the reason; one it writes must match.

use npu_core::CheckedKernel;
use npu_core::host::HostTensor;
use npu_emit::{Backend, emit};
use npu_sim::{SimOptions, simulate};
use rayon::prelude::*;

use crate::support::{self, Case};

/// Programs (hand and tuned schedules) the backend writes today; fewer means a
/// regression (the skip list the test prints says which stopped being written, and
/// why).
const AT_LEAST_WRITTEN: usize = 185;

/// Emitted cases with their kernels, and skipped kernels with the reason.
type Suite = (Vec<(Case, &'static CheckedKernel)>, Vec<(String, String)>);

/// The Ascend kernels of the suite with their hand schedules, then with the tuned
/// schedules docs/suite.json records, as cases; the skipped ones with reasons.
pub(crate) fn cases() -> Suite {
    let mut suite = (Vec::new(), Vec::new());
    for bundled in npu_tune::kernels::all() {
        let kernel = (bundled.kernel)();
        if kernel.target.family != npu_core::Family::Ascend {
            continue;
        }
        let schedule = kernel
            .schedules
            .iter()
            .position(|s| s.name == "hand")
            .unwrap_or(0);
        add(&mut suite, bundled.name, kernel, schedule);
    }
    for (name, kernel) in tuned(npu_core::Family::Ascend) {
        add(&mut suite, &name, kernel, 0);
    }
    for (name, kernel) in uncovered() {
        add(&mut suite, name, kernel, 0);
    }
    suite
}

/// What no bundled Ascend kernel has: the element types past f16, f32, i16 and i32
/// and the casts between them. A quantisation to i8 (saturating, after a scale, so
/// that f16's overflow to inf and the edge inputs' NaN, ±inf and ±0 reach the cast)
/// and back (i8 and u8 to f16, exact; i8 to f32 as two casts through f16, as the
/// refusal of a direct one suggests); bf16 to and from f32; saturating casts from
/// f32 to i32 and from i32 to i16; the quantisation on ascend310p; u8 data moved in
/// strided blocks; u16 bitwise operations. And the running sums no bundled kernel
/// lays out so: rows whose outputs do not start 32-byte aligned (gathered through one
/// table of every output) and a scan along the outer axis of f16 columns.
const UNCOVERED: [(&str, &str); 9] = [
    (
        "quantise_f16_i8",
        "kernel quantise_f16_i8(x: [f16; 8192]) -> y: [i8; 8192] {
            y[i] = (x[i] * 8) as sat i8;
        }
        target ascend910b;
        schedule hand { parallel i over 2 cores; split i by 1024; stage x, y in ub depth 2; }",
    ),
    (
        "dequantise_8bit_f16",
        "kernel dequantise_8bit_f16(q: [i8; 4096], u: [u8; 4096]) -> (y: [f16; 4096], z: [f16; 4096], w: [f32; 4096]) {
            y[i] = q[i] as f16 * 0.25;
            z[i] = u[i] as f16;
            w[i] = q[i] as f16 as f32;
        }
        target ascend910b;
        schedule hand { split i by 1024; stage q, u, y, z, w in ub depth 1; }",
    ),
    (
        "round_bf16",
        "kernel round_bf16(x: [f32; 4096], b: [bf16; 4096]) -> (y: [bf16; 4096], z: [f32; 4096]) {
            y[i] = x[i] as bf16;
            z[i] = b[i] as f32 * 2.0;
        }
        target ascend910b;
        schedule hand { split i by 1024; stage x, b, y, z in ub depth 1; }",
    ),
    (
        "saturate_f32_i32_i16",
        "kernel saturate_f32_i32_i16(x: [f32; 4096], w: [i32; 4096]) -> (y: [i32; 4096], z: [i16; 4096]) {
            y[i] = (x[i] * 65536.0) as sat i32;
            z[i] = w[i] as sat i16;
        }
        target ascend910b;
        schedule hand { split i by 1024; stage x, w, y, z in ub depth 1; }",
    ),
    (
        "quantise_f16_i8_310p",
        "kernel quantise_f16_i8_310p(x: [f16; 8192]) -> (y: [i8; 8192], z: [f16; 8192]) {
            y[i] = x[i] as sat i8;
            z[i] = x[i] as sat i8 as f16;
        }
        target ascend310p;
        schedule hand { split i by 1024; stage x, y, z in ub depth 1; }",
    ),
    (
        "copy_u8_rows",
        "kernel copy_u8_rows(x: [u8; 64, 128]) -> y: [u8; 64, 64] {
            y[i, j] = x[i, j + 32];
        }
        target ascend910b;
        schedule hand { split i by 16; stage x, y in ub depth 2; }",
    ),
    (
        "cumsum_unaligned_rows",
        "kernel cumsum_unaligned_rows(x: [f32; 16, 100]) -> y: [f32; 16, 100] {
            y[i, k] = cumsum[k](x[i, k]);
        }
        target ascend910b;
        schedule hand { split i by 8; stage x, y in ub depth 1; }",
    ),
    (
        "cumsum_columns",
        "kernel cumsum_columns(h: [f16; 64, 48]) -> z: [f16; 64, 48] {
            z[i, k] = cumsum[i](h[i, k]);
        }
        target ascend910b;
        schedule hand { split k by 16; stage h, z in ub depth 2; }",
    ),
    (
        "bits_u16",
        "kernel bits_u16(a: [u16; 4096], b: [u16; 4096], c: [u16; 4096]) -> y: [u16; 4096] {
            y[i] = (a[i] & b[i]) | c[i];
        }
        target ascend910b;
        schedule hand { split i by 1024; stage a, b, c, y in ub depth 1; }",
    ),
];

/// The [`UNCOVERED`] kernels, checked; they live as long as the test binary.
fn uncovered() -> Vec<(&'static str, &'static CheckedKernel)> {
    UNCOVERED
        .iter()
        .map(|(name, source)| {
            let target = source
                .split("target ")
                .nth(1)
                .and_then(|rest| rest.split(';').next())
                .expect("a target line");
            let target = npu_core::Target::preset(target).expect("the preset");
            let checked = npu_core::check_source(source, &target)
                .unwrap_or_else(|d| panic!("{}", d.render(source)));
            (*name, &*Box::leak(Box::new(checked)))
        })
        .collect()
}

/// Each kernel of docs/suite.json whose target is of `family` with the
/// fastest schedule the tuner recorded (grid, random or heuristic), checked again
/// from its text. The kernels live as long as the test binary.
pub(crate) fn tuned(family: npu_core::Family) -> Vec<(String, &'static CheckedKernel)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/suite.json");
    let text = std::fs::read_to_string(path).expect("docs/suite.json");
    let suite: serde_json::Value = serde_json::from_str(&text).expect("docs/suite.json is JSON");
    let rows = suite["rows"].as_array().expect("rows");
    let mut tuned = Vec::new();
    for row in rows {
        let name = row["kernel"].as_str().expect("a kernel name");
        let Some(bundled) = npu_tune::kernels::Bundled::find(name) else {
            continue;
        };
        let kernel = (bundled.kernel)();
        if kernel.target.family != family {
            continue;
        }
        let best = ["grid", "random", "heuristic"]
            .into_iter()
            .filter_map(|kind| {
                Some((
                    row[kind].as_u64()?,
                    row[format!("{kind}_schedule")].as_str()?,
                ))
            })
            .min_by_key(|(cycles, _)| *cycles);
        let Some((_, schedule)) = best else {
            continue;
        };
        // The canonical text puts the schedules last, each at the start of a line.
        let head = kernel
            .source
            .find("\nschedule ")
            .map_or(kernel.source.as_str(), |at| &kernel.source[..=at]);
        let source = format!("{head}{schedule}");
        let checked = npu_core::check_source(&source, &kernel.target).unwrap_or_else(|d| {
            panic!(
                "the tuned schedule of {name} does not check:\n{}",
                d.render(&source)
            )
        });
        tuned.push((format!("{name} (tuned)"), &*Box::leak(Box::new(checked))));
    }
    tuned
}

/// Emits schedule `schedule` of `kernel` as a case, or records why it is skipped.
fn add(suite: &mut Suite, name: &str, kernel: &'static CheckedKernel, schedule: usize) {
    let program = npu_core::lower::lower_compact(kernel, schedule);
    match emit(&program, &kernel.target, kernel, Backend::AscendC) {
        Ok(emitted) => {
            let function = npu_emit::symbol(kernel, &program.schedule);
            let file = emitted.file(&format!("{}_{}.cpp", program.kernel, program.schedule));
            let source = file.expect("the kernel source").text.clone();
            let target = kernel.target.clone();
            let case = Case {
                function,
                source,
                program,
                target,
            };
            suite.0.push((case, kernel));
        }
        Err(unsupported) => suite.1.push((name.to_string(), unsupported.to_string())),
    }
}

/// The simulator's outputs of `case` on `inputs`, as bytes.
pub(crate) fn simulated(
    case: &Case,
    kernel: &CheckedKernel,
    inputs: &[HostTensor],
) -> Vec<Vec<u8>> {
    let simulation = simulate(kernel, &case.program, inputs, &SimOptions::default())
        .unwrap_or_else(|e| panic!("{} does not simulate: {e}", case.function));
    simulation
        .outputs
        .iter()
        .map(|t| t.bytes().to_vec())
        .collect()
}

/// The first element where two outputs differ, for the failure message.
pub(crate) fn first_difference(expected: &[Vec<u8>], got: &[Vec<u8>]) -> String {
    for (index, (e, g)) in expected.iter().zip(got).enumerate() {
        if let Some(byte) = e.iter().zip(g).position(|(a, b)| a != b) {
            let word = byte / 4 * 4..(byte / 4 * 4 + 4).min(e.len()).min(g.len());
            return format!(
                "output {index} differs first at byte {byte}: expected {:02x?}, got {:02x?}",
                &e[word.clone()],
                &g[word]
            );
        }
        if e.len() != g.len() {
            return format!("output {index} has {} bytes, not {}", g.len(), e.len());
        }
    }
    "outputs differ in number".into()
}

/// One case's inputs and the simulator's outputs on them: random, then edge values.
type Expectation = Vec<(&'static str, Vec<HostTensor>, Vec<Vec<u8>>)>;

/// What the simulator computes for every case; runs beside the C++ compiles.
fn expectations(cases: &[(Case, &'static CheckedKernel)]) -> Vec<Expectation> {
    cases
        .par_iter()
        .map(|(case, kernel)| {
            [
                ("random", kernel.random_inputs(1)),
                ("edges", kernel.edge_inputs(2)),
            ]
            .into_iter()
            .map(|(tag, inputs)| {
                let expected = simulated(case, kernel, &inputs);
                (tag, inputs, expected)
            })
            .collect()
        })
        .collect()
}

/// Runs every case's binary on its inputs; a line per mismatch.
fn mismatches(build: &support::Build, cases: &[Case], expected: &[Expectation]) -> Vec<String> {
    let per_case: Vec<Vec<String>> = cases
        .par_iter()
        .zip(expected)
        .map(|(case, runs)| {
            runs.iter()
                .filter_map(
                    |(tag, inputs, expected)| match build.run(case, inputs, tag) {
                        Ok(got) if got == *expected => None,
                        Ok(got) => Some(format!(
                            "{} on {tag} inputs: {}",
                            case.function,
                            first_difference(expected, &got)
                        )),
                        Err(model) => Some(format!("{} on {tag} inputs: {model}", case.function)),
                    },
                )
                .collect()
        })
        .collect();
    per_case.concat()
}

/// The suite's emitted cases, compiled once for every test that runs them.
pub(crate) struct Compiled {
    pub cases: Vec<(Case, &'static CheckedKernel)>,
    pub skipped: Vec<(String, String)>,
    pub build: support::Build,
}

/// [`Compiled`], built by the first test that asks.
pub(crate) fn compiled() -> &'static Compiled {
    static COMPILED: std::sync::OnceLock<Compiled> = std::sync::OnceLock::new();
    COMPILED.get_or_init(|| {
        let (cases, skipped) = cases();
        let plain: Vec<Case> = cases.iter().map(|(c, _)| c.clone()).collect();
        let build = support::build(&plain);
        Compiled {
            cases,
            skipped,
            build,
        }
    })
}

/// Each kernel the suite adds for coverage is written: one that stopped being written
/// would drop out into the skip list with its coverage.
#[test]
fn the_kernels_added_for_coverage_are_written() {
    let mut suite = (Vec::new(), Vec::new());
    for (name, kernel) in uncovered() {
        add(&mut suite, name, kernel, 0);
    }
    assert!(suite.1.is_empty(), "not written: {:#?}", suite.1);
}

#[test]
fn bundled_ascend_kernels_match_the_simulator_bit_for_bit() {
    let (compiled, expected) = std::thread::scope(|scope| {
        let compiled = scope.spawn(compiled);
        let (cases, _) = cases();
        let expected = expectations(&cases);
        (compiled.join().expect("the build finishes"), expected)
    });
    let (cases, skipped) = (&compiled.cases, &compiled.skipped);
    for (kernel, reason) in skipped {
        println!("skipped {kernel}: {reason}");
    }
    let plain: Vec<Case> = cases.iter().map(|(c, _)| c.clone()).collect();
    let failures = mismatches(&compiled.build, &plain, &expected);
    println!(
        "{} of {} Ascend programs (hand and tuned schedules) written; mismatches: {}",
        cases.len(),
        cases.len() + skipped.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "mismatches:\n{}", failures.join("\n"));
    assert!(
        cases.len() >= AT_LEAST_WRITTEN,
        "only {} kernels written; skipped:\n{skipped:#?}",
        cases.len()
    );
}
