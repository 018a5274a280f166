//! The `npu_kernel!` host reference of a kernel on aie2_tile computes each function
//! the target names an algorithm for (`[vector.functions]`) with that algorithm, bit
//! for bit as the simulator's IR interpreter does, on every bf16 bit pattern; and a
//! function of constants only is folded correctly rounded, as lowering folds it.

use npu::ir::{BinaryOp, UnaryOp};
use npu::scalar;
use npu::target::Implementation;
use npu::{Dtype, HostTensor};

npu::npu_kernel! {
    kernel aie_functions(x: [bf16; 256, 256], w: [bf16; 256, 256])
        -> (e: [bf16; 256, 256], e2: [bf16; 256, 256], r: [bf16; 256, 256],
            q: [bf16; 256, 256], s: [bf16; 256, 256], t: [bf16; 256, 256],
            l: [bf16; 256, 256], l2: [bf16; 256, 256], l10: [bf16; 256, 256],
            d: [bf16; 256, 256], c: [bf16; 256, 256]) {
        e[i, j] = exp(x[i, j]);
        e2[i, j] = exp2(x[i, j]);
        r[i, j] = rsqrt(x[i, j]);
        q[i, j] = recip(x[i, j]);
        s[i, j] = sigmoid(x[i, j]);
        t[i, j] = tanh(x[i, j]);
        l[i, j] = log(x[i, j]);
        l2[i, j] = log2(x[i, j]);
        l10[i, j] = log10(x[i, j]);
        d[i, j] = w[i, j] / x[i, j];
        c[i, j] = x[i, j] * 0.0 + exp(1.0) / 3.0;
    }
    target aie2_tile;
    schedule hand { split i by 4; stage x, w, e, e2, r, q, s, t, l, l2, l10, d, c in ub depth 1; }
}

/// Every bf16 pattern in `x` and, in `w`, the pattern times an odd number.
fn inputs() -> Vec<HostTensor> {
    let tensor = |pattern: &dyn Fn(u32) -> u16| {
        let bytes = (0..65536).flat_map(|p| pattern(p).to_le_bytes()).collect();
        HostTensor::from_bytes(Dtype::Bf16, &[256, 256], bytes).expect("bf16 bytes")
    };
    vec![
        tensor(&|p| p as u16),
        tensor(&|p| (p.wrapping_mul(40503) & 0xFFFF) as u16),
    ]
}

fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

#[test]
fn the_host_reference_computes_the_targets_functions() {
    let inputs = inputs();
    let kernel = aie_functions::kernel();
    let compiled = aie_functions::reference_host(&inputs).expect("valid inputs");
    let interpreted = npu::sim::reference(kernel, &inputs).expect("valid inputs");
    let (x, w) = (inputs[0].values(), inputs[1].values());
    let unary = [
        UnaryOp::Exp,
        UnaryOp::Exp2,
        UnaryOp::Rsqrt,
        UnaryOp::Recip,
        UnaryOp::Sigmoid,
        UnaryOp::Tanh,
        UnaryOp::Log,
        UnaryOp::Log2,
        UnaryOp::Log10,
    ];
    for (output, (got, want)) in compiled.iter().zip(&interpreted).enumerate() {
        let (got, want) = (got.values(), want.values());
        let mut differs_from_exact = false;
        for at in 0..got.len() {
            assert!(
                same(got[at], want[at]),
                "output {output}, element {at}: host {}, interpreter {}",
                got[at],
                want[at]
            );
            let (algorithm, exact) = match output {
                0..=8 => (
                    scalar::unary_by(Implementation::Aie2Bf16, unary[output], Dtype::Bf16, x[at]),
                    scalar::unary(unary[output], Dtype::Bf16, x[at]),
                ),
                9 => (
                    scalar::binary_by(
                        Implementation::Aie2Bf16,
                        BinaryOp::Div,
                        Dtype::Bf16,
                        w[at],
                        x[at],
                    ),
                    scalar::binary(BinaryOp::Div, Dtype::Bf16, w[at], x[at]),
                ),
                _ => {
                    // exp(1) / 3 folded at compile time, correctly rounded step by step.
                    let e = scalar::unary(UnaryOp::Exp, Dtype::Bf16, 1.0);
                    let folded = scalar::binary(BinaryOp::Div, Dtype::Bf16, e, 3.0);
                    (folded, folded)
                }
            };
            if !x[at].is_finite() && output == 10 {
                continue;
            }
            assert!(
                same(got[at], algorithm),
                "output {output}, element {at}: host {}, algorithm {algorithm}",
                got[at]
            );
            differs_from_exact |= !same(algorithm, exact);
        }
        // A unary algorithm differs from the exact function somewhere in 65,536
        // values (so the test sees which one ran); division on these pairs need not.
        if output < 9 {
            assert!(differs_from_exact, "output {output} is the exact function");
        }
    }
}
