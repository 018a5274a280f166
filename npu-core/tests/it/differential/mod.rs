//! The differential test of the two guards: over seeded random schedules, legal and
//! illegal, of every kind of kernel on every preset, the checker accepts a schedule
//! exactly when lowering it gives a program the validator finds nothing wrong with.
//!
//! A schedule the checker rejects cannot be lowered from its checked form, so it is
//! checked again against a permissive copy of the target (room, alignment, repeats,
//! events, cores, dtypes and cube without limit), then lowered for the real target and
//! validated against it. A schedule the permissive target rejects too breaks a rule of
//! the language a program cannot show (a tail with no policy, a tile past its extent),
//! so only the checker speaks for it. For every accepted schedule the test also checks
//! that the permissive path lowers the very program the real one does, so the programs
//! it validates for rejected schedules are the ones lowering would emit.
//!
//! `NPU_DIFF_SCHEDULES` sets how many random schedules to try (5,000 by default);
//! `NPU_DIFF_SEED` the seed. Disagreements are printed one per class, with a repro.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

use npu_core::internal::buffer_plan;
use npu_core::ir::CheckedKernel;
use npu_core::lower::{estimate_instructions, lower};
use npu_core::{Dtype, Target, check_source, validate};

use generate::{DTYPES, Random, matmul_case, vector_case};

#[allow(dead_code)] // The guards test uses part of it too.
pub(crate) mod generate;

/// The target with every limit the validator checks lifted, and alignment 1.
fn permissive(target: &Target) -> Target {
    let mut open = target.clone();
    let room = 1 << 30;
    open.memory.ub = room;
    open.memory.l1 = room;
    open.memory.l0a = room;
    open.memory.l0b = room;
    open.memory.l0c = room;
    open.align.ub = 1;
    open.align.l1 = 1;
    open.align.l0a = 1;
    open.align.l0b = 1;
    open.align.l0c = 1;
    open.events = 1 << 15;
    open.cores.vector = 1 << 12;
    open.cores.cube = 1 << 12;
    open.vector.max_repeat = u64::MAX / 1024;
    open.vector.dtypes = DTYPES.iter().filter_map(|d| Dtype::from_name(d)).collect();
    open.vector
        .dtypes
        .extend([Dtype::U8, Dtype::U16, Dtype::U32]);
    let mut cube = open.cube.clone().unwrap_or_else(|| {
        Target::preset("ascend910b")
            .and_then(|t| t.cube)
            .expect("ascend910b has a cube")
    });
    (cube.m, cube.n, cube.k) = (1, 1, 1);
    cube.dtypes = open.vector.dtypes.clone();
    open.cube = Some(cube);
    open
}

/// What one side says about a schedule.
#[derive(Debug)]
enum Verdict {
    /// The checker and the validator agree.
    Agree {
        accepted: bool,
    },
    /// Both the real and the permissive checker reject: no program to validate. The
    /// permissive checker's codes.
    LanguageRule(String),
    /// Too many instructions to lower in a test.
    TooLarge,
    Disagree {
        class: String,
        detail: String,
    },
}

const INSTRUCTION_LIMIT: u64 = 400_000;

fn judge(source: &str, target: &Target) -> Verdict {
    let checked = check_source(source, target);
    let (kernel, codes) = match &checked {
        Ok(kernel) => (kernel.clone(), String::new()),
        Err(diagnostics) => {
            let codes = codes_of(diagnostics);
            match check_source(source, &permissive(target)) {
                Ok(kernel) => (for_target(kernel, target), codes),
                Err(open) => return Verdict::LanguageRule(codes_of(&open)),
            }
        }
    };
    if estimate_instructions(&kernel, &kernel.schedules[0]) > INSTRUCTION_LIMIT {
        return Verdict::TooLarge;
    }
    let program = match catch_unwind(AssertUnwindSafe(|| lower(&kernel, 0))) {
        Ok(program) => program,
        Err(_) => {
            return Verdict::Disagree {
                class: "lowering panics".into(),
                detail: "lower() panicked".into(),
            };
        }
    };
    // The harness lowers rejected schedules through the permissive target; for an
    // accepted one that path must give the very program the real one does.
    if checked.is_ok() {
        let through_permissive = check_source(source, &permissive(target))
            .ok()
            .map(|open| lower(&for_target(open, target), 0));
        if through_permissive.as_ref() != Some(&program) {
            return Verdict::Disagree {
                class: "harness: the permissive path lowers another program".into(),
                detail: "lower(for_target(check(permissive))) != lower(check(target))".into(),
            };
        }
    }
    let validated = validate(&program, target);
    match (&checked, validated) {
        (Ok(_), Ok(())) => Verdict::Agree { accepted: true },
        (Err(_), Err(_)) => Verdict::Agree { accepted: false },
        (Ok(_), Err(violations)) => Verdict::Disagree {
            class: format!(
                "{}: checker accepts; validator: {}",
                tail_of(source),
                shape_of(&violations[0].to_string())
            ),
            detail: violations
                .iter()
                .take(3)
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join("\n"),
        },
        (Err(diagnostics), Ok(())) => Verdict::Disagree {
            class: {
                let mut shapes: Vec<String> = diagnostics
                    .list
                    .iter()
                    .map(|d| shape_of(&d.message))
                    .collect();
                shapes.sort();
                shapes.dedup();
                format!(
                    "{}: checker rejects ({codes}: {}); validator accepts",
                    tail_of(source),
                    shapes.join("; ")
                )
            },
            detail: diagnostics
                .list
                .iter()
                .map(|d| format!("{:?} {}", d.code, d.message))
                .collect::<Vec<_>>()
                .join("\n"),
        },
    }
}

/// The distinct codes of some diagnostics, as `E021+E025`.
fn codes_of(diagnostics: &npu_core::Diagnostics) -> String {
    let mut codes: Vec<String> = diagnostics
        .list
        .iter()
        .map(|d| format!("{:?}", d.code))
        .collect();
    codes.sort();
    codes.dedup();
    codes.join("+")
}

/// A kernel checked on the permissive target, made to lower for `target`: its plan
/// sized with `target`'s alignment.
fn for_target(mut kernel: CheckedKernel, target: &Target) -> CheckedKernel {
    kernel.target = target.clone();
    let mut schedules = std::mem::take(&mut kernel.schedules);
    for schedule in &mut schedules {
        schedule.buffers = buffer_plan(
            &kernel,
            target,
            &schedule.tiles,
            schedule.cube,
            &schedule.stages,
        );
    }
    kernel.schedules = schedules;
    kernel
}

/// The schedule's tail policy, which most alignment rules turn on.
fn tail_of(source: &str) -> &'static str {
    ["tail pad", "tail exact"]
        .into_iter()
        .find(|policy| source.contains(policy))
        .unwrap_or("no tail policy")
}

/// A text with the numbers and addresses taken out, to group by.
fn shape_of(text: &str) -> String {
    let mut out = String::new();
    let mut in_backticks = false;
    for c in text.chars() {
        match c {
            '`' => {
                in_backticks = !in_backticks;
                out.push_str(if in_backticks { "`…" } else { "`" });
            }
            _ if in_backticks => {}
            '0'..='9' => {
                // Dtypes too: `f16` and `i32` group together as `T`.
                let dtype = ["f", "bf", "i", "u"]
                    .iter()
                    .find(|prefix| out.ends_with(&format!(" {prefix}")));
                if let Some(prefix) = dtype {
                    out.truncate(out.len() - prefix.len());
                    out.push('T');
                } else if !out.ends_with('N') && !out.ends_with('T') {
                    out.push('N');
                }
            }
            _ => out.push(c),
        }
    }
    out.split("core class N at `…`: ")
        .collect::<Vec<_>>()
        .join("")
}

#[derive(Default)]
struct Tally {
    tried: u64,
    accepted: u64,
    rejected: u64,
    language: u64,
    /// Language-rule rejections by their codes.
    language_codes: BTreeMap<String, u64>,
    /// Per kernel name: accepted by both, rejected by both, disagreements.
    by_kernel: BTreeMap<String, [u64; 3]>,
    too_large: u64,
    /// Class to (count, shortest repro, detail).
    disagreements: BTreeMap<String, (u64, String, String)>,
}

impl Tally {
    fn add(&mut self, source: &str, target: &Target) {
        self.tried += 1;
        let kernel = source
            .split_whitespace()
            .nth(1)
            .and_then(|name| name.split('(').next())
            .unwrap_or("?")
            .to_string();
        let verdict = judge(source, target);
        let counts = self.by_kernel.entry(kernel).or_default();
        match verdict {
            Verdict::Agree { accepted: true } => counts[0] += 1,
            Verdict::Agree { .. } | Verdict::LanguageRule(_) => counts[1] += 1,
            Verdict::TooLarge => {}
            Verdict::Disagree { .. } => counts[2] += 1,
        }
        match verdict {
            Verdict::Agree { accepted: true } => self.accepted += 1,
            Verdict::Agree { accepted: false } => self.rejected += 1,
            Verdict::LanguageRule(codes) => {
                self.rejected += 1;
                self.language += 1;
                *self.language_codes.entry(codes).or_default() += 1;
            }
            Verdict::TooLarge => self.too_large += 1,
            Verdict::Disagree { class, detail } => {
                let entry = self
                    .disagreements
                    .entry(class)
                    .or_insert_with(|| (0, source.to_string(), detail.clone()));
                entry.0 += 1;
                if source.len() < entry.1.len() {
                    (entry.1, entry.2) = (source.to_string(), detail);
                }
            }
        }
    }

    fn report(&self) -> String {
        let disagreeing: u64 = self.disagreements.values().map(|d| d.0).sum();
        let mut text = format!(
            "{} schedules tried: {} accepted by both, {} rejected by both ({} by language rules only), {} too large to lower, {} disagreements in {} classes\n",
            self.tried,
            self.accepted,
            self.rejected,
            self.language,
            self.too_large,
            disagreeing,
            self.disagreements.len()
        );
        let codes: Vec<String> = self
            .language_codes
            .iter()
            .map(|(codes, count)| format!("{codes} {count}"))
            .collect();
        text.push_str(&format!("language rules: {}\n", codes.join(", ")));
        let kernels: Vec<String> = self
            .by_kernel
            .iter()
            .map(|(name, [accepted, rejected, disagreeing])| {
                format!("{name} {accepted}/{rejected}/{disagreeing}")
            })
            .collect();
        text.push_str(&format!(
            "by kernel (accepted/rejected/disagreeing): {}\n",
            kernels.join(", ")
        ));
        for (class, (count, source, detail)) in &self.disagreements {
            text.push_str(&format!(
                "\n== {class} ({count} schedules)\n{source}\n-- {detail}\n"
            ));
        }
        text
    }
}

#[test]
fn checker_and_validator_agree_on_random_schedules() {
    let count: u64 = std::env::var("NPU_DIFF_SCHEDULES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5_000);
    let seed: u64 = std::env::var("NPU_DIFF_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    let targets: Vec<Target> = Target::preset_names()
        .into_iter()
        .map(|name| Target::preset(name).expect("a preset"))
        .collect();
    let mut random = Random::new(seed);
    let mut tally = Tally::default();
    for index in 0..count {
        let target = &targets[index as usize % targets.len()];
        let source = if random.chance(20) {
            matmul_case(&mut random, &target.name)
        } else {
            vector_case(&mut random, &target.name)
        };
        tally.add(&source, target);
    }
    let report = tally.report();
    println!("{report}");
    // A generator that makes only legal or only illegal schedules tests half the claim.
    assert!(
        count < 1000 || (tally.accepted > count / 10 && tally.rejected > count / 10),
        "the generator must make both legal and illegal schedules: {report}"
    );
    assert!(tally.disagreements.is_empty(), "{report}");
}

/// Named cases, each a disagreement the random test found once (DISAGREEMENTS.md has
/// the analysis): the target, the kernel and schedule, and whether the schedule is
/// legal, that is whether its lowered program breaks none of the target's rules.
const REGRESSIONS: &[(&str, &str, bool)] = &[
    // (a) A plain copy over 16384 f32 is one vcopy of 256 repeats; E022 skipped roots
    // that are a load, a broadcast or a constant.
    (
        "ascend910b",
        "kernel copy1(x: [f32; 16384]) -> y: [f32; 16384] { y[i] = x[i]; }
         target ascend910b; schedule s { split i by 16384; stage x, y in ub; }",
        false,
    ),
    (
        "ascend910b",
        "kernel fill(x: [i32; 16384]) -> (y: [i32; 16384], z: [i32; 16384]) { y[i] = 1.5; z[i] = x[i]; }
         target ascend910b; schedule s { stage x, y, z in ub; }",
        false,
    ),
    // (b) Whole rows are one contiguous burst whatever the row length: E021 looked at
    // the stride one dimension too far in.
    (
        "ascend910b",
        "kernel rows(x: [f32; 64, 217]) -> y: [f32; 64] { y[i] = sum[k](x[i, k]); }
         target ascend910b; schedule s { split i by 8; stage x, y in ub; }",
        true,
    ),
    (
        "ascend910b",
        "kernel whole(x: [f16; 4, 1020]) -> y: [f16; 4, 1020] { y[i, j] = x[i, j] + x[i, j]; }
         target ascend910b; schedule s { stage x, y in ub; }",
        true,
    ),
    (
        "ascend910b",
        "kernel small(x: [i8; 16, 16]) -> y: [i8; 16, 16] { y[i, j] = x[i, j]; }
         target ascend910b; schedule s { stage x, y in ub; }",
        true,
    ),
    // (c) Under `tail pad` a copy that is one burst may have any length: E021's tile
    // rule still asks for an aligned tile.
    (
        "ascend910b",
        "kernel copy1(x: [f16; 4096]) -> y: [f16; 4096] { y[i] = x[i] + x[i]; }
         target ascend910b; schedule s { split i by 3; stage x, y in ub; tail pad; }",
        true,
    ),
    // (d) A queue reserves an event id per buffer slot, filled or not (as Ascend C's
    // TQue does): three inputs at depth 3 need 9 of the 8 ids, though one tile per
    // core fills slot 0 only. The validator counts the reservations too.
    (
        "ascend910b",
        "kernel vmla(a: [f16; 4096], b: [f16; 4096], c: [f16; 4096]) -> y: [f16; 4096] { y[i] = a[i] * b[i] + c[i]; }
         target ascend910b; schedule s { stage a, b, c, y in ub depth 3; }",
        false,
    ),
    // (e) E033 holds `tail exact` copies to the alignment of l0a/l0b, which no copy
    // from global memory fills.
    (
        "ascend910b",
        "kernel mm(a: [bf16; 64, 32], b: [bf16; 32, 128]) -> c: [f32; 64, 128] { c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32); }
         target ascend910b; schedule s { split m by 16; split n by 48; cube m by 16, n by 16, k by 32; stage a, b in l1; stage a in l0a; stage b in l0b; stage c in l0c; tail exact; }",
        true,
    ),
    // (f) Under `tail pad` the padded bursts of a copy of several bursts need aligned
    // room on chip, which the dense tile does not have.
    (
        "npueval_demo",
        "kernel scale3(x: [bf16; 4, 40, 100], s: [bf16; 4], bias: [bf16; 100]) -> y: [bf16; 4, 40, 100] { y[b, i, j] = x[b, i, j] * s[b] + bias[j]; }
         target npueval_demo; schedule s { split i by 5; stage x, s, bias, y in ub; tail pad; }",
        false,
    ),
    (
        "aie2_tile",
        "kernel pick(x: [i8; 3, 64]) -> y: [i8; 3] { y[i] = x[i, 3] + x[i, 3]; }
         target aie2_tile; schedule s { stage x, y in ub; tail pad; }",
        false,
    ),
    // (g) E022 counts a constant subexpression lowering folds into a scalar.
    (
        "ascend910b",
        "kernel folded(x: [f16; 16384]) -> y: [f16; 16384] { y[i] = x[i] * ((2.0 as f32) as f16); }
         target ascend910b; schedule s { stage x, y in ub; tail pad; }",
        true,
    ),
    // Lowering, fixed: under `tail pad` a copy whose rows start a misaligned stride
    // apart in global memory is padded, and so is one that starts misaligned (rows of
    // 50 B, tiles of 24 rows).
    (
        "ascend910b",
        "kernel strided(x: [f32; 8, 100]) -> y: [f32; 8, 100] { y[i, j] = x[i, j] * 2.0; }
         target ascend910b; schedule s { split j by 8; stage x, y in ub; tail pad; }",
        true,
    ),
    (
        "aie2_tile",
        "kernel copy2(x: [i8; 40, 50]) -> y: [i8; 40, 50] { y[i, j] = x[i, j] + x[i, j]; }
         target aie2_tile; schedule s { split i by 24; stage x, y in ub; tail pad; }",
        true,
    ),
];

#[test]
fn named_disagreements_stay_fixed() {
    let mut failures = Vec::new();
    for (name, source, legal) in REGRESSIONS {
        let target = Target::preset(name).expect("a preset");
        let checker = check_source(source, &target).is_ok();
        let verdict = judge(source, &target);
        let agreed = matches!(verdict, Verdict::Agree { accepted } if accepted == *legal);
        if !agreed || checker != *legal {
            failures.push(format!(
                "{source}\n  legal: {legal}, checker accepts: {checker}, verdict: {verdict:?}"
            ));
        }
    }
    println!(
        "{} of {} named cases agree",
        REGRESSIONS.len() - failures.len(),
        REGRESSIONS.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
