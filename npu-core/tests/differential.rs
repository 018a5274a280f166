//! The differential test of the two guards: over seeded random schedules, legal and
//! illegal, of every kind of kernel on every preset, the checker accepts a schedule
//! exactly when lowering it gives a program the validator finds nothing wrong with.
//!
//! A schedule the checker rejects cannot be lowered from its checked form, so it is
//! checked again against a permissive copy of the target (room, alignment, repeats,
//! events, cores, dtypes and cube without limit), then lowered for the real target and
//! validated against it. A schedule the permissive target rejects too breaks a rule of
//! the language a program cannot show (a tail with no policy, a tile past its extent),
//! so only the checker speaks for it.
//!
//! `NPU_DIFF_SCHEDULES` sets how many random schedules to try (5,000 by default);
//! `NPU_DIFF_SEED` the seed. Disagreements are printed one per class, with a repro.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

use npu_core::ir::CheckedKernel;
use npu_core::lower::{estimate_instructions, lower};
use npu_core::program::Program;
use npu_core::{Dtype, Target, check_source, plan, validate};

/// Kernel templates: `{T}` is the element dtype, `{A}` its accumulator dtype, `{N}`,
/// `{R}`, `{C}` extents, `{U}` a second dtype. Then the staged tensors, and whether
/// the kernel needs a float dtype (it has float constants or `exp`).
const TEMPLATES: &[(&str, &str, bool)] = &[
    (
        "kernel vmla(a: [{T}; {N}], b: [{T}; {N}], c: [{T}; {N}]) -> y: [{T}; {N}] { y[i] = a[i] * b[i] + c[i]; }",
        "a, b, c, y",
        false,
    ),
    (
        "kernel copy1(x: [{T}; {N}]) -> y: [{T}; {N}] { y[i] = x[i]; }",
        "x, y",
        false,
    ),
    (
        "kernel copy2(x: [{T}; {R}, {C}]) -> y: [{T}; {R}, {C}] { y[i, j] = x[i, j]; }",
        "x, y",
        false,
    ),
    (
        "kernel fill(x: [{T}; {N}]) -> (y: [{T}; {N}], z: [{T}; {N}]) { y[i] = 1.5; z[i] = x[i]; }",
        "x, y, z",
        true,
    ),
    (
        "kernel add_bias(x: [{T}; {R}, {C}], bias: [{T}; {C}]) -> y: [{T}; {R}, {C}] { y[i, j] = x[i, j] + bias[j]; }",
        "x, bias, y",
        false,
    ),
    (
        "kernel row_bias(x: [{T}; {R}, {C}], bias: [{T}; {C}]) -> y: [{T}; {R}, {C}] { y[i, j] = bias[j]; }",
        "bias, y",
        false,
    ),
    (
        "kernel row_sum(x: [{T}; {R}, {C}]) -> y: [{T}; {R}] { y[i] = sum[k](x[i, k]); }",
        "x, y",
        false,
    ),
    (
        "kernel row_max(x: [{T}; {R}, {C}]) -> y: [{A}; {R}] { y[i] = max[k](x[i, k] as {A}); }",
        "x, y",
        false,
    ),
    (
        "kernel softmax_like(x: [{T}; {R}, {C}], m: [{T}; {R}], s: [{T}; {R}]) -> y: [{T}; {R}, {C}] { y[i, j] = exp(x[i, j] - m[i]) / s[i]; }",
        "x, m, s, y",
        true,
    ),
    (
        "kernel cast(x: [{T}; {R}, {C}]) -> y: [{U}; {R}, {C}] { y[i, j] = x[i, j] as {U}; }",
        "x, y",
        false,
    ),
    (
        "kernel relu_mask(x: [{T}; {N}], t: [{T}; 1]) -> y: [{T}; {N}] { y[i] = select(x[i] > t[0], x[i], 0.0 - x[i]); }",
        "x, t, y",
        true,
    ),
    (
        "kernel exp_sum(x: [{T}; {R}, {C}], w: [{T}; {R}]) -> (y: [{T}; {R}], z: [{A}; {R}]) { y[i] = sum[k](exp(x[i, k] - w[i])); z[i] = max[k](x[i, k] as {A}) - min[k](x[i, k] as {A}) * 0.5; }",
        "x, w, y, z",
        true,
    ),
    (
        "kernel pick(x: [{T}; {R}, {C}]) -> y: [{T}; {R}] { y[i] = x[i, 3] + x[i, 3]; }",
        "x, y",
        false,
    ),
    (
        "kernel transpose_add(x: [{T}; {C}, {R}], z: [{T}; {R}, {C}]) -> y: [{T}; {R}, {C}] { y[i, j] = x[j, i] + z[i, j]; }",
        "x, z, y",
        false,
    ),
    (
        "kernel folded(x: [{T}; {N}]) -> y: [{T}; {N}] { y[i] = x[i] * ((2.0 as f32) as {T}); }",
        "x, y",
        true,
    ),
    (
        "kernel scale3(x: [{T}; 4, {R}, {C}], s: [{T}; 4], bias: [{T}; {C}]) -> y: [{T}; 4, {R}, {C}] { y[b, i, j] = x[b, i, j] * s[b] + bias[j]; }",
        "x, s, bias, y",
        false,
    ),
];

const DTYPES: [&str; 6] = ["f16", "f32", "bf16", "i16", "i32", "i8"];
const EXTENTS_1D: [u64; 8] = [1000, 2048, 4000, 4096, 8192, 10000, 16384, 1736];
const ROWS: [u64; 7] = [4, 8, 16, 40, 64, 3, 33];
const COLUMNS: [u64; 11] = [16, 64, 100, 128, 217, 256, 1020, 50, 1000, 80, 24];
const TILES: [u64; 20] = [
    8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 16384, 3, 5, 24, 100, 200, 217, 250, 1000, 12,
];
const CORES: [u64; 8] = [2, 3, 4, 8, 16, 40, 48, 1];

/// SplitMix64: a tiny seeded generator.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

fn accumulator(dtype: &str) -> &'static str {
    match dtype {
        "f16" | "bf16" | "f32" => "f32",
        _ => "i32",
    }
}

/// A random vector kernel and schedule, as text.
fn vector_case(random: &mut Random, target: &str) -> String {
    let (template, staged, float) = random.pick(TEMPLATES);
    let dtype = if float && random.chance(90) {
        random.pick(&["f16", "f32", "bf16"])
    } else {
        random.pick(&DTYPES)
    };
    let extent = random.pick(&EXTENTS_1D);
    let rows = random.pick(&ROWS);
    let columns = random.pick(&COLUMNS);
    let kernel = template
        .replace("{T}", dtype)
        .replace("{A}", accumulator(dtype))
        .replace("{U}", random.pick(&DTYPES))
        .replace("{N}", &extent.to_string())
        .replace("{R}", &rows.to_string())
        .replace("{C}", &columns.to_string());
    let axes: Vec<(&str, u64)> = if kernel.contains("[b, i, j]") {
        vec![("b", 4), ("i", rows), ("j", columns)]
    } else if kernel.contains("[i, j]") {
        vec![("i", rows), ("j", columns)]
    } else if kernel.contains("[k]") {
        vec![("i", rows), ("k", columns)]
    } else if kernel.contains("x[i, 3]") {
        vec![("i", rows)]
    } else {
        vec![("i", extent)]
    };
    let mut items = Vec::new();
    let mut cores = 1;
    if random.chance(40) {
        cores = random.pick(&CORES);
        items.push(format!("parallel {} over {cores} cores;", axes[0].0));
    }
    for (position, (axis, extent)) in axes.iter().enumerate() {
        if random.chance(65) {
            // Mostly tiles that fit the axis and leave every core work.
            let share = if position == 0 {
                extent.div_ceil(cores)
            } else {
                *extent
            };
            let fitting: Vec<u64> = TILES.iter().copied().filter(|t| *t <= share).collect();
            let tile = if fitting.is_empty() || random.chance(5) {
                random.pick(&TILES)
            } else {
                random.pick(&fitting)
            };
            items.push(format!("split {axis} by {tile};"));
        }
    }
    if axes.len() == 2 && axes[1].0 == "j" && random.chance(15) {
        items.push("order j, i;".to_string());
    }
    if random.chance(30) {
        // A depth per tensor.
        for tensor in staged.split(", ") {
            items.push(format!(
                "stage {tensor} in ub depth {};",
                1 + random.below(3)
            ));
        }
    } else {
        items.push(format!(
            "stage {staged} in ub depth {};",
            1 + random.below(3)
        ));
    }
    items.push(tail(random));
    format!(
        "{kernel}\ntarget {target};\nschedule s {{ {} }}",
        items.join(" ")
    )
}

fn tail(random: &mut Random) -> String {
    random
        .pick(&["tail pad;", "tail exact;", "", "tail pad;"])
        .to_string()
}

/// A random matmul and schedule, as text.
fn matmul_case(random: &mut Random, target: &str) -> String {
    let dtype = random.pick(&["f16", "bf16", "i8", "f32"]);
    let accumulator = accumulator(dtype);
    let output = if random.chance(30) {
        dtype
    } else {
        accumulator
    };
    let [m, n, k] = [
        random.pick(&[32u64, 64, 100, 128, 48]),
        random.pick(&[32u64, 64, 40, 128]),
        random.pick(&[32u64, 64, 80, 256]),
    ];
    let result = if output == accumulator {
        format!("sum[k](a[m, k] as {accumulator} * b[k, n] as {accumulator})")
    } else {
        format!("sum[k](a[m, k] as {accumulator} * b[k, n] as {accumulator}) as {output}")
    };
    let kernel = format!(
        "kernel mm(a: [{dtype}; {m}, {k}], b: [{dtype}; {k}, {n}]) -> c: [{output}; {m}, {n}] {{ c[m, n] = {result}; }}"
    );
    let mut items = Vec::new();
    if random.chance(30) {
        items.push(format!(
            "parallel {} over {} cores;",
            random.pick(&["m", "n"]),
            random.pick(&CORES)
        ));
    }
    // Blocks that fit their axis, tiles of whole blocks, now and then neither.
    let mut cube = [0u64; 3];
    for (slot, (axis, extent)) in [("m", m), ("n", n), ("k", k)].into_iter().enumerate() {
        let fitting: Vec<u64> = [16u64, 32, 64, 128]
            .into_iter()
            .filter(|b| *b <= extent)
            .collect();
        cube[slot] = if random.chance(5) {
            24
        } else {
            random.pick(&fitting)
        };
        let whole = extent / cube[slot] * cube[slot];
        let split = (cube[slot] * (1 + random.below(3))).min(whole.max(cube[slot]));
        let tile = if random.chance(5) { split + 8 } else { split };
        if random.chance(50) || !extent.is_multiple_of(cube[slot]) {
            items.push(format!("split {axis} by {tile};"));
        }
    }
    items.push(format!(
        "cube m by {}, n by {}, k by {};",
        cube[0], cube[1], cube[2]
    ));
    let depth = |random: &mut Random| 1 + random.below(2);
    items.push(format!("stage a, b in l1 depth {};", depth(random)));
    items.push(format!("stage a in l0a depth {};", depth(random)));
    items.push(format!("stage b in l0b depth {};", depth(random)));
    items.push(format!("stage c in l0c depth {};", depth(random)));
    items.push(tail(random));
    format!(
        "{kernel}\ntarget {target};\nschedule s {{ {} }}",
        items.join(" ")
    )
}

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
    open.vector.dtypes.push(Dtype::U8);
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
        schedule.buffers = plan::buffers(
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
    too_large: u64,
    /// Class to (count, shortest repro, detail).
    disagreements: BTreeMap<String, (u64, String, String)>,
}

impl Tally {
    fn add(&mut self, source: &str, target: &Target) {
        self.tried += 1;
        match judge(source, target) {
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
    let mut random = Random(seed);
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
    assert!(
        tally.accepted > count / 10 && tally.rejected > count / 10,
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
    // (d) E025 counts the event ids of slots no tile ever fills.
    (
        "ascend910b",
        "kernel vmla(a: [f16; 4096], b: [f16; 4096], c: [f16; 4096]) -> y: [f16; 4096] { y[i] = a[i] * b[i] + c[i]; }
         target ascend910b; schedule s { stage a, b, c, y in ub depth 3; }",
        true,
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

/// The validator itself, on programs lowered from legal schedules made wrong by hand.
#[test]
fn the_validator_names_what_a_program_breaks() {
    let target = Target::preset("ascend910b").expect("a preset");
    let source = "kernel vmla(a: [f16; 8192], b: [f16; 8192], c: [f16; 8192]) -> y: [f16; 8192] { y[i] = a[i] * b[i] + c[i]; }
        target ascend910b; schedule s { split i by 1024; stage a, b, c, y in ub depth 2; }";
    let kernel = check_source(source, &target).expect("legal");
    let program = lower(&kernel, 0);
    assert_eq!(validate(&program, &target), Ok(()));
    let cases: [(&str, fn(&mut Program)); 5] = [
        ("capacity", |p| p.buffers[0].address = 196_608),
        ("events", |p| {
            let v = &mut p.classes[0].streams[npu_core::Pipe::V.index()];
            let at = v
                .iter()
                .position(|i| matches!(i.op, npu_core::program::Op::WaitFlag { .. }))
                .expect("a wait");
            v.remove(at);
        }),
        ("cores", |p| p.requested_cores = 41),
        ("repeats", |p| {
            p.boxes[0] = vec![65536];
        }),
        ("alignment", |p| {
            let mte2 = &mut p.classes[0].streams[npu_core::Pipe::Mte2.index()];
            for instr in mte2 {
                if let npu_core::program::Op::CopyIn { address, .. } = &mut instr.op {
                    *address += 2;
                }
            }
        }),
    ];
    for (rule, break_it) in cases {
        let mut broken = program.clone();
        break_it(&mut broken);
        let violations = validate(&broken, &target).expect_err(rule);
        assert!(
            violations.iter().any(|v| v.rule.name() == rule),
            "{rule}: {violations:?}"
        );
    }
}
