//! Data-driven checker tests: each case is kernel text; the snapshot is either the
//! checked schedules (tiles and buffer plan) or the rendered diagnostics.

use npu_core::{Target, check_source_with};

/// Checks `source` against the presets it names and describes the outcome.
fn check(source: &str) -> String {
    match check_source_with(source, |path| Err(format!("no such file: {path}"))) {
        Ok(kernel) => {
            let mut out = format!("ok: {:?}\n", kernel.class);
            for schedule in &kernel.schedules {
                out += &format!(
                    "schedule {} tiles {:?} cores {}\n",
                    schedule.name,
                    schedule.tiles,
                    schedule.cores()
                );
                for buffer in &schedule.buffers {
                    out += &format!(
                        "  {} {} {} B x{}\n",
                        buffer.level, buffer.name, buffer.bytes, buffer.depth
                    );
                }
            }
            out
        }
        Err(diagnostics) => diagnostics.render(source),
    }
}

/// A 1-D elementwise kernel on `target` with the given schedule items.
fn vmla(target: &str, items: &str) -> String {
    format!(
        "kernel vmla(a: [f16; 65536], b: [f16; 65536], c: [f16; 65536]) -> y: [f16; 65536] {{\n    y[i] = a[i] * b[i] + c[i];\n}}\ntarget {target};\nschedule s {{\n{items}\n}}\n"
    )
}

/// `y[i]` as a chain of `terms` products of `x[i]` summed left to right, or nested to
/// the right, on a tile of `tile` f32 elements of ascend910b.
fn chain(terms: usize, nested: bool, tile: u64) -> String {
    let term = |t: usize| format!("x[i] * {}.5", t + 1);
    let mut value = term(terms - 1);
    for t in (0..terms - 1).rev() {
        value = if nested {
            format!("{} + ({value})", term(t))
        } else {
            format!("{value} + {}", term(t))
        };
    }
    format!(
        "kernel k(x: [f32; 65536]) -> y: [f32; 65536] {{ y[i] = {value}; }}\ntarget ascend910b;\nschedule s {{ split i by {tile}; stage x, y in ub; }}\n"
    )
}

macro_rules! cases {
    ($($name:ident: $source:expr;)*) => {$(
        #[test]
        fn $name() {
            insta::assert_snapshot!(stringify!($name), check(&$source));
        }
    )*};
}

cases! {
    vmla_hand: vmla("npueval_demo", "    split i by 2048;\n    stage a, b, c, y in ub depth 1;");
    vmla_double_buffered: vmla("npueval_demo", "    split i by 4096;\n    stage a, b, c, y in ub depth 2;");
    vmla_multicore: vmla("ascend910b", "    parallel i over 32 cores;\n    split i by 1024;\n    stage a, b, c, y in ub depth 2;");
    vmla_default_tile_is_core_share: vmla("ascend910b", "    parallel i over 16 cores;\n    stage a, b, c, y in ub depth 2;");
    ub_overflow: vmla("npueval_demo", "    split i by 8192;\n    stage a, b, c, y in ub depth 2;");
    misaligned_tile: vmla("npueval_demo", "    split i by 1000;\n    stage a, b, c, y in ub;\n    tail exact;");
    padded_single_burst_tile: vmla("npueval_demo", "    split i by 1000;\n    stage a, b, c, y in ub;\n    tail pad;");
    tail_without_policy: vmla("npueval_demo", "    split i by 768;\n    stage a, b, c, y in ub;");
    tail_pad: vmla("npueval_demo", "    split i by 768;\n    stage a, b, c, y in ub;\n    tail pad;");
    tail_exact_aligned: vmla("npueval_demo", "    split i by 768;\n    stage a, b, c, y in ub;\n    tail exact;");
    repeat_limit: "kernel k(x: [f32; 65536]) -> y: [f32; 65536] { y[i] = x[i] * 2.0; }\ntarget ascend910b;\nschedule s {\n    split i by 16384;\n    stage x, y in ub;\n}\n";
    too_many_cores: vmla("ascend910b", "    parallel i over 64 cores;\n    split i by 1024;\n    stage a, b, c, y in ub;");
    too_many_events: "kernel k(a: [f16; 4096], b: [f16; 4096], c: [f16; 4096], d: [f16; 4096], e: [f16; 4096]) -> y: [f16; 4096] {\n    y[i] = a[i] + b[i] + c[i] + d[i] + e[i];\n}\ntarget ascend910b;\nschedule s {\n    split i by 256;\n    stage a, b, c, d, e in ub depth 2;\n    stage y in ub depth 2;\n}\n";
    unstaged_tensor: vmla("npueval_demo", "    split i by 2048;\n    stage a, b in ub;");
    duplicate_items: vmla("npueval_demo", "    split i by 2048;\n    split i by 1024;\n    stage a, b, c, y in ub;\n    stage a in ub;");
    unknown_names: vmla("npueval_demo", "    split j by 2048;\n    stage a, b, cc, y in ub;\n    stage y in l0;");
    unknown_item_and_more: vmla("npueval_demo", "    tile i by 2048;\n    stage a, b, c in ub;");
    bad_tiles: vmla("npueval_demo", "    split i by 0;\n    stage a, b, c, y in ub depth 9;");
    tile_larger_than_extent: vmla("npueval_demo", "    split i by 100000;\n    stage a, b, c, y in ub;");
    parallel_tile_too_big: vmla("ascend910b", "    parallel i over 8 cores;\n    split i by 16384;\n    stage a, b, c, y in ub;");
    unknown_function_and_dtype: "kernel k(x: [fp16; 1024]) -> y: [f16; 1024] { y[i] = expf(x[i]); }\ntarget npueval_demo;\nschedule s { stage x, y in ub; }\n";
    type_mismatches: "kernel k(a: [f16; 1024], b: [f32; 1024], n: [i32; 1024]) -> (y: [f16; 1024], z: [f16; 1024]) {\n    y[i] = a[i] + b[i];\n    z[i] = exp(n[i]) as f16;\n}\ntarget npueval_demo;\nschedule s { stage a, b, n, y, z in ub; }\n";
    window_reads_are_one_reduction: "kernel k(x: [f32; 1026], w: [f32; 3]) -> y: [f32; 512] {\n    y[t] = min(x[2 * t], x[2 * t + 2]) + x[t + 1] * w[0] + x[t] * w[1];\n}\ntarget ascend910b;\n";
    output_dtype_mismatch: "kernel k(a: [f16; 1024]) -> y: [f16; 1024] { y[i] = a[i] as f32; }\ntarget npueval_demo;\nschedule s { stage a, y in ub; }\n";
    shape_and_range: "kernel k(a: [f16; 1024], b: [f16; 512], m: [f16; 4, 256]) -> y: [f16; 1024] {\n    y[i] = a[i] + b[i] + m[i] + m[7, 0];\n}\ntarget npueval_demo;\nschedule s { stage a, b, m, y in ub; }\n";
    unknown_target: vmla("ascend910", "    stage a, b, c, y in ub;");
    missing_target_and_schedule: "kernel k(a: [f16; 1024]) -> y: [f16; 1024] { y[i] = a[i]; }\n";
    duplicate_schedule: "kernel k(a: [f16; 1024]) -> y: [f16; 1024] { y[i] = a[i]; }\ntarget npueval_demo;\nschedule s { stage a, y in ub; }\nschedule s { stage a, y in ub; }\n";
    unit_dtype: "kernel k(a: [f32; 1024]) -> y: [f32; 1024] { y[i] = a[i] * a[i]; }\ntarget aie2_tile;\nschedule s { stage a, y in ub; }\n";
    broadcast: "kernel bias(x: [f16; 64, 1024], b: [f16; 1024]) -> y: [f16; 64, 1024] { y[i, j] = x[i, j] + b[j]; }\ntarget ascend910b;\nschedule s {\n    parallel i over 8 cores;\n    split j by 512;\n    stage x, b, y in ub depth 2;\n    order j, i;\n}\n";
    reduction_rows: "kernel rowsum(x: [f32; 64, 217]) -> y: [f32; 64] { y[i] = sum[k](x[i, k]); }\ntarget ascend910b;\nschedule s {\n    parallel i over 8 cores;\n    split i by 8;\n    stage x, y in ub depth 2;\n    tail pad;\n}\n";
    reduction_whole_rows_are_one_copy: "kernel rowsum(x: [f32; 64, 217]) -> y: [f32; 64] { y[i] = sum[k](x[i, k]); }\ntarget ascend910b;\nschedule s {\n    split i by 8;\n    stage x, y in ub;\n}\n";
    reduction_misaligned_rows: "kernel rowsum(x: [f32; 64, 217]) -> y: [f32; 64] { y[i] = sum[k](x[i, k]); }\ntarget ascend910b;\nschedule s {\n    split i by 8;\n    split k by 64;\n    stage x, y in ub;\n    tail exact;\n}\n";
    softmax_numerator: "kernel e(x: [f32; 32, 1024], m: [f32; 32]) -> y: [f32; 32, 1024] { y[i, j] = exp(x[i, j] - m[i]); }\ntarget ascend910b;\nschedule s {\n    parallel i over 4 cores;\n    split i by 8;\n    split j by 512;\n    stage x, m, y in ub depth 2;\n}\n";
    select_relu: "kernel r(x: [f16; 4096]) -> y: [f16; 4096] { y[i] = select(x[i] > 0, x[i], x[i] * 0.01); }\ntarget ascend310p;\nschedule s { split i by 1024; stage x, y in ub depth 2; }\n";
    matmul_ok: "kernel mm(a: [f16; 256, 512], b: [f16; 512, 256]) -> c: [f32; 256, 256] { c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32); }\ntarget ascend910b;\nschedule s {\n    parallel m over 4 cores;\n    split k by 256;\n    cube m by 64, n by 64, k by 64;\n    stage a, b in l1 depth 2;\n    stage a in l0a depth 2;\n    stage b in l0b depth 2;\n    stage c in l0c;\n}\n";
    matmul_core_grid: "kernel mm(a: [f16; 256, 512], b: [f16; 512, 256]) -> c: [f32; 256, 256] { c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32); }\ntarget ascend910b;\nschedule s {\n    parallel m, n over 4 x 4 cores;\n    split k by 256;\n    cube m by 64, n by 64, k by 64;\n    stage a, b in l1 depth 2;\n    stage a in l0a depth 2;\n    stage b in l0b depth 2;\n    stage c in l0c;\n}\n";
    matmul_core_grid_counts_differ: "kernel mm(a: [f16; 256, 512], b: [f16; 512, 256]) -> c: [f32; 256, 256] { c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32); }\ntarget ascend910b;\nschedule s {\n    parallel m, n over 4 x 5 x 2 cores;\n    cube m by 64, n by 64, k by 64;\n    stage a, b in l1;\n    stage a in l0a;\n    stage b in l0b;\n    stage c in l0c;\n}\n";
    matmul_core_grid_unspaced: "kernel mm(a: [f16; 256, 512], b: [f16; 512, 256]) -> c: [f32; 256, 256] { c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32); }\ntarget ascend910b;\nschedule s {\n    parallel m, n over 4x5 cores;\n    cube m by 64, n by 64, k by 64;\n    stage a, b in l1;\n    stage a in l0a;\n    stage b in l0b;\n    stage c in l0c;\n}\n";
    matmul_tile_past_share_one_per_core: "kernel mm(a: [f16; 256, 512], b: [f16; 512, 1024]) -> c: [f32; 256, 1024] { c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32); }\ntarget ascend910b;\nschedule s {\n    parallel m, n over 4 x 5 cores;\n    split n by 208;\n    split k by 128;\n    cube m by 64, n by 208, k by 64;\n    stage a, b in l1 depth 2;\n    stage a in l0a depth 2;\n    stage b in l0b depth 2;\n    stage c in l0c depth 2;\n    tail exact;\n}\n";
    matmul_bad_cube: "kernel mm(a: [f16; 256, 512], b: [f16; 512, 256]) -> c: [f32; 256, 256] { c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32); }\ntarget ascend910b;\nschedule s {\n    split k by 200;\n    cube m by 60, n by 512, k by 64;\n    stage a, b in l1 depth 2;\n    stage a in l0a depth 2;\n    stage b in l0b depth 2;\n    stage c in l0c;\n    tail pad;\n}\n";
    matmul_l0_overflow: "kernel mm(a: [f16; 256, 512], b: [f16; 512, 256]) -> c: [f32; 256, 256] { c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32); }\ntarget ascend910b;\nschedule s {\n    cube m by 256, n by 256, k by 128;\n    stage a, b in l1;\n    stage a in l0a depth 2;\n    stage b in l0b depth 2;\n    stage c in l0c depth 2;\n}\n";
    matmul_missing_stages: "kernel mm(a: [f16; 64, 64], b: [f16; 64, 64]) -> c: [f32; 64, 64] { c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32); }\ntarget ascend910b;\nschedule s { stage a, b, c in ub; }\n";
    unread_input_needs_no_staging: "kernel k(a: [f32; 1024], unused: [f32; 1]) -> y: [f32; 1024] { y[i] = a[i]; }\ntarget ascend910b;\nschedule s { stage a, y in ub; }\nschedule staged { stage a, unused, y in ub; }\n";
    matmul_without_cube_unit: "kernel mm(a: [f16; 64, 64], b: [f16; 64, 64]) -> c: [f32; 64, 64] { c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32); }\ntarget npueval_demo;\nschedule s { stage a, b, c in ub; }\n";
}

/// A batched matmul (`b` without the batch axis when `shared`) on ascend910b with
/// the given schedule items.
fn bmm(shared: bool, items: &str) -> String {
    let (b, load) = if shared {
        ("[f16; 128, 64]", "b[k, n]")
    } else {
        ("[f16; 6, 128, 64]", "b[t, k, n]")
    };
    format!(
        "kernel bmm(a: [f16; 6, 64, 128], b: {b}) -> c: [f32; 6, 64, 64] {{\n    c[t, m, n] = sum[k](a[t, m, k] as f32 * {load} as f32);\n}}\ntarget ascend910b;\nschedule s {{\n{items}\n}}\n"
    )
}

const BMM_STAGES: &str = "    stage a, b in l1 depth 2;\n    stage a in l0a depth 2;\n    stage b in l0b depth 2;\n    stage c in l0c;";

// Batched matmul: a leading batch axis the cube's block never covers; it tiles and
// spreads over cores like any output axis, alone or in a grid with m or n.
cases! {
    batched_matmul_ok: bmm(false, &format!("    parallel t over 6 cores;\n    cube m by 64, n by 64, k by 64;\n{BMM_STAGES}"));
    batched_matmul_batch_tiles: bmm(false, &format!("    split t by 2;\n    split k by 64;\n    cube m by 32, n by 64, k by 64;\n{BMM_STAGES}"));
    batched_matmul_core_grid: bmm(false, &format!("    parallel t, m over 3 x 2 cores;\n    cube m by 32, n by 64, k by 64;\n{BMM_STAGES}"));
    batched_matmul_shared_weight: bmm(true, &format!("    parallel t over 4 cores;\n    cube m by 64, n by 64, k by 64;\n{BMM_STAGES}\n    tail exact;"));
    batched_matmul_cube_names_batch: bmm(false, &format!("    cube t by 2, m by 64, n by 64, k by 64;\n{BMM_STAGES}"));
    batched_matmul_cube_names_batch_past_extent: bmm(false, &format!("    cube t by 16, m by 64, n by 64, k by 64;\n{BMM_STAGES}"));
    batched_matmul_whole_batch_overflows_l1: "kernel bmm(a: [f16; 16, 64, 128], b: [f16; 16, 128, 64]) -> c: [f32; 16, 64, 64] {\n    c[t, m, n] = sum[k](a[t, m, k] as f32 * b[t, k, n] as f32);\n}\ntarget ascend910b;\nschedule s {\n    cube m by 64, n by 64, k by 64;\n    stage a, b in l1 depth 2;\n    stage a in l0a;\n    stage b in l0b;\n    stage c in l0c;\n}\n";
    batch_axis_not_leading_is_not_a_matmul: "kernel k(a: [f16; 64, 4, 128], b: [f16; 4, 128, 64]) -> c: [f32; 64, 4, 64] { c[m, t, n] = sum[k](a[m, t, k] as f32 * b[t, k, n] as f32); }\ntarget ascend910b;\nschedule s { cube m by 64, n by 64, k by 64; stage a, b in l1; stage a in l0a; stage b in l0b; stage c in l0c; }\n";
    batch_without_batched_operand_is_not_a_matmul: "kernel k(a: [f16; 64, 128], b: [f16; 128, 64]) -> c: [f32; 4, 64, 64] { c[t, m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32); }\ntarget ascend910b;\nschedule s { cube m by 64, n by 64, k by 64; stage a, b in l1; stage a in l0a; stage b in l0b; stage c in l0c; }\n";
}

// Reductions over several axes and with a named accumulator (issue 8).
cases! {
    reduce_two_axes: "kernel k(x: [f32; 16, 12, 40]) -> y: [f32; 16] { y[c] = sum[h, w](x[c, h, w]); }\ntarget ascend910b;\nschedule s { split c by 8; split h by 4; stage x, y in ub depth 2; tail pad; }\n";
    reduce_two_axes_is_not_a_matmul: "kernel k(a: [f32; 16, 4, 4], b: [f32; 4, 4, 16]) -> c: [f32; 16, 16] { c[m, n] = sum[k, l](a[m, k, l] * b[k, l, n]); }\ntarget ascend910b;\nschedule s { stage a, b, c in ub; }\n";
    reduce_named_accumulator_is_not_a_matmul: "kernel k(a: [f16; 16, 32], b: [f16; 32, 16]) -> c: [f16; 16, 16] { c[m, n] = sum[k: f16](a[m, k] * b[k, n]); }\ntarget ascend910b;\nschedule s { stage a, b, c in ub; }\n";
    reduce_accumulator_counts_in_the_plan: "kernel k(x: [f16; 64, 256]) -> (y: [f16; 64], z: [f16; 64]) { y[i] = sum[k: f16](x[i, k]); z[i] = sum[k](x[i, k]); }\ntarget ascend910b;\nschedule s { split i by 16; stage x, y, z in ub; }\n";
    reduce_axis_named_twice: "kernel k(x: [f32; 16, 12, 40]) -> y: [f32; 16] { y[c] = sum[h, h](x[c, h, h]); }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    reduce_axis_in_two_lists: "kernel k(x: [f32; 16, 12, 40]) -> y: [f32; 16] { y[c] = sum[h, w](x[c, h, w]) + max[h](x[c, h, 0]); }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    reduce_axis_without_extent: "kernel k(x: [f32; 16, 12]) -> y: [f32; 16] { y[c] = sum[h, w](x[c, h]); }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    reduce_float_accumulator_for_integers: "kernel k(x: [i32; 16, 12]) -> y: [i32; 16] { y[c] = sum[h: f32](x[c, h]); }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    reduce_unknown_accumulator: "kernel k(x: [f32; 16, 12]) -> y: [f32; 16] { y[c] = sum[h: f64](x[c, h]); }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    reduce_accumulator_the_target_lacks: "kernel k(x: [f16; 16, 64]) -> y: [f16; 16] { y[c] = sum[h: bf16](x[c, h] as bf16) as f16; }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    reduce_split_inside_a_named_accumulator: "kernel k(x: [f16; 16, 12, 64]) -> y: [f16; 16] { y[c] = sum[h, w: f16](x[c, h, w]); }\ntarget ascend910b;\nschedule s { split h by 4; split w by 16; stage x, y in ub; }\n";
    reduce_wide_accumulator_repeats: "kernel k(x: [f16; 8, 64, 62]) -> y: [f16; 8] { y[c] = sum[h, w](x[c, h, w]); }\ntarget ascend910b;\nschedule s { stage x, y in ub; tail pad; }\n";
    reduce_narrow_accumulator_repeats: "kernel k(x: [f16; 8, 64, 62]) -> y: [f16; 8] { y[c] = sum[h, w: f16](x[c, h, w]); }\ntarget ascend910b;\nschedule s { stage x, y in ub; tail pad; }\n";
}

// Issue 7's findings, one case each.
cases! {
    repeats_of_a_plain_copy: "kernel k(x: [f32; 16384]) -> y: [f32; 16384] { y[i] = x[i]; }\ntarget ascend910b;\nschedule s { split i by 16384; stage x, y in ub; }\n";
    repeats_of_a_broadcast: "kernel k(bias: [f32; 1024]) -> y: [f32; 20, 1024] { y[i, j] = bias[j]; }\ntarget ascend910b;\nschedule s { stage bias, y in ub; }\n";
    repeats_of_a_constant: "kernel k(x: [f32; 32768]) -> y: [f32; 32768] { y[i] = 1.5; }\ntarget ascend910b;\nschedule s { split i by 32768; stage y in ub; }\n";
    repeats_at_exactly_the_limit: "kernel k(x: [f32; 16320]) -> y: [f32; 16320] { y[i] = x[i]; }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    repeats_with_two_equal_splits: "kernel k(x: [f32; 256, 256]) -> y: [f32; 256, 256] { y[i, j] = x[i, j] + 1.0; }\ntarget ascend910b;\nschedule s { split i by 128; split j by 128; stage x, y in ub; }\n";
    contiguous_unsplit_f16_rows: "kernel k(x: [f16; 4, 1020]) -> y: [f16; 4, 1020] { y[i, j] = x[i, j] * 2.0; }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    contiguous_unsplit_i8_block: "kernel k(x: [i8; 16, 16]) -> y: [i8; 16, 16] { y[i, j] = x[i, j]; }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    contiguous_unsplit_narrow_rows: "kernel k(x: [f16; 16, 8]) -> y: [f16; 16, 8] { y[i, j] = x[i, j] * 2.0; }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    exact_tail_of_whole_rows: "kernel k(x: [f16; 9, 8]) -> y: [f16; 9, 8] { y[i, j] = x[i, j] * 2.0; }\ntarget ascend910b;\nschedule s { split i by 4; stage x, y in ub; tail exact; }\n";
    tile_help_leaves_no_tail: "kernel k(x: [f32; 65600]) -> y: [f32; 65600] { y[i] = x[i] * 2.0; }\ntarget ascend910b;\nschedule s { split i by 65600; stage x, y in ub depth 2; }\n";
    tail_help_keeps_copies_aligned: "kernel k(x: [f32; 4100]) -> y: [f32; 4100] { y[i] = x[i] * 2.0; }\ntarget ascend910b;\nschedule s { split i by 1000; stage x, y in ub; }\n";
    core_help_keeps_chunks_aligned: "kernel k(x: [f32; 4100]) -> y: [f32; 4100] { y[i] = x[i] * 2.0; }\ntarget ascend910b;\nschedule s { parallel i over 64 cores; stage x, y in ub; }\n";
    core_help_on_a_matmul: "kernel mm(a: [f16; 1024, 512], b: [f16; 512, 256]) -> c: [f32; 1024, 256] { c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32); }\ntarget ascend910b;\nschedule s {\n    parallel m over 32 cores;\n    split k by 256;\n    cube m by 16, n by 64, k by 64;\n    stage a, b in l1;\n    stage a in l0a;\n    stage b in l0b;\n    stage c in l0c;\n}\n";
    core_help_on_one_core: vmla("npueval_demo", "    parallel i over 2 cores;\n    split i by 2048;\n    stage a, b, c, y in ub;");
    rejected_split_draws_nothing_more: "kernel k(x: [f32; 64, 217]) -> y: [f32; 64, 217] { y[i, j] = x[i, j] * 2.0; }\ntarget ascend910b;\nschedule s { parallel i over 8 cores; split i by 10; stage x, y in ub; }\n";
    unknown_dtype_is_one_error: "kernel k(x: [float32; 64]) -> y: [f32; 64] { y[i] = x[i] * 2.0; }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    bf16_sum_accumulates_in_fp32_registers: "kernel k(x: [bf16; 64, 64]) -> y: [bf16; 64] { y[i] = sum[k](x[i, k]); }\ntarget aie2_tile;\nschedule s { split i by 16; stage x, y in ub; }\n";
    help_clears_its_own_diagnostic: "kernel k(x: [bf16; 3, 40, 100], s: [bf16; 3]) -> y: [bf16; 3, 40, 100] { y[b, i, j] = x[b, i, j] * s[b]; }\ntarget aie2_tile;\nschedule s { split i by 5; split j by 30; stage x, s, y in ub depth 2; }\n";
    f32_arithmetic_on_aie2_is_refused: "kernel k(x: [f32; 64]) -> y: [f32; 64] { y[i] = x[i] * 2.0; }\ntarget aie2_tile;\nschedule s { stage x, y in ub; }\n";
}

// Scalar parameters: passed at run time, held in scalar registers, never staged.
cases! {
    scalar_param_has_no_buffer: "kernel add_offset(x: [i8; 4096], offset: i8) -> y: [i8; 4096] { y[i] = x[i] + offset; }\ntarget npueval_demo;\nschedule s { split i by 1024; stage x, y in ub depth 2; }\n";
    scalar_param_as_whole_output: "kernel fill(x: [f32; 1024], v: f32) -> y: [f32; 1024] { y[i] = v; }\ntarget ascend910b;\nschedule s { stage y in ub; }\n";
    scalar_param_in_reduction_and_select: "kernel k(x: [f32; 8, 64], w: f32, t: f32) -> y: [f32; 8] { y[i] = sum[k](select(x[i, k] > t, x[i, k] * w, w)); }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    scalar_param_staged: "kernel k(x: [f16; 1024], s: f16) -> y: [f16; 1024] { y[i] = x[i] * s; }\ntarget ascend910b;\nschedule s { stage x, s, y in ub; }\n";
    scalar_param_with_subscripts: "kernel k(x: [f16; 1024], s: f16) -> y: [f16; 1024] { y[i] = x[i] * s[i]; }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    tensor_without_subscripts: "kernel k(x: [f16; 1024]) -> y: [f16; 1024] { y[i] = x + 1.0; }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    scalar_param_unknown_dtype: "kernel k(x: [f16; 1024], s: half) -> y: [f16; 1024] { y[i] = x[i] * s; }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    scalar_param_dtype_mismatch: "kernel k(x: [f16; 1024], s: f32) -> y: [f16; 1024] { y[i] = x[i] * s; }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    zero_d_output_subscripted: "kernel k(x: [f32; 1024]) -> y: f32 { y[i] = x[i]; }\ntarget ascend910b;\nschedule s { stage x in ub; }\n";
    scalar_param_unknown_name: "kernel k(x: [f16; 1024], scale: f16) -> y: [f16; 1024] { y[i] = x[i] * scal; }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
}

/// A fused softmax over 32 rows of `cols` f32 with the given schedule items.
fn softmax(cols: u64, items: &str) -> String {
    format!(
        "kernel softmax(x: [f32; 32, {cols}]) -> y: [f32; 32, {cols}] {{\n    let m[i] = max[k](x[i, k]);\n    let e[i, k] = exp(x[i, k] - m[i]);\n    let s[i] = sum[k](e[i, k]);\n    y[i, k] = e[i, k] / s[i];\n}}\ntarget ascend910b;\nschedule s {{\n{items}\n}}\n"
    )
}

// Fused kernels: `let` intermediates live in ub, counted by E020; an axis a statement
// reduces over stays whole (E035).
cases! {
    fused_softmax_rows: softmax(1024, "    parallel i over 4 cores;\n    split i by 4;\n    stage x, y in ub depth 2;");
    fused_softmax_split_reduced_axis: softmax(1024, "    split i by 4;\n    split k by 256;\n    stage x, y in ub depth 2;");
    fused_softmax_parallel_reduced_axis: softmax(1024, "    parallel k over 4 cores;\n    stage x, y in ub;");
    fused_softmax_intermediate_staged: softmax(1024, "    split i by 4;\n    stage x, e, y in ub;");
    fused_softmax_overflow: softmax(8192, "    split i by 4;\n    stage x, y in ub depth 2;");
    fused_mse_reduction_axis: "kernel mse(a: [f16; 64, 100], b: [f16; 64, 100]) -> y: [f32; 64] {\n    let d[i, k] = a[i, k] as f32 - b[i, k] as f32;\n    y[i] = sum[k](d[i, k] * d[i, k]) / 100.0;\n}\ntarget ascend910b;\nschedule s { parallel i over 8 cores; stage a, b, y in ub depth 2; tail pad; }\nschedule bad { split k by 50; stage a, b, y in ub; tail pad; }\n";
    let_reduces_over_its_own_axis: "kernel k(x: [f32; 8, 64]) -> y: [f32; 8, 64] { y[i, k] = x[i, k] / sum[k](x[i, k]); }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    let_mistakes: "kernel k(x: [f32; 8, 64]) -> y: [f32; 8, 64] {\n    let r[i, j] = x[i, j] * 2.0;\n    let c[i] = 2.0;\n    let x[i, j] = r[i, j];\n    let p[0] = x[i, j];\n    let q[i, j] = x[i, j] > 0.0;\n    y[i, j] = r[j, i] + u[i, j];\n    let u[i, j] = x[i, j];\n}\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    fused_softmax_overflow_help_keeps_k_whole: softmax(1024, "    split i by 32;\n    stage x, y in ub depth 2;");
    let_unknown_extent: "kernel k(x: [f32; 8]) -> y: [f32; 8] {\n    let c[i, n] = x[i] * 2.0;\n    y[i] = x[i];\n}\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    named_constants_take_the_dtype_of_their_use: "kernel k(x: [f16; 64]) -> y: [f16; 64] {\n    let scale = 127.0;\n    let max_value = 127;\n    let half = -scale / 2.0;\n    y[i] = min(x[i] * scale + half, max_value);\n}\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    named_constant_mistakes: "kernel k(x: [f32; 64], w: [f32; 64]) -> y: [f32; 64] {\n    let i = 0;\n    let scale = 2.0;\n    let scale = 3.0;\n    y[i] = x[i] * scale[i] + w[i];\n}\ntarget ascend910b;\nschedule s { stage x, w, y in ub; }\n";
    named_constants_that_stand_for_too_much: "kernel k(x: [f32; 64]) -> y: [f32; 64] {\n    let c0 = 1.0;\n    let c1 = c0 + c0;\n    let c2 = c1 + c1;\n    let c3 = c2 + c2;\n    let c4 = c3 + c3;\n    let c5 = c4 + c4;\n    let c6 = c5 + c5;\n    let c7 = c6 + c6;\n    let c8 = c7 + c7;\n    let c9 = c8 + c8;\n    let c10 = c9 + c9;\n    let c11 = c10 + c10;\n    let c12 = c11 + c11;\n    let c13 = c12 + c12;\n    let d0 = 2.0;\n    let d1 = -d0;\n    let d2 = -d1;\n    let d3 = -d2;\n    let d4 = -d3;\n    let d5 = -d4;\n    let d6 = -d5;\n    let d7 = -d6;\n    let d8 = -d7;\n    let d9 = -d8;\n    let d10 = -d9;\n    let d11 = -d10;\n    let d12 = -d11;\n    let d13 = -d12;\n    let d14 = -d13;\n    let d15 = -d14;\n    let d16 = -d15;\n    let d17 = -d16;\n    let d18 = -d17;\n    let d19 = -d18;\n    let d20 = -d19;\n    let d21 = -d20;\n    let d22 = -d21;\n    let d23 = -d22;\n    let d24 = -d23;\n    let d25 = -d24;\n    let d26 = -d25;\n    let d27 = -d26;\n    let d28 = -d27;\n    let d29 = -d28;\n    let d30 = -d29;\n    let d31 = -d30;\n    let d32 = -d31;\n    let d33 = -d32;\n    let d34 = -d33;\n    let d35 = -d34;\n    y[i] = x[i] * c13 + d35;\n}\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
}

// Temporaries by liveness: 119 operations summed left to right need 3 temporaries (the
// running sum, the next product, the sum they make); nested to the right, every
// product waits for the sum on its right, so 29 are live at once and E020 summarises.
cases! {
    temporaries_share_by_liveness: chain(60, false, 4096);
    long_e020_breakdown_is_summarised: chain(30, true, 4096);
}

#[test]
fn every_code_has_a_title_and_docs_list_it() {
    let docs = include_str!("../../../docs/dsl.md");
    for code in npu_core::Code::ALL {
        assert!(!code.title().is_empty());
        assert!(
            docs.contains(&format!("| {code} |")),
            "docs/dsl.md does not list {code}"
        );
    }
}

/// Every kernel docs/dsl.md shows (a `text` block that starts with a doc comment or
/// `kernel`) checks: the LLM reads these as the language's contract.
#[test]
fn every_kernel_in_the_docs_checks() {
    let docs = include_str!("../../../docs/dsl.md");
    let mut checked = 0;
    for block in docs.split("```text\n").skip(1) {
        let source = block.split("```").next().unwrap_or_default();
        if !(source.starts_with("///") || source.starts_with("kernel")) {
            continue;
        }
        if let Err(diagnostics) =
            check_source_with(source, |path| Err(format!("no such file: {path}")))
        {
            panic!("{}", diagnostics.render(source));
        }
        checked += 1;
    }
    assert!(checked >= 5, "{checked} kernels found in docs/dsl.md");
}

#[test]
fn explicit_target_overrides_the_named_one() {
    let source = vmla(
        "npueval_demo",
        "    split i by 2048;\n    stage a, b, c, y in ub depth 2;",
    );
    let target = Target::preset("ascend910b").unwrap();
    let kernel = npu_core::check_source(&source, &target).unwrap();
    assert_eq!(kernel.target.name, "ascend910b");
}

// Issue 8, math and bits: new unary math, pow, bit operations, u16/u32, inf/nan,
// saturating casts, and literals that take their context's dtype.
cases! {
    unary_math_on_floats: "kernel k(x: [f32; 1024]) -> y: [f32; 1024] {\n    y[i] = sin(x[i]) + cos(x[i]) * tan(x[i]) + floor(x[i]) - ceil(x[i]) + round(x[i]) * trunc(x[i]) + exp2(x[i]) + log2(x[i]) - log10(x[i]) + erf(x[i]) * sign(x[i]) + pow(x[i], 3.0);\n}\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    sign_of_integers: "kernel k(x: [i16; 1024]) -> y: [i16; 1024] { y[i] = sign(x[i]) * abs(x[i]); }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    float_math_on_integers: "kernel k(n: [i32; 1024]) -> (y: [i32; 1024], z: [i32; 1024]) {\n    y[i] = sin(n[i]);\n    z[i] = round(n[i]) + pow(n[i], 2);\n}\ntarget ascend910b;\nschedule s { stage n, y, z in ub; }\n";
    bit_operations_on_unsigned: "kernel k(a: [u16; 1024], b: [u16; 1024]) -> y: [u16; 1024] {\n    y[i] = (a[i] & b[i]) | (a[i] ^ b[i]) >> 2 | !a[i] << 1 ^ popcount(b[i]);\n}\ntarget ascend910b;\nschedule s { stage a, b, y in ub; }\n";
    bit_operations_on_floats: "kernel k(a: [f16; 1024], b: [f16; 1024]) -> (y: [f16; 1024], z: [f16; 1024], w: [f16; 1024]) {\n    y[i] = a[i] & b[i];\n    z[i] = !a[i];\n    w[i] = popcount(b[i]) + (1.5 << 2);\n}\ntarget ascend910b;\nschedule s { stage a, b, y, z, w in ub; }\n";
    pow_needs_a_constant_exponent: "kernel k(x: [f32; 1024], e: [f32; 1024]) -> (y: [f32; 1024], z: [f32; 1024]) {\n    y[i] = pow(x[i], e[i]);\n    z[i] = pow(x[i], -(1.0 / 3.0));\n}\ntarget ascend910b;\nschedule s { stage x, e, y, z in ub; }\n";
    negative_literals_take_the_dtype: "kernel k(x: [i8; 1024], h: [f16; 1024]) -> (y: [i8; 1024], z: [f16; 1024]) {\n    y[i] = max(x[i], -1) + -(2 * 3);\n    z[i] = h[i] * -2.0 + max(-1, -0.5);\n}\ntarget npueval_demo;\nschedule s { stage x, h, y, z in ub; }\n";
    inf_and_nan_literals: "kernel k(x: [f16; 1024], n: [i32; 1024]) -> (y: [f16; 1024], z: [i32; 1024]) {\n    y[i] = select(x[i] != x[i], -inf, min(x[i], inf)) + nan * 0.0;\n    z[i] = max(n[i], -inf);\n}\ntarget ascend910b;\nschedule s { stage x, n, y, z in ub; }\n";
    saturating_casts: "kernel k(x: [f32; 1024]) -> (y: [i8; 1024], z: [u16; 1024], w: [f16; 1024]) {\n    y[i] = (x[i] * 100.0) as sat i8;\n    z[i] = x[i] as sat u16;\n    w[i] = (x[i] * 1e6) as sat f16;\n}\ntarget npueval_demo;\nschedule s { stage x, y, z, w in ub; }\n";
    saturating_cast_needs_a_dtype: "kernel k(x: [f32; 1024]) -> y: [i8; 1024] { y[i] = x[i] as sat; }\ntarget npueval_demo;\nschedule s { stage x, y in ub; }\n";
    u32_is_a_dtype: "kernel k(x: [u32; 1024]) -> y: [u32; 1024] { y[i] = x[i] >> 3 & 7 | x[i] << 29; }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    literal_trees_keep_a_float: "kernel k(x: [f32; 1024]) -> y: [f32; 1024] { y[i] = x[i] * (1 + 0.5) + floor(2.5); }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
}

/// A target file whose `vector.cycles` leaves out an optional operation: the unit
/// does not compute it, and the checker says so at the call (E026).
#[test]
fn an_operation_without_a_cost_is_one_the_unit_lacks() {
    let mut target = Target::preset("ascend910b").expect("preset");
    target.name = "no_trig".into();
    target
        .vector
        .cycles
        .remove(&npu_core::target::VectorOp::Sin);
    let text = target.to_toml();
    let target = Target::from_toml(&text).expect("an optional cost may be left out");
    let source = "kernel k(x: [f32; 1024]) -> y: [f32; 1024] { y[i] = cos(x[i]) + sin(x[i]) + sin(1.0); }\ntarget no_trig;\nschedule s { stage x, y in ub; }\n";
    let diagnostics = npu_core::check_source(source, &target).expect_err("sin is refused");
    insta::assert_snapshot!(diagnostics.render(source));
}

// Windows: affine subscripts, the bounds proof, halo tiles and padded views.
cases! {
    window_tile_holds_its_halo: "kernel pool(x: [f16; 4097]) -> y: [f16; 2048] { y[i] = max[k < 3](x[2*i + k]); }\ntarget ascend910b;\nschedule s { split i by 128; stage x, y in ub depth 2; tail pad; }\n";
    window_copies_need_alignment: "kernel pool(x: [f16; 4097]) -> y: [f16; 2048] { y[i] = max[k < 3](x[2*i + k]); }\ntarget ascend910b;\nschedule s { split i by 128; stage x, y in ub depth 2; }\n";
    window_reads_past_the_end: "kernel pool(x: [f16; 4096]) -> y: [f16; 2048] { y[i] = max[k < 4](x[2*i + k]); }\ntarget ascend910b;\nschedule s { stage x, y in ub; tail pad; }\n";
    window_reads_before_the_start: "kernel conv(x: [f32; 1024], w: [f32; 3]) -> y: [f32; 1024] { y[t] = sum[k](x[t + k - 1] * w[k]); }\ntarget ascend910b;\nschedule s { stage x, w, y in ub; tail pad; }\n";
    conv1d_valid: "kernel conv(x: [f32; 1028], w: [f32; 8, 5]) -> y: [f32; 8, 1024] { y[o, t] = sum[k](x[t + k] * w[o, k]); }\ntarget ascend910b;\nschedule s { split t by 256; split o by 4; stage x, w, y in ub depth 2; tail pad; }\n";
    padded_view: "kernel p(x: [f16; 1000]) -> y: [f16; 1008] { y[i] = pad(x, 0)[i - 2]; }\ntarget ascend910b;\nschedule s { split i by 256; stage x, y in ub depth 2; tail pad; }\n";
    padded_view_value_errors: "kernel p(x: [i32; 100], m: [i32; 100]) -> (y: [i32; 104], z: [i32; 104]) {\n    y[i] = pad(x, 0.5)[i - 2];\n    z[i] = pad(m, y[0])[i - 2];\n}\ntarget ascend910b;\nschedule s { stage x, m, y, z in ub; tail pad; }\n";
    pad_value_parameter_of_another_dtype: "kernel p(x: [f16; 100], fill: f32) -> y: [f16; 104] { y[i] = pad(x, fill)[i - 2]; }\ntarget ascend910b;\nschedule s { stage x, y in ub; tail pad; }\n";
    padded_views_must_pad_with_one_parameter: "kernel p(x: [f16; 100], lo: f16, hi: f16) -> y: [f16; 104] { y[i] = pad(x, lo)[i - 2] + pad(x, hi)[i - 2]; }\ntarget ascend910b;\nschedule s { stage x, y in ub; tail pad; }\n";
    padded_views_must_agree: "kernel p(x: [f32; 100]) -> y: [f32; 104] { y[i] = pad(x, 0)[i - 2] + pad(x, 1)[i - 2]; }\ntarget ascend910b;\nschedule s { stage x, y in ub; tail pad; }\n";
    output_subscripts_stay_plain: "kernel p(x: [f32; 100]) -> y: [f32; 200] { y[2*i] = x[i]; }\ntarget ascend910b;\nschedule s { stage x, y in ub; tail pad; }\n";
    window_of_no_elements: "kernel p(x: [f32; 100]) -> y: [f32; 100] { y[i] = sum[k < 0](x[i + k]); }\ntarget ascend910b;\nschedule s { stage x, y in ub; tail pad; }\n";
    transpose: "kernel t(x: [f32; 64, 48]) -> y: [f32; 48, 64] { y[j, i] = x[i, j]; }\ntarget ascend910b;\nschedule s { split j by 16; split i by 32; stage x, y in ub depth 2; }\n";
}

// Gathers: the table staged whole along its gathered dimension (counted by E020), an
// integer index (E010), and the forms the language does not run (E037).
cases! {
    gather_embedding_plan: "kernel emb(table: [f16; 1000, 64], idx: [i32; 3000]) -> y: [f16; 3000, 64] {\n    y[i, d] = table[idx[i], d] * 2.0;\n}\ntarget ascend910b;\nschedule s { parallel i over 8 cores; split i by 128; stage table, idx, y in ub; tail pad; }\n";
    gather_table_overflows_ub: "kernel emb(table: [f16; 4000, 64], idx: [i32; 3000]) -> y: [f16; 3000, 64] {\n    y[i, d] = table[idx[i], d];\n}\ntarget ascend910b;\nschedule s { split i by 128; stage table, idx, y in ub; tail pad; }\n";
    gather_float_index: "kernel g(x: [f32; 64], idx: [f32; 8]) -> y: [f32; 8] { y[i] = x[idx[i]]; }\ntarget ascend910b;\nschedule s { stage x, idx, y in ub; }\n";
    gather_unsupported_forms: "kernel g(x: [f32; 64, 64], idx: [i32; 8], b: [i32; 8]) -> (y: [f32; 8], z: [f32; 64]) {\n    let m[i] = idx[i];\n    y[i] = x[idx[i], b[i]] + pad(x, 0)[idx[i], 0] + x[m[i], 0];\n    z[b[i]] = x[0, 0];\n}\ntarget ascend910b;\nschedule s { stage x, idx, b, y, z in ub; }\n";
    gather_nested: "kernel g(x: [f32; 64], idx: [i32; 8], j: [i32; 8]) -> y: [f32; 8] { y[i] = x[idx[j[i]]]; }\ntarget ascend910b;\nschedule s { stage x, idx, j, y in ub; }\n";
    gather_index_out_of_bounds_subscript: "kernel g(x: [f32; 64], idx: [i32; 8]) -> y: [f32; 16] { y[i] = x[idx[i]]; }\ntarget ascend910b;\nschedule s { stage x, idx, y in ub; }\n";
}

// argmax/argmin and scans (issue 8): the index dtype, one axis, the scan axis an
// output axis, and the schedule rules of a running value carried from tile to tile.
cases! {
    argmax_index_in_the_outputs_dtype: "kernel k(x: [f16; 64, 300]) -> y: [i16; 64] { y[i] = argmax[k](x[i, k]); }\ntarget ascend910b;\nschedule s { split i by 16; split k by 64; stage x, y in ub; tail pad; }\n";
    argmax_output_too_narrow: "kernel k(x: [i16; 64, 300]) -> y: [i8; 64] { y[i] = argmax[k](x[i, k]); }\ntarget npueval_demo;\nschedule s { stage x, y in ub; }\n";
    argmax_into_a_float_output: "kernel k(x: [f16; 64, 300]) -> y: [f16; 64] { y[i] = argmin[k](x[i, k]); }\ntarget ascend910b;\nschedule s { stage x, y in ub; tail pad; }\n";
    argmax_named_index_too_narrow: "kernel k(x: [f16; 64, 300]) -> y: [i32; 64] { y[i] = argmax[k: i8](x[i, k]) as i32; }\ntarget npueval_demo;\nschedule s { stage x, y in ub; tail pad; }\n";
    argmax_float_index: "kernel k(x: [f16; 64, 300]) -> y: [i32; 64] { y[i] = argmax[k: f32](x[i, k]); }\ntarget ascend910b;\nschedule s { stage x, y in ub; tail pad; }\n";
    argmax_over_two_axes: "kernel k(x: [f16; 4, 16, 16]) -> y: [i32; 4] { y[c] = argmax[h, w](x[c, h, w]); }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    argmax_needs_an_axis: "kernel k(x: [f16; 64]) -> y: [i32; 64] { y[i] = argmax(x[i]); }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    argmax_plan_has_index_and_value: "kernel k(x: [f16; 64, 256]) -> y: [i32; 64] { y[i] = argmax[k](x[i, k]); }\ntarget ascend910b;\nschedule s { split i by 16; split k by 64; stage x, y in ub; }\n";
    cumsum_plan_has_a_carry: "kernel k(x: [f16; 64, 256]) -> y: [f16; 64, 256] { y[i, k] = cumsum[k](x[i, k]) * 2.0; }\ntarget ascend910b;\nschedule s { split i by 16; split k by 64; stage x, y in ub; }\n";
    cumsum_axis_not_written: "kernel k(x: [f32; 64, 256]) -> y: [f32; 64] { y[i] = cumsum[k](x[i, k]); }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    cumsum_over_two_axes: "kernel k(x: [f32; 4, 8, 8]) -> y: [f32; 4, 8, 8] { y[c, h, w] = cumsum[h, w](x[c, h, w]); }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    cumsum_with_an_extent: "kernel k(x: [f32; 8, 64]) -> y: [f32; 8, 64] { y[i, k] = cumsum[k < 3](x[i, k]); }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    cumsum_inside_a_reduction: "kernel k(x: [f32; 8, 64]) -> y: [f32; 8] { y[i] = sum[k](cumsum[k](x[i, k])); }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    cumsum_inside_a_scan: "kernel k(x: [f32; 8, 64]) -> y: [f32; 8, 64] { y[i, k] = cumsum[k](cumprod[k](x[i, k])); }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    reduction_inside_a_scan: "kernel k(x: [f32; 8, 64, 4]) -> y: [f32; 8, 64] { y[i, k] = cumsum[k](sum[j](x[i, k, j])); }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    cumsum_accumulator_kind: "kernel k(x: [i32; 8, 64]) -> y: [i32; 8, 64] { y[i, k] = cumsum[k: f32](x[i, k]); }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    cumsum_needs_an_axis: "kernel k(x: [f32; 64]) -> y: [f32; 64] { y[i] = cumsum(x[i]); }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    cumprod_on_aie2_is_refused: "kernel k(x: [bf16; 16, 64]) -> y: [bf16; 16, 64] { y[i, k] = cumprod[k](x[i, k]); }\ntarget aie2_tile;\nschedule s { stage x, y in ub; }\n";
    scan_axis_across_cores: "kernel k(x: [f32; 8, 4096]) -> y: [f32; 8, 4096] { y[i, k] = cumsum[k](x[i, k]); }\ntarget ascend910b;\nschedule s { parallel k over 4 cores; stage x, y in ub; }\n";
    scan_axis_split_outside_another: "kernel k(x: [f32; 64, 1024]) -> y: [f32; 64, 1024] { y[i, k] = cumsum[k](x[i, k]); }\ntarget ascend910b;\nschedule s { split i by 8; split k by 256; stage x, y in ub; order k, i; }\n";
    scan_axis_innermost_by_default: "kernel k(x: [f32; 1024, 64]) -> y: [f32; 1024, 64] { y[k, i] = cumsum[k](x[k, i]); }\ntarget ascend910b;\nschedule s { split i by 8; split k by 256; stage x, y in ub; }\n";
    two_split_scan_axes: "kernel k(x: [f32; 64, 64]) -> y: [f32; 64, 64] { y[i, k] = cumsum[k](x[i, k]) + cumsum[i](x[i, k]); }\ntarget ascend910b;\nschedule s { split i by 8; split k by 16; stage x, y in ub; }\n";
}

/// An axis whose extent the output declares, or a reduction states (`k < n`), reads
/// the first elements of a longer input dimension, as `d + 0` always could: the same
/// checked kernel. An axis whose extent was found from another tensor still refuses
/// a tensor that disagrees (npu-ui/tests/ui/fail/e011/shape_mismatch.rs).
#[test]
fn a_declared_axis_reads_the_first_elements_of_a_longer_dimension() {
    let kernel = |read: &str| {
        let source = format!(
            "kernel k(x: [f32; 64, 128], u: [f32; 64, 128], w: [f32; 256]) -> y: [f32; 64, 64] {{
                y[t, d] = {read} * sum[k < 128](u[t, k] * w[k]);
            }}
            target ascend910b;
            schedule s {{ split t by 2; split k by 64; stage x, u, w, y in ub depth 2; }}"
        );
        npu_core::check_source(&source, &Target::preset("ascend910b").expect("preset"))
            .unwrap_or_else(|d| panic!("{}", d.render(&source)))
    };
    let plain = kernel("x[t, d]");
    let offset = kernel("x[t, d + 0]");
    assert_eq!(plain.body, offset.body);
    assert_eq!(plain.schedules, offset.schedules);
}

/// A product with an axis shorter than the cube's fractal (a matrix-vector product,
/// m = 1) fits no cube block: it is a reduction the vector unit runs, and a `cube`
/// item says why instead of asking for a block no tile allows.
#[test]
fn a_product_shorter_than_the_fractal_runs_on_the_vector_unit() {
    let kernel = |schedule: &str| {
        format!(
            "kernel gemv(a: [f16; 1, 256], b: [f16; 256, 512]) -> c: [f32; 1, 512] {{
                c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32);
            }}
            target ascend910b;
            schedule s {{ {schedule} }}"
        )
    };
    let vector = check(&kernel(
        "parallel n over 8 cores; split k by 32; stage a, b, c in ub depth 2;",
    ));
    assert!(vector.starts_with("ok: Reduction"), "{vector}");
    let cube = check(&kernel(
        "cube m by 16, n by 64, k by 64; stage a, b in l1; stage a in l0a; stage b in l0b; stage c in l0c;",
    ));
    assert!(
        cube.contains("error[E026]: kernel `gemv` runs on the vector unit: `m` has 1 element, fewer than the 16-element cube fractal of `ascend910b`"),
        "{cube}"
    );
    // At the fractal, the same product is a matmul.
    let at_fractal = check(
        &kernel("cube m by 16, n by 64, k by 64; stage a, b in l1; stage a in l0a; stage b in l0b; stage c in l0c;")
            .replace("[f16; 1, 256]", "[f16; 16, 256]")
            .replace("[f32; 1, 512]", "[f32; 16, 512]"),
    );
    assert!(at_fractal.starts_with("ok: Matmul"), "{at_fractal}");
}

/// An out-of-range window names the whole read, so the dimension is plain.
#[test]
fn an_out_of_range_read_names_every_subscript() {
    let out = check(
        "kernel k(x: [f32; 16, 64]) -> y: [f32; 16, 64] { y[i, j] = x[i, j + 1]; }
        target ascend910b;
        schedule s { stage x, y in ub; }",
    );
    assert!(
        out.contains("error[E012]: `x[i, j + 1]` reads index 64 when j = 63; `x` has 64 elements along dimension 1"),
        "{out}"
    );
}

/// E020's labels reach the span-free records reports keep: one per staged tensor at its
/// name, saying what its buffer takes.
#[test]
fn e020_records_label_each_staged_buffer() {
    let source = vmla(
        "npueval_demo",
        "    split i by 8192;\n    stage a, b in ub depth 3;\n    stage c, y in ub;",
    );
    let diagnostics = check_source_with(&source, |_| Err("no files".into())).unwrap_err();
    let record = diagnostics
        .records()
        .into_iter()
        .find(|r| r.code == npu_core::Code::E020);
    let labels: Vec<(usize, usize, String)> = record
        .expect("an E020")
        .labels
        .into_iter()
        .map(|l| (l.line, l.column, l.text))
        .collect();
    let expected = [
        (7, 11, "3 slots of 16384 B"),
        (7, 14, "3 slots of 16384 B"),
        (8, 11, "16384 B"),
        (8, 14, "16384 B"),
    ];
    let expected: Vec<(usize, usize, String)> = expected
        .iter()
        .map(|(l, c, t)| (*l, *c, t.to_string()))
        .collect();
    assert_eq!(labels, expected);
}

/// E020's note, how its bytes were counted, is recorded and drawn as rustc draws one:
/// a `= note:` line after the excerpt and its labels, before the help, in the text
/// rendering, in `Display` and in the message the macro gives rustc.
#[test]
fn e020_records_and_renders_a_note_that_adds_up_the_buffers() {
    let source = vmla(
        "npueval_demo",
        "    split i by 8192;\n    stage a, b in ub depth 3;\n    stage c, y in ub;",
    );
    let diagnostics = check_source_with(&source, |_| Err("no files".into())).unwrap_err();
    let note = "the 147456 B are the ub buffers, depth x bytes each: \
                a 3x16384 + b 3x16384 + c 16384 + y 16384 + tmp0 16384";
    let record = diagnostics
        .records()
        .into_iter()
        .find(|r| r.code == npu_core::Code::E020)
        .expect("an E020");
    assert_eq!(record.notes, [note]);
    assert!(!record.message.contains("3x16384"), "{}", record.message);

    let rendered = diagnostics.render(&source);
    let line = |text: &str| rendered.lines().position(|l| l.contains(text));
    let note_line = line(&format!(" = note: {note}")).expect(&rendered);
    let help_line = line(" = help: ").expect(&rendered);
    let last_label = line("- 16384 B").expect(&rendered);
    assert!(
        last_label < note_line && note_line < help_line,
        "\n{rendered}"
    );

    let shown = diagnostics.to_string();
    assert!(
        shown.contains(&format!("  = note: {note}\n  = help: ")),
        "\n{shown}"
    );

    let e020 = diagnostics.iter().find(|d| d.code == npu_core::Code::E020);
    let message = e020.expect("an E020").compiler_message();
    assert!(
        message.contains(&format!("\n= note: {note}\n= help: ")),
        "\n{message}"
    );
}

/// `y[i] = select(..)` of f32 on ascend910b in tiles of `tile`: x, y, the product's
/// temporary (4 B each) and the mask (1 B) make 13 B an element.
fn clip(tile: u64) -> String {
    format!(
        "kernel clip(x: [f32; 65536]) -> y: [f32; 65536] {{\n    y[i] = select(x[i] > 0.0, x[i], x[i] * 0.5);\n}}\ntarget ascend910b;\nschedule s {{ split i by {tile}; stage x, y in ub; tail pad; }}\n"
    )
}

// Ascend C's Select writes the library's scratch from TMP_UB_OFFSET (184 KiB of the
// 910B's 192): a kernel with a select plans below it. 13 x 15104 = 196352 B would fit
// the whole UB but not the 188416 B below the scratch; 13 x 14336 = 186368 B fits.
cases! {
    select_plans_below_the_api_scratch: clip(14336);
    select_reaching_the_api_scratch: clip(15104);
}
