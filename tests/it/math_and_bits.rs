//! Issue 8's math and bits, end to end through the macro: for each kernel, on seeded
//! random data and on edge values (zeros of both signs, halves, the dtype's extremes,
//! infinities, NaN, shifts past the width), the macro's generated `evaluate` and the
//! simulator's reference interpreter agree exactly, and every schedule, lowered and
//! simulated, matches them.

use npu::ir::{CheckedKernel, Role};
use npu::sim::{Correctness, SimOptions};
use npu::{HostTensor, npu_kernel};

npu_kernel! {
    /// GELU with the exact error function.
    kernel gelu_erf(x: [f32; 4096]) -> y: [f32; 4096] {
        y[i] = 0.5 * x[i] * (1.0 + erf(x[i] * 0.70710678));
    }
    target ascend910b;
    schedule hand {
        parallel i over 4 cores;
        split i by 512;
        stage x, y in ub depth 2;
    }
}

npu_kernel! {
    /// Trigonometry, exp2 and logarithms in f16.
    kernel trig(x: [f16; 64, 128]) -> y: [f16; 64, 128] {
        y[i, j] = sin(x[i, j]) * cos(x[i, j]) + tan(x[i, j] * 0.5) + exp2(x[i, j]) - log2(abs(x[i, j]) + 1.0) * log10(abs(x[i, j]) + 1.0);
    }
    target npueval_demo;
    schedule hand {
        split i by 16;
        stage x, y in ub depth 2;
    }
}

npu_kernel! {
    /// Rounding: half to even, floor, ceil, trunc, and the sign.
    kernel rounding(x: [f32; 2048]) -> y: [f32; 2048] {
        y[i] = round(x[i] * 8.0) + floor(x[i]) - ceil(x[i]) * trunc(x[i] * 3.0) + sign(x[i]);
    }
    target ascend310p;
    schedule hand {
        split i by 1024;
        stage x, y in ub depth 2;
    }
}

npu_kernel! {
    /// Powers with constant exponents.
    kernel powers(x: [f32; 2048]) -> y: [f32; 2048] {
        y[i] = pow(x[i], 3.0) - pow(abs(x[i]), 0.5) + pow(x[i], -2.0);
    }
    target ascend910b;
    schedule hand {
        parallel i over 2 cores;
        stage x, y in ub depth 2;
    }
}

npu_kernel! {
    /// Bit operations on u16, with Rust's precedence.
    kernel bit_mix(a: [u16; 4096], b: [u16; 4096]) -> y: [u16; 4096] {
        y[i] = a[i] & b[i] ^ a[i] >> 3 | !b[i] << 2;
    }
    target ascend910b;
    schedule hand {
        split i by 1024;
        stage a, b, y in ub depth 2;
    }
}

npu_kernel! {
    /// Shifts by a tensor of amounts, some negative or past the width.
    kernel shifts(a: [i16; 2048], s: [i16; 2048]) -> y: [i16; 2048] {
        y[i] = (a[i] << s[i]) + (a[i] >> s[i]);
    }
    target ascend910b;
    schedule hand {
        stage a, s, y in ub depth 1;
    }
}

npu_kernel! {
    /// Hamming distance of u32 words.
    kernel hamming(a: [u32; 2048], b: [u32; 2048]) -> d: [u32; 2048] {
        d[i] = popcount(a[i] ^ b[i]);
    }
    target ascend910b;
    schedule hand {
        split i by 512;
        stage a, b, d in ub depth 2;
    }
}

npu_kernel! {
    /// Symmetric int8 quantisation: scale, round half to even, saturate.
    kernel quantize(x: [f32; 4096]) -> q: [i8; 4096] {
        q[i] = round(x[i] * 127.0) as sat i8;
    }
    target npueval_demo;
    schedule hand {
        split i by 1024;
        stage x, q in ub depth 2;
    }
}

npu_kernel! {
    /// Negative literals take the operand's dtype: clamp and negate in i8.
    kernel clamp_negate(x: [i8; 4096]) -> y: [i8; 4096] {
        y[i] = max(min(x[i], 100), -100) * -1 + -2;
    }
    target npueval_demo;
    schedule hand {
        split i by 2048;
        stage x, y in ub depth 2;
    }
}

npu_kernel! {
    /// NaN to 0 and infinities to the largest f16, with `inf` and `nan` literals.
    kernel nan_to_num(x: [f16; 4096]) -> y: [f16; 4096] {
        y[i] = select(x[i] != x[i], 0.0, select(x[i] == inf, 65504.0, select(x[i] == -inf, -65504.0, x[i] * -2.0 + nan * 0.0 * 0.0)));
    }
    target npueval_demo;
    schedule hand {
        split i by 1024;
        stage x, y in ub depth 2;
    }
}

npu_kernel! {
    /// 32-bit products that pass 2^53 before they wrap: a Knuth multiplicative hash, a
    /// square and a running product.
    kernel wide_products(x: [u32; 64, 32], y: [i32; 64, 32]) -> (h: [u32; 64, 32], g: [i32; 64, 32], p: [i32; 64, 32]) {
        h[r, c] = x[r, c] * 2654435761;
        g[r, c] = y[r, c] * y[r, c];
        p[r, c] = cumprod[c](y[r, c]);
    }
    target ascend910b;
    schedule hand {
        parallel r over 4 cores;
        split r by 8;
        stage x, y, h, g, p in ub depth 2;
    }
}

include!("support/long_chain_kernel.rs");

type Reference = fn(&[HostTensor]) -> Result<Vec<HostTensor>, npu::InputError>;

fn kernels() -> Vec<(&'static CheckedKernel, Reference)> {
    vec![
        (gelu_erf::kernel(), gelu_erf::reference_host),
        (trig::kernel(), trig::reference_host),
        (rounding::kernel(), rounding::reference_host),
        (powers::kernel(), powers::reference_host),
        (bit_mix::kernel(), bit_mix::reference_host),
        (shifts::kernel(), shifts::reference_host),
        (hamming::kernel(), hamming::reference_host),
        (quantize::kernel(), quantize::reference_host),
        (clamp_negate::kernel(), clamp_negate::reference_host),
        (nan_to_num::kernel(), nan_to_num::reference_host),
        (wide_products::kernel(), wide_products::reference_host),
        (long_chain::kernel(), long_chain::reference_host),
    ]
}

/// Random inputs (seeded) and edge-value inputs, each input rotated differently.
fn data_sets(kernel: &CheckedKernel) -> Vec<(&'static str, Vec<HostTensor>)> {
    let inputs: Vec<_> = kernel
        .tensors
        .iter()
        .filter(|t| t.role == Role::Input)
        .collect();
    let random = inputs
        .iter()
        .enumerate()
        .map(|(i, t)| HostTensor::random(t.dtype, &t.shape, 11 + i as u64))
        .collect();
    let edges = inputs
        .iter()
        .enumerate()
        .map(|(i, t)| HostTensor::edges(t.dtype, &t.shape, 5 * i))
        .collect();
    vec![("random", random), ("edges", edges)]
}

/// Equal as stored values, NaN equal to NaN.
fn same(a: &[HostTensor], b: &[HostTensor]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(a, b)| {
            a.dtype() == b.dtype()
                && a.shape() == b.shape()
                && a.values()
                    .iter()
                    .zip(&b.values())
                    .all(|(x, y)| x == y || (x.is_nan() && y.is_nan()))
        })
}

#[test]
fn a_chain_at_the_limit_is_one_node_of_the_checked_kernel() {
    let value = &long_chain::kernel().body[0].value;
    let npu::ir::Expr::Chain { rest, .. } = value else {
        panic!("not one chain: {value:?}");
    };
    assert_eq!(rest.len() + 1, npu::MAX_CHAIN_TERMS);
}

#[test]
fn both_references_and_the_simulator_agree_on_random_and_edge_values() {
    let options = SimOptions {
        functional: true,
        trace: false,
        ..SimOptions::default()
    };
    for (kernel, reference_host) in kernels() {
        for (data, inputs) in data_sets(kernel) {
            let what = format!("{} on {data} values", kernel.name);
            let macro_reference = reference_host(&inputs).expect("inputs of the right shape");
            let sim_reference = npu::sim::reference(kernel, &inputs).expect("no gathers");
            assert!(
                same(&macro_reference, &sim_reference),
                "{what}: the macro's evaluate and the simulator's reference differ"
            );
            for (index, schedule) in kernel.schedules.iter().enumerate() {
                let evaluation =
                    npu::sim::evaluate(kernel, index, &inputs, Some(&macro_reference), &options)
                        .unwrap_or_else(|error| panic!("{what}, {}: {error}", schedule.name));
                assert!(
                    matches!(evaluation.correctness, Correctness::Passed { .. }),
                    "{what}, {}: {:?}",
                    schedule.name,
                    evaluation.correctness
                );
            }
        }
    }
}

/// Values worked out by hand, one per rule the scalar semantics define.
#[test]
fn the_semantics_at_their_edges() {
    let run = |reference: Reference, inputs: &[HostTensor]| reference(inputs).unwrap()[0].clone();
    let f32s = |values: &[f32]| HostTensor::from_slice(&[values.len() as u64], values);
    let pad = |values: &[f32], n: usize| {
        let mut all = values.to_vec();
        all.resize(n, 0.0);
        all
    };
    // Round half to even: 0.5 * 8 = 4 exactly; 0.0625 * 8 = 0.5 rounds to 0 and
    // 0.1875 * 8 = 1.5 rounds to 2; floor, ceil and trunc of 0 are 0 and the sign
    // of -0.0625 is -1.
    let x = pad(&[0.0625, 0.1875, -0.0625], 2048);
    let y = run(rounding::reference_host, &[f32s(&x)]);
    // round(0.5) + floor(0.0625) - ceil(0.0625) * trunc(0.1875) + sign(0.0625)
    assert_eq!(y.values()[0], 0.0 + 0.0 - 1.0 * 0.0 + 1.0);
    // round(1.5) + 0 - 1 * 0 + 1
    assert_eq!(y.values()[1], 3.0);
    // round(-0.5) = -0 + floor(-0.0625) = -1 - ceil(-0.0625) = -0 * 0 + sign = -1
    assert_eq!(y.values()[2], -2.0);

    // Saturation: 2 * 127 = 254 clamps to 127, -254 to -128, NaN becomes 0.
    let x = pad(&[2.0, -2.0, f32::NAN, 0.5], 4096);
    let q = run(quantize::reference_host, &[f32s(&x)]);
    assert_eq!(&q.values()[..4], &[127.0, -128.0, 0.0, 64.0]);

    // Shifts: 1 << 15 wraps to i16::MIN; a shift by 16 or more, or by a negative
    // amount, shifts every bit out: 0, or -1 from `>>` of a negative value.
    let a: Vec<i16> = [1, 1, -8, -8, 5, 5].into_iter().chain([0; 2042]).collect();
    let s: Vec<i16> = [15, 16, 1, 16, -1, 2]
        .into_iter()
        .chain([0; 2042])
        .collect();
    let y = run(
        shifts::reference_host,
        &[
            HostTensor::from_slice(&[2048], &a),
            HostTensor::from_slice(&[2048], &s),
        ],
    );
    // (1 << 15) + (1 >> 15) = -32768 + 0; (1 << 16) + (1 >> 16) = 0 + 0;
    // (-8 << 1) + (-8 >> 1) = -16 - 4; (-8 << 16) + (-8 >> 16) = 0 - 1;
    // (5 << -1) + (5 >> -1) = 0 + 0; (5 << 2) + (5 >> 2) = 20 + 1.
    assert_eq!(&y.values()[..6], &[-32768.0, 0.0, -20.0, -1.0, 0.0, 21.0]);

    // `!` and `>>` on u16: !0 = 65535; 65535 >> 3 = 8191.
    let a: Vec<u16> = [0xffff, 0].into_iter().chain([0; 4094]).collect();
    let b: Vec<u16> = [0, 0xffff].into_iter().chain([0; 4094]).collect();
    let y = run(
        bit_mix::reference_host,
        &[
            HostTensor::from_slice(&[4096], &a),
            HostTensor::from_slice(&[4096], &b),
        ],
    );
    // a & b ^ a >> 3 | !b << 2, as ((a & b) ^ (a >> 3)) | (!b << 2):
    // [0 ^ 8191 | 65535 << 2 = 8191 | 65532 = 65535, 0 ^ 0 | 0 << 2 = 0]
    assert_eq!(&y.values()[..2], &[65535.0, 0.0]);
}

/// 32-bit integer products wrap as Rust's `wrapping_mul` does, in the reference and
/// on the simulator, though the exact product needs up to 64 bits.
#[test]
fn wide_integer_products_wrap_exactly() {
    let kernel = wide_products::kernel();
    // Full-range words from a seeded generator.
    let mut rng = fastrand::Rng::with_seed(0x2545_f491_4f6c_dd1d);
    let mut words = std::iter::repeat_with(|| rng.u32(..));
    let x: Vec<u32> = words.by_ref().take(2048).collect();
    let y: Vec<i32> = words.take(2048).map(|w| w as i32).collect();
    let inputs = &[
        HostTensor::from_slice(&[64, 32], &x),
        HostTensor::from_slice(&[64, 32], &y),
    ];
    let hash: Vec<u32> = x.iter().map(|x| x.wrapping_mul(2654435761)).collect();
    let square: Vec<i32> = y.iter().map(|y| y.wrapping_mul(*y)).collect();
    let running: Vec<i32> = y
        .chunks(32)
        .flat_map(|row| {
            row.iter().scan(1i32, |product, y| {
                *product = product.wrapping_mul(*y);
                Some(*product)
            })
        })
        .collect();
    let expected = [
        HostTensor::from_slice(&[64, 32], &hash),
        HostTensor::from_slice(&[64, 32], &square),
        HostTensor::from_slice(&[64, 32], &running),
    ];
    assert!(
        x.iter().any(|x| u64::from(*x) * 2654435761 > 1 << 53),
        "the data reaches products past 2^53"
    );
    let reference = wide_products::reference_host(inputs).expect("inputs of the right shape");
    assert!(
        same(&reference, &expected),
        "the reference wraps as Rust does"
    );
    let evaluation = npu::sim::evaluate(kernel, 0, inputs, Some(&expected), &SimOptions::default())
        .expect("simulates");
    assert!(
        evaluation.correctness == Correctness::Passed { max_abs_error: 0.0 },
        "{:?}",
        evaluation.correctness
    );
}
