//! Random legal schedules: kernels without schedules, and a seeded generator that
//! writes a schedule block for one as an LLM might, for the property tests.

use npu_core::Target;
use npu_core::ir::{CheckedKernel, KernelClass};

/// Kernels without schedules, the target they are checked on, and one legal schedule.
pub(crate) const KERNELS: &[(&str, &str, &str)] = &[
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
        "split i by 8; split k by 192; stage x, y in ub; tail pad;",
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
    (
        "ascend910b",
        "kernel batched(a: [f16; 5, 48, 64], b: [f16; 5, 64, 32]) -> c: [f32; 5, 48, 32] { c[t, m, n] = sum[k](a[t, m, k] as f32 * b[t, k, n] as f32); }",
        "cube m by 16, n by 16, k by 16; stage a, b in l1; stage a in l0a; stage b in l0b; stage c in l0c;",
    ),
    (
        "ascend310p",
        "kernel shared_weight(x: [f16; 3, 40, 32], w: [f16; 32, 48]) -> y: [f16; 3, 40, 48] { y[t, m, n] = sum[k](x[t, m, k] as f32 * w[k, n] as f32) as f16; }",
        "split m by 32; cube m by 16, n by 16, k by 16; stage x, w in l1; stage x in l0a; stage w in l0b; stage y in l0c; tail pad;",
    ),
    (
        "ascend910b",
        "kernel axpb(x: [f32; 24, 200], a: f32, b: f32) -> y: [f32; 24, 200] { y[i, j] = x[i, j] * a + b; }",
        "stage x, y in ub; tail pad;",
    ),
    (
        "ascend310p",
        "kernel clamp_shift(x: [i16; 3000], lo: i16, hi: i16, s: i16) -> (y: [i16; 3000], z: [i16; 3000]) {
            y[i] = min(max(x[i], lo), hi) - s;
            z[i] = select(x[i] > lo, s, hi);
        }",
        "stage x, y, z in ub; tail pad;",
    ),
];

/// The shared seeded generator (`fastrand`, in npu-testgen).
pub(crate) use npu_testgen::Random;

/// A random schedule block for `kernel`, as an LLM might write it.
pub(crate) fn schedule(
    kernel: &CheckedKernel,
    target: &Target,
    name: &str,
    random: &mut Random,
) -> String {
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
        // The batch axis takes any tile: its matrices are multiplied one by one.
        if let Some(batch) = mm.batch
            && random.chance(50)
        {
            let tile = 1 + random.below(kernel.axes[batch].extent);
            items.push(format!("split {} by {tile};", kernel.axes[batch].name));
        }
        for (axis, block) in [mm.m, mm.n, mm.k].into_iter().zip(blocks) {
            let extent = kernel.axes[axis].extent;
            // An axis the block does not divide must be split into whole blocks.
            let tile = (block * (1 + random.below(4))).min(extent / block * block);
            if tile > 0 && (!extent.is_multiple_of(block) || random.chance(60)) {
                items.push(format!("split {} by {tile};", kernel.axes[axis].name));
            }
        }
    }
    if blocks.is_none() {
        vector_splits(kernel, random, &mut items);
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
    stage_items(kernel, blocks, random, &mut items);
    match random.below(3) {
        0 => items.push("tail pad;".into()),
        1 => items.push("tail exact;".into()),
        _ => {}
    }
    format!("schedule {name} {{ {} }}", items.join(" "))
}

/// Splits of a vector kernel's axes: each axis split with chance 70%, by a tile drawn
/// from common sizes that fit.
fn vector_splits(kernel: &CheckedKernel, random: &mut Random, items: &mut Vec<String>) {
    for axis in &kernel.axes {
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
}

/// The stage items: a matmul's operands through L1 and L0, or every tensor of a
/// vector kernel in UB in one or two items, each at a random depth.
fn stage_items(
    kernel: &CheckedKernel,
    blocks: Option<[u64; 3]>,
    random: &mut Random,
    items: &mut Vec<String>,
) {
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
            // Every tensor in ub, in one or two stage items with their own depths;
            // scalar parameters live in scalar registers and are never staged.
            let names: Vec<String> = (0..kernel.tensors.len())
                .filter(|t| !kernel.tensors[*t].is_scalar())
                .map(name_of)
                .collect();
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
}
