//! The largest error, in bf16 ULP against the correctly rounded result, of every
//! function on every preset, over all 65,536 bf16 arguments (division: every divisor
//! against a spread of dividends). The table is the section of docs/targets.md
//! between its markers; `NPU_BLESS=1 cargo test -p npu-core --test it functions`
//! rewrites it.

use npu_core::Dtype;
use npu_core::ir::{BinaryOp, UnaryOp};
use npu_core::scalar;
use npu_core::target::{Implementation, Target, VectorOp};

const BEGIN: &str =
    "<!-- functions table: written by `NPU_BLESS=1 cargo test -p npu-core --test it functions` -->";
const END: &str = "<!-- end of functions table -->";

/// Every bf16 value, by bit pattern.
fn all_bf16() -> impl Iterator<Item = f64> {
    (0..=u16::MAX).map(|bits| f64::from(f32::from_bits(u32::from(bits) << 16)))
}

/// The distance in bf16 steps between two bf16 values; NaN is 0 from NaN and
/// `u64::MAX` from anything else, and the two zeros are one point.
fn ulp(a: f64, b: f64) -> u64 {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() {
            0
        } else {
            u64::MAX
        };
    }
    let line = |x: f64| {
        let bits = i64::from((x as f32).to_bits() >> 16);
        if bits & 0x8000 != 0 {
            -(bits & 0x7FFF)
        } else {
            bits
        }
    };
    line(a).abs_diff(line(b))
}

/// The largest error of unary `op` as `implementation` computes it.
fn unary_error(implementation: Implementation, op: UnaryOp) -> u64 {
    all_bf16()
        .map(|x| {
            let got = scalar::unary_by(implementation, op, Dtype::Bf16, x);
            ulp(got, scalar::unary(op, Dtype::Bf16, x))
        })
        .max()
        .unwrap_or(0)
}

/// The largest error of `a / b` over every divisor `b` and the dividends of every
/// 509th bit pattern, the specials and ±1.
fn division_error(implementation: Implementation) -> u64 {
    let dividends: Vec<f64> = all_bf16()
        .step_by(509)
        .chain([1.0, -1.0, 0.0, -0.0, f64::INFINITY, f64::NAN, 3.0, 1e-40])
        .map(|a| Dtype::Bf16.round(a))
        .collect();
    let mut worst = 0;
    for b in all_bf16() {
        for &a in &dividends {
            let got = scalar::binary_by(implementation, BinaryOp::Div, Dtype::Bf16, a, b);
            worst = worst.max(ulp(got, scalar::binary(BinaryOp::Div, Dtype::Bf16, a, b)));
        }
    }
    worst
}

/// The functions measured: the float unary operations, then division.
fn functions() -> Vec<(String, VectorOp, Option<UnaryOp>)> {
    let mut rows: Vec<_> = UnaryOp::ALL
        .into_iter()
        .filter(|op| op.float_only())
        .map(|op| (op.name().to_string(), op.vector_op(), Some(op)))
        .collect();
    rows.push(("div (`/`)".to_string(), VectorOp::Div, None));
    rows
}

fn render(targets: &[Target]) -> String {
    let mut text = format!("{BEGIN}\n\n| function |");
    for target in targets {
        text.push_str(&format!(" `{}` |", target.name));
    }
    text.push_str("\n|---|");
    text.push_str(&"---|".repeat(targets.len()));
    for (name, cost, op) in functions() {
        text.push_str(&format!("\n| {name} |"));
        for target in targets {
            let cell = if !target.computes(cost) {
                "–".to_string()
            } else {
                let implementation = target.implementation(cost);
                let error = match op {
                    Some(op) => unary_error(implementation, op),
                    None => division_error(implementation),
                };
                assert!(
                    error != u64::MAX,
                    "{name} on {}: a NaN where the exact result is a number, or the reverse",
                    target.name
                );
                format!("{error} ({})", implementation.name())
            };
            text.push_str(&format!(" {cell} |"));
        }
    }
    text.push_str(&format!("\n\n{END}"));
    text
}

#[test]
fn functions_table_is_docs_targets_md() {
    let targets: Vec<Target> = Target::preset_names()
        .into_iter()
        .filter_map(Target::preset)
        .collect();
    let table = render(&targets);
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/targets.md");
    let page = std::fs::read_to_string(path).unwrap_or_default();
    let (Some(begin), Some(end)) = (page.find(BEGIN), page.find(END)) else {
        panic!("docs/targets.md has no functions table markers");
    };
    let current = &page[begin..end + END.len()];
    if std::env::var_os("NPU_BLESS").is_some() {
        std::fs::write(path, page.replace(current, &table)).expect("docs/targets.md is written");
    } else {
        assert!(
            current == table,
            "docs/targets.md's functions table is stale; rewrite it with `NPU_BLESS=1 cargo test -p npu-core --test it functions`:\n{table}"
        );
    }
}
