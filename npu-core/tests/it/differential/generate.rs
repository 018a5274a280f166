//! The random schedules of the differential test, written as DSL text the way an LLM
//! or the tuner would: kernels from templates with random dtypes and extents (tails,
//! broadcasts, reductions over one or several axes and in a named accumulator, arg
//! reductions and scans, casts, copies, constants, windows, padded views (of one,
//! two and three dimensions, filled with a literal or a scalar parameter, read into
//! intermediates), gathers (into scans and intermediates), matmuls, batched or not),
//! and schedule knobs
//! drawn from legal and illegal values alike (parallel cores, split tiles including
//! non-divisors and misaligned values, stage depths 1 to 3, tail policies, cube
//! blocks).

/// Kernel templates: `{T}` is the element dtype, `{A}` its accumulator dtype, `{N}`,
/// `{R}`, `{C}` extents, `{U}` a second dtype. Then the staged tensors, and whether
/// the kernel needs a float dtype (it has float constants or `exp`).
pub(crate) const TEMPLATES: &[(&str, &str, bool)] = &[
    (
        "kernel vmla(a: [{T}; {N}], b: [{T}; {N}], c: [{T}; {N}]) -> y: [{T}; {N}] { y[i] = a[i] * b[i] + c[i]; }",
        "a, b, c, y",
        false,
    ),
    (
        "kernel gather1(x: [{T}; {C}], idx: [i32; {N}]) -> y: [{T}; {N}] { y[i] = x[idx[i]]; }",
        "x, idx, y",
        false,
    ),
    (
        "kernel embed(table: [{T}; {N}, {C}], idx: [u16; {R}]) -> y: [{T}; {R}, {C}] { y[i, j] = table[idx[i], j] * 2; }",
        "table, idx, y",
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
    (
        "kernel axpb(x: [{T}; {R}, {C}], a: {T}, b: {T}) -> y: [{T}; {R}, {C}] { y[i, j] = x[i, j] * a + b; }",
        "x, y",
        false,
    ),
    (
        "kernel clamp_below(x: [{T}; {N}], t: {T}) -> y: [{T}; {N}] { y[i] = select(x[i] > t, t, x[i] - t); }",
        "x, y",
        false,
    ),
    (
        "kernel math(x: [{T}; {R}, {C}]) -> y: [{T}; {R}, {C}] { y[i, j] = round(sin(x[i, j]) * 4.0) + floor(x[i, j]) * cos(x[i, j]) - pow(x[i, j], 2.0) + erf(x[i, j]) * sign(x[i, j]); }",
        "x, y",
        true,
    ),
    (
        "kernel math2(x: [{T}; {N}]) -> y: [{T}; {N}] { y[i] = max(exp2(trunc(x[i])) - log2(x[i]) + tan(x[i]) * ceil(x[i]) - log10(x[i]), -inf); }",
        "x, y",
        true,
    ),
    (
        "kernel saturate(x: [{T}; {R}, {C}]) -> y: [{U}; {R}, {C}] { y[i, j] = (x[i, j] * 100.0) as sat {U}; }",
        "x, y",
        true,
    ),
    (
        "kernel negative(x: [{T}; {N}]) -> y: [{T}; {N}] { y[i] = max(x[i], -1) * -2 + sign(x[i]); }",
        "x, y",
        false,
    ),
    (
        "kernel fused_rows(x: [{T}; {R}, {C}]) -> y: [{T}; {R}] { let d[i, k] = x[i, k] * x[i, k]; y[i] = sum[k](d[i, k]) - max[k](d[i, k]); }",
        "x, y",
        false,
    ),
    (
        "kernel fused_shift(x: [{T}; {R}, {C}]) -> y: [{T}; {R}, {C}] { let m[i] = max[k](x[i, k]); y[i, k] = x[i, k] - m[i]; }",
        "x, y",
        false,
    ),
    (
        "kernel plane_stats(x: [{T}; 4, {R}, {C}]) -> (y: [{T}; 4], z: [{T}; 4]) { y[b] = sum[k, l](x[b, k, l]); z[b] = max[k, l](x[b, k, l]); }",
        "x, y, z",
        false,
    ),
    (
        "kernel narrow_sum(x: [{T}; 4, {R}, {C}]) -> y: [{T}; 4] { y[b] = sum[k, l: {T}](x[b, k, l]); }",
        "x, y",
        false,
    ),
    // Arg reductions (value and index carried across tiles) and scans (a running
    // value carried from tile to tile of an output axis).
    (
        "kernel arg_rows(x: [{T}; {R}, {C}]) -> (y: [i32; {R}], z: [i32; {R}]) { y[i] = argmax[k](x[i, k]); z[i] = argmin[k](x[i, k]); }",
        "x, y, z",
        false,
    ),
    (
        "kernel running(x: [{T}; {R}, {C}]) -> y: [{T}; {R}, {C}] { y[i, k] = cumsum[k](x[i, k]) - cumprod[k: {T}](x[i, k]); }",
        "x, y",
        false,
    ),
    (
        "kernel running_outer(x: [{T}; {C}, {R}]) -> y: [{A}; {C}, {R}] { y[k, i] = cumsum[k](x[k, i] as {A}); }",
        "x, y",
        false,
    ),
    (
        "kernel fused_scan(x: [{T}; {R}, {C}]) -> y: [{T}; {R}, {C}] { let c[i, k] = cumsum[k: {T}](x[i, k]); let a[i] = argmax[k](c[i, k]); y[i, k] = c[i, k] - (a[i] as {T}); }",
        "x, y",
        false,
    ),
    // Windows: overlapping tiles with halos, strided views, padded views.
    (
        "kernel pool(x: [{T}; {N2}]) -> y: [{T}; {N}] { y[i] = max[k < 3](x[2*i + k]); }",
        "x, y",
        false,
    ),
    (
        "kernel conv(x: [{T}; {C4}], w: [{T}; {R}, 5]) -> y: [{T}; {R}, {C}] { y[o, t] = sum[k](x[t + k] * w[o, k]); }",
        "x, w, y",
        false,
    ),
    (
        "kernel pad1(x: [{T}; {N}]) -> y: [{T}; {N8}] { y[i] = pad(x, 1)[i - 3]; }",
        "x, y",
        false,
    ),
    (
        "kernel pad2(x: [{T}; {R}, {C}]) -> y: [{T}; {R2}, {C2}] { y[i, j] = pad(x, 0)[i - 1, j - 1]; }",
        "x, y",
        false,
    ),
    // Padded views whose rows are not a multiple of the alignment, split along an
    // outer axis: each row of a tile lands at an aligned pitch on chip.
    (
        "kernel pad_cols(x: [{T}; {R}, {C}]) -> y: [{T}; {R}, {C}] { y[i, j] = pad(x, 0)[i, j - 1] * 2; }",
        "x, y",
        false,
    ),
    (
        "kernel pad3(x: [{T}; 4, {R}, {C}]) -> y: [{T}; 4, {R}, {C}] { y[b, i, j] = pad(x, 0)[b, i - 1, j + 1]; }",
        "x, y",
        false,
    ),
    (
        "kernel pad_param(x: [{T}; {N}], fill: {T}) -> y: [{T}; {N}] { y[i] = pad(x, fill)[i + 2] * 2; }",
        "x, y",
        false,
    ),
    // A padded view into an intermediate, reduced by the next statement.
    (
        "kernel pad_let(x: [{T}; {R}, {C}], w: [{T}; {R}, {C}]) -> y: [{T}; {R}] { let d[i, k] = pad(x, 0)[i, k + 1] * w[i, k]; y[i] = max[k](d[i, k]); }",
        "x, w, y",
        false,
    ),
    // A gather whose rows feed a scan, and a gather into an intermediate.
    (
        "kernel gather_scan(table: [{T}; 40, {C}], idx: [i32; {R}]) -> y: [{T}; {R}, {C}] { y[i, k] = cumsum[k: {T}](table[idx[i], k]); }",
        "table, idx, y",
        false,
    ),
    (
        "kernel gather_let(table: [{T}; 40, {C}], idx: [u8; {R}], w: [{T}; {R}, {C}]) -> y: [{T}; {R}] { let g[i, k] = table[idx[i], k] * w[i, k]; y[i] = sum[k](g[i, k]); }",
        "table, idx, w, y",
        false,
    ),
    // A named accumulator narrower than the body: the fold reads the body's width.
    (
        "kernel narrow_acc(x: [f32; {R}, {C}]) -> y: [f32; {R}] { y[i] = sum[k: {T}](x[i, k]); }",
        "x, y",
        true,
    ),
];

/// Kernels of integer bit operations: `{T}` is an integer dtype.
pub(crate) const INTEGER_TEMPLATES: &[(&str, &str)] = &[
    (
        "kernel bits(a: [{T}; {N}], b: [{T}; {N}]) -> y: [{T}; {N}] { y[i] = (a[i] & b[i]) ^ (a[i] >> 1) | !b[i] << 2; }",
        "a, b, y",
    ),
    (
        "kernel popcount(x: [{T}; {R}, {C}], s: [{T}; {C}]) -> y: [{T}; {R}, {C}] { y[i, j] = popcount(x[i, j] ^ s[j]) + (x[i, j] >> s[j]); }",
        "x, s, y",
    ),
];

pub(crate) const DTYPES: [&str; 6] = ["f16", "f32", "bf16", "i16", "i32", "i8"];
pub(crate) const INTEGER_DTYPES: [&str; 6] = ["i8", "u8", "i16", "u16", "i32", "u32"];
const EXTENTS_1D: [u64; 8] = [1000, 2048, 4000, 4096, 8192, 10000, 16384, 1736];
const ROWS: [u64; 7] = [4, 8, 16, 40, 64, 3, 33];
const COLUMNS: [u64; 11] = [16, 64, 100, 128, 217, 256, 1020, 50, 1000, 80, 24];
const TILES: [u64; 20] = [
    8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 16384, 3, 5, 24, 100, 200, 217, 250, 1000, 12,
];
const CORES: [u64; 8] = [2, 3, 4, 8, 16, 40, 48, 1];

/// The shared seeded generator (`fastrand`, in npu-testgen).
pub(crate) use npu_testgen::Random;

fn accumulator(dtype: &str) -> &'static str {
    match dtype {
        "f16" | "bf16" | "f32" => "f32",
        _ => "i32",
    }
}

/// A random vector kernel and schedule, as text.
pub(crate) fn vector_case(random: &mut Random, target: &str) -> String {
    let (template, staged, dtype) = vector_template(random);
    let extent = random.pick(&EXTENTS_1D);
    let rows = random.pick(&ROWS);
    let columns = random.pick(&COLUMNS);
    let kernel = template
        .replace("{T}", dtype)
        .replace("{A}", accumulator(dtype))
        .replace(
            "{U}",
            random.pick(&[DTYPES.as_slice(), &INTEGER_DTYPES].concat()),
        )
        .replace("{N2}", &(2 * extent + 1).to_string())
        .replace("{N8}", &(extent + 8).to_string())
        .replace("{C4}", &(columns + 4).to_string())
        .replace("{R2}", &(rows + 2).to_string())
        .replace("{C2}", &(columns + 2).to_string())
        .replace("{N}", &extent.to_string())
        .replace("{R}", &rows.to_string())
        .replace("{C}", &columns.to_string());
    let axes = template_axes(&kernel, extent, rows, columns);
    let mut items = split_items(random, &axes);
    if axes.len() == 2 && axes[1].0 == "j" && random.chance(15) {
        items.push("order j, i;".to_string());
    }
    items.push(stage_items(random, staged));
    items.push(tail(random));
    format!(
        "{kernel}\ntarget {target};\nschedule s {{ {} }}",
        items.join(" ")
    )
}

/// A random template, the tensors it stages and its dtype: an integer template
/// one time in eight or so, mostly in an integer dtype; else a float template mostly
/// in a float dtype.
fn vector_template(random: &mut Random) -> (&'static str, &'static str, &'static str) {
    if random.chance(12) {
        let (template, staged) = random.pick(INTEGER_TEMPLATES);
        let dtype = if random.chance(90) {
            random.pick(&INTEGER_DTYPES)
        } else {
            random.pick(&DTYPES)
        };
        (template, staged, dtype)
    } else {
        let (template, staged, float) = random.pick(TEMPLATES);
        let dtype = if float && random.chance(90) {
            random.pick(&["f16", "f32", "bf16"])
        } else {
            random.pick(&DTYPES)
        };
        (template, staged, dtype)
    }
}

/// The axes of a filled template and their extents, told apart by the loads it has.
fn template_axes(kernel: &str, extent: u64, rows: u64, columns: u64) -> Vec<(&'static str, u64)> {
    if kernel.contains("pad(x, 0)[b, i - 1") {
        vec![("b", 4), ("i", rows), ("j", columns)]
    } else if kernel.contains("pad(x, 0)[i, j - 1]") {
        vec![("i", rows), ("j", columns)]
    } else if kernel.contains("pad(x, 0)[i, k + 1]") || kernel.contains("idx[i], k]") {
        vec![("i", rows), ("k", columns)]
    } else if kernel.contains("[b, k, l]") {
        vec![("b", 4), ("k", rows), ("l", columns)]
    } else if kernel.contains("x[2*i + k]") {
        vec![("i", extent), ("k", 3)]
    } else if kernel.contains("x[t + k]") {
        vec![("o", rows), ("t", columns), ("k", 5)]
    } else if kernel.contains("pad(x, 1)") {
        vec![("i", extent + 8)]
    } else if kernel.contains("pad(x, 0)") {
        vec![("i", rows + 2), ("j", columns + 2)]
    } else if kernel.contains("[b, i, j]") {
        vec![("b", 4), ("i", rows), ("j", columns)]
    } else if kernel.contains("[i, j]") {
        vec![("i", rows), ("j", columns)]
    } else if kernel.contains("[k]") {
        vec![("i", rows), ("k", columns)]
    } else if kernel.contains("x[i, 3]") {
        vec![("i", rows)]
    } else {
        vec![("i", extent)]
    }
}

/// Random `parallel` and `split` items over the axes.
fn split_items(random: &mut Random, axes: &[(&str, u64)]) -> Vec<String> {
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
    items
}

/// The `stage` items: one random depth for all staged tensors, or one per tensor.
fn stage_items(random: &mut Random, staged: &str) -> String {
    if random.chance(30) {
        let per_tensor: Vec<String> = staged
            .split(", ")
            .map(|tensor| format!("stage {tensor} in ub depth {};", 1 + random.below(3)))
            .collect();
        per_tensor.join(" ")
    } else {
        format!("stage {staged} in ub depth {};", 1 + random.below(3))
    }
}

fn tail(random: &mut Random) -> String {
    random
        .pick(&["tail pad;", "tail exact;", "", "tail pad;"])
        .to_string()
}

/// A random matmul and schedule, as text.
pub(crate) fn matmul_case(random: &mut Random, target: &str) -> String {
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
    // Now and then a batched matmul, its `b` now and then shared by the batch.
    let batch = random.chance(30).then(|| random.pick(&[2u64, 3, 5]));
    let shared = batch.is_some() && random.chance(30);
    let (t, td) = match batch {
        Some(extent) => ("t, ", format!("{extent}, ")),
        None => ("", String::new()),
    };
    let (bt, btd) = if shared { ("", "") } else { (t, td.as_str()) };
    let product = format!("sum[k](a[{t}m, k] as {accumulator} * b[{bt}k, n] as {accumulator})");
    let result = if output == accumulator {
        product
    } else {
        format!("{product} as {output}")
    };
    let kernel = format!(
        "kernel mm(a: [{dtype}; {td}{m}, {k}], b: [{dtype}; {btd}{k}, {n}]) -> c: [{output}; {td}{m}, {n}] {{ c[{t}m, n] = {result}; }}"
    );
    let mut items = Vec::new();
    if random.chance(30) {
        let axes: &[&str] = if batch.is_some() {
            &["m", "n", "t"]
        } else {
            &["m", "n"]
        };
        items.push(format!(
            "parallel {} over {} cores;",
            random.pick(axes),
            random.pick(&CORES)
        ));
    }
    if let Some(extent) = batch
        && random.chance(40)
    {
        items.push(format!("split t by {};", 1 + random.below(extent)));
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
    // Now and then a block for the batch axis, which the checker refuses (E032).
    let batch_block = if batch.is_some() && random.chance(5) {
        "t by 2, "
    } else {
        ""
    };
    items.push(format!(
        "cube {batch_block}m by {}, n by {}, k by {};",
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
