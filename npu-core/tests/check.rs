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
    matmul_bad_cube: "kernel mm(a: [f16; 256, 512], b: [f16; 512, 256]) -> c: [f32; 256, 256] { c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32); }\ntarget ascend910b;\nschedule s {\n    split k by 200;\n    cube m by 60, n by 512, k by 64;\n    stage a, b in l1 depth 2;\n    stage a in l0a depth 2;\n    stage b in l0b depth 2;\n    stage c in l0c;\n    tail pad;\n}\n";
    matmul_l0_overflow: "kernel mm(a: [f16; 256, 512], b: [f16; 512, 256]) -> c: [f32; 256, 256] { c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32); }\ntarget ascend910b;\nschedule s {\n    cube m by 256, n by 256, k by 128;\n    stage a, b in l1;\n    stage a in l0a depth 2;\n    stage b in l0b depth 2;\n    stage c in l0c depth 2;\n}\n";
    matmul_missing_stages: "kernel mm(a: [f16; 64, 64], b: [f16; 64, 64]) -> c: [f32; 64, 64] { c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32); }\ntarget ascend910b;\nschedule s { stage a, b, c in ub; }\n";
    unread_input_needs_no_staging: "kernel k(a: [f32; 1024], unused: [f32; 1]) -> y: [f32; 1024] { y[i] = a[i]; }\ntarget ascend910b;\nschedule s { stage a, y in ub; }\nschedule staged { stage a, unused, y in ub; }\n";
    matmul_without_cube_unit: "kernel mm(a: [f16; 64, 64], b: [f16; 64, 64]) -> c: [f32; 64, 64] { c[m, n] = sum[k](a[m, k] as f32 * b[k, n] as f32); }\ntarget npueval_demo;\nschedule s { stage a, b, c in ub; }\n";
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
    rejected_split_draws_nothing_more: "kernel k(x: [f32; 64, 217]) -> y: [f32; 64, 217] { y[i, j] = x[i, j] * 2.0; }\ntarget ascend910b;\nschedule s { parallel i over 8 cores; split i by 9; stage x, y in ub; }\n";
    unknown_dtype_is_one_error: "kernel k(x: [float32; 64]) -> y: [f32; 64] { y[i] = x[i] * 2.0; }\ntarget ascend910b;\nschedule s { stage x, y in ub; }\n";
    bf16_sum_accumulates_in_fp32_registers: "kernel k(x: [bf16; 64, 64]) -> y: [bf16; 64] { y[i] = sum[k](x[i, k]); }\ntarget aie2_tile;\nschedule s { split i by 16; stage x, y in ub; }\n";
    help_clears_its_own_diagnostic: "kernel k(x: [bf16; 3, 40, 100], s: [bf16; 3]) -> y: [bf16; 3, 40, 100] { y[b, i, j] = x[b, i, j] * s[b]; }\ntarget aie2_tile;\nschedule s { split i by 5; split j by 30; stage x, s, y in ub depth 2; }\n";
    f32_arithmetic_on_aie2_is_refused: "kernel k(x: [f32; 64]) -> y: [f32; 64] { y[i] = x[i] * 2.0; }\ntarget aie2_tile;\nschedule s { stage x, y in ub; }\n";
}

#[test]
fn every_code_has_a_title_and_docs_list_it() {
    let docs = include_str!("../../docs/dsl.md");
    for code in npu_core::Code::ALL {
        assert!(!code.title().is_empty());
        assert!(
            docs.contains(&format!("| {code} |")),
            "docs/dsl.md does not list {code}"
        );
    }
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

// Windows: affine subscripts, the bounds proof, halo tiles and padded views.
cases! {
    window_tile_holds_its_halo: "kernel pool(x: [f16; 4097]) -> y: [f16; 2048] { y[i] = max[k < 3](x[2*i + k]); }\ntarget ascend910b;\nschedule s { split i by 128; stage x, y in ub depth 2; tail pad; }\n";
    window_copies_need_alignment: "kernel pool(x: [f16; 4097]) -> y: [f16; 2048] { y[i] = max[k < 3](x[2*i + k]); }\ntarget ascend910b;\nschedule s { split i by 128; stage x, y in ub depth 2; }\n";
    window_reads_past_the_end: "kernel pool(x: [f16; 4096]) -> y: [f16; 2048] { y[i] = max[k < 4](x[2*i + k]); }\ntarget ascend910b;\nschedule s { stage x, y in ub; tail pad; }\n";
    window_reads_before_the_start: "kernel conv(x: [f32; 1024], w: [f32; 3]) -> y: [f32; 1024] { y[t] = sum[k](x[t + k - 1] * w[k]); }\ntarget ascend910b;\nschedule s { stage x, w, y in ub; tail pad; }\n";
    conv1d_valid: "kernel conv(x: [f32; 1028], w: [f32; 8, 5]) -> y: [f32; 8, 1024] { y[o, t] = sum[k](x[t + k] * w[o, k]); }\ntarget ascend910b;\nschedule s { split t by 256; split o by 4; stage x, w, y in ub depth 2; tail pad; }\n";
    padded_view: "kernel p(x: [f16; 1000]) -> y: [f16; 1008] { y[i] = pad(x, 0)[i - 2]; }\ntarget ascend910b;\nschedule s { split i by 256; stage x, y in ub depth 2; tail pad; }\n";
    padded_view_value_errors: "kernel p(x: [i32; 100], m: [i32; 100]) -> (y: [i32; 104], z: [i32; 104]) {\n    y[i] = pad(x, 0.5)[i - 2];\n    z[i] = pad(m, y[0])[i - 2];\n}\ntarget ascend910b;\nschedule s { stage x, m, y, z in ub; tail pad; }\n";
    padded_views_must_agree: "kernel p(x: [f32; 100]) -> y: [f32; 104] { y[i] = pad(x, 0)[i - 2] + pad(x, 1)[i - 2]; }\ntarget ascend910b;\nschedule s { stage x, y in ub; tail pad; }\n";
    output_subscripts_stay_plain: "kernel p(x: [f32; 100]) -> y: [f32; 200] { y[2*i] = x[i]; }\ntarget ascend910b;\nschedule s { stage x, y in ub; tail pad; }\n";
    window_of_no_elements: "kernel p(x: [f32; 100]) -> y: [f32; 100] { y[i] = sum[k < 0](x[i + k]); }\ntarget ascend910b;\nschedule s { stage x, y in ub; tail pad; }\n";
    transpose: "kernel t(x: [f32; 64, 48]) -> y: [f32; 48, 64] { y[j, i] = x[i, j]; }\ntarget ascend910b;\nschedule s { split j by 16; split i by 32; stage x, y in ub depth 2; }\n";
}
