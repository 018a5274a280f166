//! The checker's schedule rules against the validator, and against themselves:
//! regression cases of issue 23 (items 3, 4, 5 and 10), each named by its item, and
//! two properties over seeded random schedules with several violations: every rule is
//! reported whatever else is wrong (item 4), and every help that carries a fix clears
//! the diagnostic it is attached to (item 5).
//!
//! The random schedules come from the differential test's generator, each case seeded
//! by fastrand. `NPU_GUARDS_SEED` sets the seed.

use std::collections::{BTreeMap, BTreeSet};

use npu_core::internal::parse_str;
use npu_core::{Code, Diagnostics, Edit, Fix, Target, check_source, lower, print, validate};

use crate::differential::generate;

fn target(name: &str) -> Target {
    Target::preset(name).expect("a preset")
}

fn diagnostics(source: &str, target: &Target) -> Diagnostics {
    match check_source(source, target) {
        Ok(_) => Diagnostics::default(),
        Err(diagnostics) => diagnostics,
    }
}

fn codes(diagnostics: &Diagnostics) -> BTreeSet<Code> {
    diagnostics.list.iter().map(|d| d.code).collect()
}

fn code_counts(diagnostics: &Diagnostics) -> BTreeMap<Code, usize> {
    let mut counts = BTreeMap::new();
    for diagnostic in &diagnostics.list {
        *counts.entry(diagnostic.code).or_default() += 1;
    }
    counts
}

/// Checks `source` on `target`, lowers its first schedule and validates the program.
fn lowers_legally(source: &str, target: &Target) -> Result<(), String> {
    let kernel = check_source(source, target).map_err(|d| format!("{:?}", codes(&d)))?;
    let program = lower(&kernel, 0);
    validate(&program, target).map_err(|violations| {
        violations
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    })
}

const D3: &str =
    "kernel p(x: [f16; 64, 100]) -> y: [f16; 64, 100] { y[r, c] = pad(x, 0)[r, c - 1] * 2.0; }
    target ascend910b;
    schedule s { split r by 8; stage x, y in ub depth 2; tail pad; }";

const D10C: &str = "kernel pp(x: [f16; 8, 46, 46]) -> y: [f16; 8, 46, 46] { y[c, h, w] = pad(x, 0)[c, h - 1, w - 1]; }
    target ascend910b;
    schedule s { parallel c over 8 cores; split c by 1; stage x, y in ub depth 1; tail pad; }";

#[test]
fn item3_padded_rows_land_at_an_aligned_pitch() {
    // Rows of 100 f16 (200 B) land every 224 B, the next multiple of 32; rows of 46
    // f16 (92 B) every 96 B. The plan counts the pitch: 8 rows x 224 B, 46 x 96 B.
    for (source, bytes) in [(D3, 8 * 224), (D10C, 46 * 96)] {
        let target = target("ascend910b");
        let kernel = check_source(source, &target).expect("a legal schedule");
        let x = &kernel.schedules[0].buffers[0];
        assert_eq!((x.name.as_str(), x.bytes), ("x", bytes), "{source}");
        assert_eq!(lowers_legally(source, &target), Ok(()), "{source}");
    }
}

#[test]
fn item3_every_tile_of_a_padded_view_lowers_legally() {
    // Every row tile of a 2-d and a 3-d padded view, on every preset that computes
    // the dtype, is accepted by the checker exactly when its program is legal.
    let mut accepted = 0;
    for preset in ["ascend910b", "ascend310p", "npueval_demo"] {
        let target = target(preset);
        for (dtype, columns) in [("f16", 100), ("f32", 46), ("f16", 7)] {
            for tile in [1, 3, 8, 16] {
                let source = format!(
                    "kernel p(x: [{dtype}; 16, 4, {columns}]) -> y: [{dtype}; 16, 4, {columns}] {{ y[r, h, c] = pad(x, 0)[r, h - 1, c - 1]; }}
                     target {preset};
                     schedule s {{ split r by {tile}; stage x, y in ub depth 2; tail pad; }}"
                );
                if check_source(&source, &target).is_ok() {
                    accepted += 1;
                    assert_eq!(lowers_legally(&source, &target), Ok(()), "{source}");
                }
            }
        }
    }
    assert!(accepted >= 24, "only {accepted} schedules accepted");
}

#[test]
fn item10d_a_narrow_accumulator_over_a_wide_body_counts_wide_repeats() {
    // 128 x 217 f32 elements of 4 B are 434 repeats of 256 B: the fold reads f32.
    let source = "kernel sb(x: [f32; 128, 217]) -> y: [f32; 128] { y[i] = sum[k: bf16](x[i, k]); }
        target npueval_demo;
        schedule s { stage x, y in ub depth 1; }";
    let found = diagnostics(source, &target("npueval_demo"));
    assert_eq!(codes(&found), BTreeSet::from([Code::E022]), "{found:?}");
    assert!(found.list[0].message.contains("434 repeats"), "{found:?}");
    // Rows split to fit: the checker accepts exactly what lowers legally.
    let split = source.replace("{ stage", "{ split i by 64; stage");
    assert_eq!(lowers_legally(&split, &target("npueval_demo")), Ok(()));
}

#[test]
fn item4_every_independent_rule_is_reported() {
    let add = |items: &str| {
        format!(
            "kernel add(a: [f32; 1000000], b: [f32; 1000000]) -> y: [f32; 1000000] {{ y[i] = a[i] + b[i]; }}
             target ascend910b; schedule s {{ {items} }}"
        )
    };
    let cases = [
        (
            add("split i by 24580; stage a, b, y in ub depth 2;"),
            vec![Code::E020, Code::E021, Code::E022, Code::E033],
        ),
        (
            add("parallel i over 41 cores; split i by 16000; stage a, b, y in ub depth 2;"),
            vec![Code::E020, Code::E024, Code::E033],
        ),
    ];
    for (source, expected) in cases {
        let found = codes(&diagnostics(&source, &target("ascend910b")));
        assert_eq!(found, expected.into_iter().collect(), "{source}");
    }
}

#[test]
fn item5_the_e021_help_names_no_edit_that_fails() {
    // Each row of the tile reads one 4-byte `x[i, 0]`: no tile aligns the copies, and
    // `tail pad;` leaves rows 4 B apart on chip, a new E021.
    let source = "kernel col0(x: [f32; 4096, 8]) -> y: [f32; 4096] { y[i] = x[i, 0] * 2.0; }
        target ascend910b;
        schedule s { split i by 512; stage x, y in ub depth 1; }";
    let target = target("ascend910b");
    let found = diagnostics(source, &target);
    assert_eq!(codes(&found), BTreeSet::from([Code::E021]), "{found:?}");
    assert_eq!(
        unchecked_tail_helps(source, &target, &found),
        Vec::<String>::new()
    );
}

/// The helps among `found` that tell the user to add `tail pad;` without carrying it
/// as a fix, whose edit applied leaves the diagnostic or brings another.
fn unchecked_tail_helps(source: &str, target: &Target, found: &Diagnostics) -> Vec<String> {
    let mut failures = Vec::new();
    for diagnostic in &found.list {
        let help = diagnostic.help.as_deref().unwrap_or("");
        let says_pad = help.starts_with("add `tail pad;`") || help.starts_with("use `tail pad;`");
        if diagnostic.fixes.is_empty() && says_pad {
            let fix = Fix {
                schedule: "s".into(),
                edits: vec![Edit::Tail {
                    policy: "pad".into(),
                }],
            };
            if let Some(failure) = apply_and_recheck(source, target, found, diagnostic, &fix) {
                failures.push(failure);
            }
        }
    }
    failures
}

/// Applies `fix` to `source` and checks it again: `None` when the fix clears one
/// diagnostic of `diagnostic`'s code and brings no code more often than `before`.
fn apply_and_recheck(
    source: &str,
    target: &Target,
    before: &Diagnostics,
    diagnostic: &npu_core::Diagnostic,
    fix: &Fix,
) -> Option<String> {
    let mut def = parse_str(source).expect("the case parses");
    if !fix.apply(&mut def) {
        return Some(format!("`{fix}`: no schedule `{}`", fix.schedule));
    }
    let edited = print::kernel(&def);
    let (before, after) = (
        code_counts(before),
        code_counts(&diagnostics(&edited, target)),
    );
    let count = |map: &BTreeMap<Code, usize>, code| map.get(&code).copied().unwrap_or(0);
    let cleared = count(&after, diagnostic.code) < count(&before, diagnostic.code);
    let nothing_new = after.iter().all(|(code, n)| *n <= count(&before, *code));
    (!cleared || !nothing_new).then(|| {
        format!(
            "{source}\n  `{fix}` for [{:?}] {} leaves {after:?} (before {before:?})",
            diagnostic.code, diagnostic.message
        )
    })
}

/// A limit of the target that a rule checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Limit {
    Capacity,
    Alignment,
    Repeats,
    Cores,
    Events,
    Cube,
}

const LIMITS: [Limit; 6] = [
    Limit::Capacity,
    Limit::Alignment,
    Limit::Repeats,
    Limit::Cores,
    Limit::Events,
    Limit::Cube,
];

/// `target` with every limit but `keep` lifted (dtypes stay: they are the kernel's
/// rules, not the schedule's).
fn only(target: &Target, keep: Limit) -> Target {
    let mut open = target.clone();
    if keep != Limit::Capacity {
        let room = 1 << 30;
        let memory = &mut open.memory;
        (memory.ub, memory.l1, memory.l0a, memory.l0b, memory.l0c) = (room, room, room, room, room);
    }
    if keep != Limit::Alignment {
        let align = &mut open.align;
        (align.ub, align.l1, align.l0a, align.l0b, align.l0c) = (1, 1, 1, 1, 1);
    }
    if keep != Limit::Repeats {
        open.vector.max_repeat = u64::MAX / 1024;
    }
    if keep != Limit::Cores {
        open.cores.vector = 1 << 12;
        open.cores.cube = 1 << 12;
    }
    if keep != Limit::Events {
        open.events = 1 << 15;
    }
    if keep != Limit::Cube
        && let Some(cube) = open.cube.as_mut()
    {
        (cube.m, cube.n, cube.k) = (1, 1, 1);
    }
    open
}

/// The codes of the schedule rules that read the tiles, and the code of a cube block
/// that is not a multiple of the fractal, which leaves the tiles unknown (the one
/// cascade a limit of the target can cause; docs/dsl.md, "Diagnostics").
const TILE_RULES: [Code; 4] = [Code::E020, Code::E021, Code::E022, Code::E033];

/// Random schedules with at least two violated schedule rules, from a fastrand seed.
fn random_cases(wanted: usize) -> Vec<(String, Target, Diagnostics)> {
    let seed = std::env::var("NPU_GUARDS_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(23);
    let mut rng = fastrand::Rng::with_seed(seed);
    let targets: Vec<Target> = Target::preset_names().into_iter().map(target).collect();
    let rules = [
        Code::E020,
        Code::E021,
        Code::E022,
        Code::E023,
        Code::E024,
        Code::E025,
        Code::E033,
    ];
    let mut cases = Vec::new();
    for _ in 0..wanted * 40 {
        if cases.len() == wanted {
            break;
        }
        let target = &targets[rng.usize(..targets.len())];
        let mut random = generate::Random::new(rng.u64(..));
        let source = if rng.u8(..100) < 15 {
            generate::matmul_case(&mut random, &target.name)
        } else {
            generate::vector_case(&mut random, &target.name)
        };
        let found = diagnostics(&source, target);
        let violated = codes(&found).intersection(&rules.into()).count();
        if violated >= 2 {
            cases.push((source, target.clone(), found));
        }
    }
    assert_eq!(cases.len(), wanted, "too few schedules with two violations");
    cases
}

#[test]
fn item4_each_rule_fires_in_the_full_check_as_it_does_alone() {
    let mut failures = Vec::new();
    let mut seen: BTreeMap<Code, usize> = BTreeMap::new();
    for (source, target, found) in random_cases(1000) {
        let full = codes(&found);
        for code in &full {
            *seen.entry(*code).or_default() += 1;
        }
        for limit in LIMITS {
            let alone = codes(&diagnostics(&source, &only(&target, limit)));
            let missing: Vec<&Code> = alone
                .difference(&full)
                .filter(|code| !(full.contains(&Code::E023) && TILE_RULES.contains(code)))
                .collect();
            if !missing.is_empty() {
                failures.push(format!(
                    "{source}\n  with only {limit:?} checked: {alone:?}; full check: {full:?}"
                ));
            }
        }
    }
    println!("codes over the schedules: {seen:?}");
    for code in [Code::E020, Code::E021, Code::E022, Code::E024, Code::E033] {
        assert!(
            seen.get(&code).copied().unwrap_or(0) >= 20,
            "too few {code:?}: {seen:?}"
        );
    }
    assert!(
        failures.is_empty(),
        "{} hidden:\n{}",
        failures.len(),
        failures[..failures.len().min(5)].join("\n")
    );
}

#[test]
fn item5_every_fix_on_a_random_schedule_clears_its_diagnostic() {
    let mut failures = Vec::new();
    let mut applied = 0;
    for (source, target, found) in random_cases(1000) {
        for diagnostic in &found.list {
            for fix in &diagnostic.fixes {
                applied += 1;
                failures.extend(apply_and_recheck(&source, &target, &found, diagnostic, fix));
            }
        }
        failures.extend(unchecked_tail_helps(&source, &target, &found));
    }
    println!("{applied} fixes applied and checked again");
    assert!(applied >= 1000, "only {applied} fixes");
    assert!(
        failures.is_empty(),
        "{} fixes fail:\n{}",
        failures.len(),
        failures[..failures.len().min(5)].join("\n")
    );
}
