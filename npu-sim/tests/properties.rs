//! Properties over random legal schedules: for schedules a seeded generator writes as
//! DSL text and the checker accepts, the lowered program places the plan exactly, the
//! outputs match the reference interpreter, and the simulated cycles are never below
//! the roofline bound or the attainable bound.

mod support;

use npu_core::ir::{CheckedKernel, KernelClass};
use npu_core::{Level, Target, check_source};
use npu_sim::{Correctness, SimOptions, evaluate, reference};

/// Kernels without schedules, the target they are checked on, and one legal schedule.
const KERNELS: &[(&str, &str, &str)] = &[
    (
        "npueval_demo",
        "kernel vmla(a: [f16; 8192], b: [f16; 8192], c: [f16; 8192]) -> y: [f16; 8192] { y[i] = a[i] * b[i] + c[i]; }",
        "stage a, b, c, y in ub;",
    ),
    (
        "ascend910b",
        "kernel add_bias(x: [f32; 64, 128], bias: [f32; 128]) -> y: [f32; 64, 128] { y[i, j] = x[i, j] + bias[j]; }",
        "stage x, bias, y in ub;",
    ),
    (
        "ascend910b",
        "kernel row_sum(x: [f32; 40, 1000]) -> y: [f32; 40] { y[i] = sum[k](x[i, k]); }",
        "split i by 8; split k by 200; stage x, y in ub;",
    ),
    (
        "ascend910b",
        "kernel softmax_like(x: [f16; 32, 256], m: [f16; 32], s: [f16; 32]) -> y: [f16; 32, 256] { y[i, j] = exp(x[i, j] - m[i]) / s[i]; }",
        "stage x, m, s, y in ub;",
    ),
    (
        "ascend910b",
        "kernel exp_sum(x: [f16; 16, 512], w: [f16; 16]) -> (y: [f16; 16], z: [f32; 16]) {
            y[i] = sum[k](exp(x[i, k] - w[i]));
            z[i] = max[k](x[i, k] as f32) - min[k](x[i, k] as f32) * 0.5;
        }",
        "stage x, w, y, z in ub;",
    ),
    (
        "ascend910b",
        "kernel scale3(x: [f32; 4, 16, 64], s: [f32; 4], bias: [f32; 64]) -> y: [f32; 4, 16, 64] { y[b, i, j] = x[b, i, j] * s[b] + bias[j]; }",
        "stage x, s, bias, y in ub; tail pad;",
    ),
    (
        "ascend910b",
        "kernel transpose_add(x: [f32; 64, 32], z: [f32; 32, 64]) -> y: [f32; 32, 64] { y[i, j] = x[j, i] + z[i, j]; }",
        "stage x, z, y in ub;",
    ),
    (
        "npueval_demo",
        "kernel relu_mask(x: [f16; 4000], t: [f16; 1]) -> (y: [f16; 4000], z: [f32; 4000]) {
            y[i] = select(x[i] > t[0], x[i], 0.0 - x[i] * 0.5);
            z[i] = (x[i] as f32) * (2.0 + 1.0);
        }",
        "stage x, t, y, z in ub; tail pad;",
    ),
    (
        "ascend910b",
        "kernel matmul(a: [f16; 128, 256], b: [f16; 256, 64]) -> c: [f32; 128, 64] { c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32); }",
        "cube m by 16, n by 16, k by 16; stage a, b in l1; stage a in l0a; stage b in l0b; stage c in l0c;",
    ),
    (
        "ascend910b",
        "kernel matmul_tail(a: [f16; 100, 80], b: [f16; 80, 48]) -> c: [f16; 100, 48] { c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32) as f16; }",
        "split m by 32; cube m by 16, n by 16, k by 16; stage a, b in l1; stage a in l0a; stage b in l0b; stage c in l0c; tail pad;",
    ),
];

/// SplitMix64: a tiny seeded generator, enough for test inputs.
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

/// A random schedule block for `kernel`, as an LLM might write it.
fn schedule(kernel: &CheckedKernel, target: &Target, name: &str, random: &mut Random) -> String {
    let mut items = Vec::new();
    let output_axes = &kernel.body[0].axes;
    let cores = u64::from(match kernel.class {
        KernelClass::Matmul(_) => target.cores.cube,
        _ => target.cores.vector,
    });
    if cores > 1 && random.chance(40) {
        let axis = random.pick(output_axes);
        let count = 1 + random.below(cores.min(8).min(kernel.axes[axis].extent));
        items.push(format!(
            "parallel {} over {count} cores;",
            kernel.axes[axis].name
        ));
    }
    // A matmul's tiles are whole cube blocks: draw the blocks first.
    let blocks: Option<[u64; 3]> = match &kernel.class {
        KernelClass::Matmul(mm) => Some([mm.m, mm.n, mm.k].map(|axis| {
            let extent = kernel.axes[axis].extent;
            let fitting: Vec<u64> = [16, 32, 64].into_iter().filter(|b| *b <= extent).collect();
            random.pick(if fitting.is_empty() {
                &[16][..]
            } else {
                &fitting
            })
        })),
        _ => None,
    };
    if let (KernelClass::Matmul(mm), Some(blocks)) = (&kernel.class, blocks) {
        for (axis, block) in [mm.m, mm.n, mm.k].into_iter().zip(blocks) {
            let extent = kernel.axes[axis].extent;
            // An axis the block does not divide must be split into whole blocks.
            let tile = (block * (1 + random.below(4))).min(extent / block * block);
            if tile > 0 && (!extent.is_multiple_of(block) || random.chance(60)) {
                items.push(format!("split {} by {tile};", kernel.axes[axis].name));
            }
        }
    }
    for axis in kernel.axes.iter().filter(|_| blocks.is_none()) {
        if random.chance(70) {
            let extent = axis.extent;
            let candidates: Vec<u64> = [
                extent,
                extent / 2,
                extent / 4,
                8,
                16,
                24,
                32,
                48,
                64,
                96,
                128,
                200,
                256,
                512,
                1024,
                2048,
            ]
            .into_iter()
            .filter(|t| *t >= 1 && *t <= extent)
            .collect();
            items.push(format!(
                "split {} by {};",
                axis.name,
                random.pick(&candidates)
            ));
        }
    }
    if output_axes.len() > 1 && random.chance(40) {
        let mut order = output_axes.clone();
        for i in (1..order.len()).rev() {
            let j = random.below(i as u64 + 1) as usize;
            order.swap(i, j);
        }
        let names: Vec<&str> = order
            .iter()
            .map(|a| kernel.axes[*a].name.as_str())
            .collect();
        items.push(format!("order {};", names.join(", ")));
    }
    let depth = |random: &mut Random| random.pick(&[1, 2, 2, 2, 3]);
    let name_of = |t: usize| kernel.tensors[t].name.clone();
    match &kernel.class {
        KernelClass::Matmul(mm) => {
            let [bm, bn, bk] = blocks.unwrap_or([16, 16, 16]);
            let (m, n, k) = (
                &kernel.axes[mm.m].name,
                &kernel.axes[mm.n].name,
                &kernel.axes[mm.k].name,
            );
            items.push(format!("cube {m} by {bm}, {n} by {bn}, {k} by {bk};"));
            items.push(format!(
                "stage {}, {} in l1 depth {};",
                name_of(mm.a),
                name_of(mm.b),
                depth(random)
            ));
            items.push(format!(
                "stage {} in l0a depth {};",
                name_of(mm.a),
                depth(random)
            ));
            items.push(format!(
                "stage {} in l0b depth {};",
                name_of(mm.b),
                depth(random)
            ));
            items.push(format!(
                "stage {} in l0c depth {};",
                name_of(mm.c),
                depth(random)
            ));
        }
        _ => {
            // Every tensor in ub, in one or two stage items with their own depths.
            let names: Vec<String> = (0..kernel.tensors.len()).map(name_of).collect();
            let cut = random.below(names.len() as u64 + 1) as usize;
            for group in [&names[..cut], &names[cut..]] {
                if !group.is_empty() {
                    items.push(format!(
                        "stage {} in ub depth {};",
                        group.join(", "),
                        depth(random)
                    ));
                }
            }
        }
    }
    match random.below(3) {
        0 => items.push("tail pad;".into()),
        1 => items.push("tail exact;".into()),
        _ => {}
    }
    format!("schedule {name} {{ {} }}", items.join(" "))
}

#[test]
fn random_legal_schedules_are_correct_and_above_the_roofline() {
    let mut random = Random(0x5eed);
    let mut total = 0;
    for (target_name, kernel_text, probe_items) in KERNELS {
        let target = Target::preset(target_name).expect("preset");
        let base = format!("{kernel_text}\ntarget {target_name};\n");
        // The kernel alone (any legal schedule) gives the axes and tensors to draw from.
        let probe = check_source(
            &format!("{base}schedule probe {{ {probe_items} }}"),
            &target,
        )
        .unwrap_or_else(|d| panic!("{}", d.render(kernel_text)));
        let inputs = support::inputs(&probe, 7);
        let expected = reference(&probe, &inputs);
        let mut accepted = 0;
        for attempt in 0..80 {
            let text = format!(
                "{base}{}",
                schedule(&probe, &target, &format!("r{attempt}"), &mut random)
            );
            let Ok(kernel) = check_source(&text, &target) else {
                continue;
            };
            accepted += 1;
            let checked = &kernel.schedules[0];
            let what = format!(
                "{}:\n{}",
                probe.name,
                text.lines().last().unwrap_or_default()
            );
            let program = npu_core::lower(&kernel, 0);
            for level in Level::ALL {
                assert_eq!(
                    program.peak(level),
                    checked.used(level),
                    "{what}: peak of {level}"
                );
            }
            let evaluation = evaluate(&kernel, 0, &inputs, Some(&expected), &SimOptions::default())
                .unwrap_or_else(|error| panic!("{what}: {error}"));
            assert!(
                matches!(evaluation.correctness, Correctness::Passed { .. }),
                "{what}: {:?}",
                evaluation.correctness
            );
            let report = &evaluation.report;
            assert!(
                report.total_cycles >= report.roofline_cycles,
                "{what}: {} cycles below the roofline {}",
                report.total_cycles,
                report.roofline_cycles
            );
            assert!(
                report.total_cycles >= report.machine_roofline_cycles,
                "{what}: below the machine roofline"
            );
            assert!(
                report.total_cycles >= report.attainable_cycles,
                "{what}: {} cycles below the attainable bound {}",
                report.total_cycles,
                report.attainable_cycles
            );
            assert!(report.attainable_cycles >= report.machine_roofline_cycles);
        }
        assert!(
            accepted >= 8,
            "{}: only {accepted} of 80 random schedules were legal",
            probe.name
        );
        total += accepted;
    }
    assert!(total >= 150, "{total} legal schedules in all");
}
