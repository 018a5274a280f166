use super::*;
use crate::storage;
use half::f16;
use npu_core::host::HostTensor;

/// Pairs of edge and random values of `dtype`, as two equal-length lists.
fn pairs(dtype: Dtype) -> (Vec<f64>, Vec<f64>) {
    let mut a = HostTensor::edges(dtype, &[22 * 22], 0).values();
    let mut b: Vec<f64> = (0..a.len()).map(|i| a[(i / 22) % 22]).collect();
    a = (0..a.len()).map(|i| a[i % 22]).collect();
    a.extend(HostTensor::random(dtype, &[512], 1).values());
    b.extend(HostTensor::random(dtype, &[512], 2).values());
    (a, b)
}

fn same(x: f64, y: f64) -> bool {
    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
}

/// The lane loops of `compute`, stored, give what `scalar` gives, for every op and
/// dtype, on every pair of edge values and on random ones.
#[test]
fn lane_arithmetic_stores_what_scalar_computes() {
    use npu_core::ir::CompareOp;
    let ops = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Min,
        BinaryOp::Max,
        BinaryOp::Pow,
        BinaryOp::And,
        BinaryOp::Shl,
        BinaryOp::Rem,
    ];
    for dtype in Dtype::ALL {
        let (a, b) = pairs(dtype);
        let mut kinds: Vec<VectorKind> = ops.iter().map(|op| VectorKind::Binary(*op)).collect();
        kinds.extend([
            VectorKind::Compare(CompareOp::Lt),
            VectorKind::Cast,
            VectorKind::SatCast,
        ]);
        for kind in kinds {
            if matches!(kind, VectorKind::Binary(BinaryOp::And | BinaryOp::Shl)) && dtype.is_float()
            {
                continue;
            }
            let stored_as = if matches!(kind, VectorKind::Compare(_)) {
                Dtype::U8
            } else {
                dtype
            };
            for (a, b) in a.chunks(CHUNK).zip(b.chunks(CHUNK)) {
                let mut out = [0.0; CHUNK];
                let out = &mut out[..a.len()];
                compute(
                    kind,
                    (dtype, Implementation::CorrectlyRounded),
                    a,
                    b,
                    b,
                    out,
                );
                let mut bytes = vec![0u8; a.len() * 4];
                storage::encode(stored_as, out, &mut bytes);
                storage::decode(stored_as, &bytes, out);
                for ((x, y), got) in a.iter().zip(b).zip(out.iter()) {
                    let want = match kind {
                        VectorKind::Binary(op) => scalar::binary(op, dtype, *x, *y),
                        VectorKind::Compare(op) => f64::from(u8::from(scalar::compare(op, *x, *y))),
                        VectorKind::Cast => scalar::cast(dtype, *x),
                        _ => scalar::cast_saturating(dtype, *x),
                    };
                    assert!(
                        same(want, *got),
                        "{kind:?} {dtype} {x} {y}: {got}, scalar {want}"
                    );
                }
            }
        }
    }
}

/// `+ - * /` of f16 values in f32 lanes store the bits the f64 lanes store: every
/// f16 value against edge values and random ones, both ways round.
#[test]
fn f16_arithmetic_in_f32_stores_what_f64_stores() {
    let every: Vec<u16> = (0..=u16::MAX).collect();
    let mut every_bytes = Vec::with_capacity(every.len() * 2);
    for bits in &every {
        every_bytes.extend_from_slice(&bits.to_le_bytes());
    }
    let (mut others, _) = pairs(Dtype::F16);
    others.truncate(40);
    let all = Run {
        offset: 0,
        stride: 2,
        len: every.len(),
    };
    let mut wide = vec![0.0f64; every.len()];
    let mut narrow = vec![0.0f32; every.len()];
    assert!(storage::load(Dtype::F16, &every_bytes, all, &mut wide));
    assert!(storage::load_f16(&every_bytes, all, &mut narrow));
    let ops = [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div];
    for other in others {
        for op in ops {
            for a_first in [true, false] {
                let mut wide_out = vec![0.0f64; every.len()];
                let mut narrow_out = vec![0.0f32; every.len()];
                let wide_other = vec![other; every.len()];
                let narrow_other = vec![other as f32; every.len()];
                let (wa, wb, na, nb) = if a_first {
                    (&wide, &wide_other, &narrow, &narrow_other)
                } else {
                    (&wide_other, &wide, &narrow_other, &narrow)
                };
                for start in (0..every.len()).step_by(CHUNK) {
                    let end = (start + CHUNK).min(every.len());
                    compute(
                        VectorKind::Binary(op),
                        (Dtype::F16, Implementation::CorrectlyRounded),
                        &wa[start..end],
                        &wb[start..end],
                        &wb[start..end],
                        &mut wide_out[start..end],
                    );
                }
                let arithmetic: fn(f32, f32) -> f32 = match op {
                    BinaryOp::Add => |x, y| x + y,
                    BinaryOp::Sub => |x, y| x - y,
                    BinaryOp::Mul => |x, y| x * y,
                    _ => |x, y| x / y,
                };
                zip2(&mut narrow_out, na, nb, arithmetic);
                let mut by_wide = vec![0u8; every.len() * 2];
                let mut by_narrow = vec![0u8; every.len() * 2];
                let mut tags = vec![storage::UNWRITTEN; every.len() * 2];
                assert!(storage::store(
                    Dtype::F16,
                    &wide_out,
                    &mut by_wide,
                    &mut tags,
                    all
                ));
                assert!(storage::store_f16(
                    &narrow_out,
                    &mut by_narrow,
                    &mut tags,
                    all
                ));
                for (i, (w, n)) in by_wide.chunks(2).zip(by_narrow.chunks(2)).enumerate() {
                    let (w, n) = (
                        f16::from_le_bytes([w[0], w[1]]),
                        f16::from_le_bytes([n[0], n[1]]),
                    );
                    assert!(
                        w.to_bits() == n.to_bits() || (w.is_nan() && n.is_nan()),
                        "{op:?} {} {other} (a first: {a_first}): f64 lanes {w}, f32 lanes {n}",
                        wide[i]
                    );
                }
            }
        }
    }
}

/// A float cast reads the source in its own dtype and rounds on the store: every
/// pair of float dtypes gives what `scalar::cast` gives.
#[test]
fn float_casts_round_as_scalar_does() {
    for from in [Dtype::F16, Dtype::Bf16, Dtype::F32] {
        let (values, _) = pairs(from);
        for to in [Dtype::F16, Dtype::Bf16, Dtype::F32] {
            for chunk in values.chunks(CHUNK) {
                let mut out = [0.0; CHUNK];
                let out = &mut out[..chunk.len()];
                compute(
                    VectorKind::Cast,
                    (to, Implementation::CorrectlyRounded),
                    chunk,
                    chunk,
                    chunk,
                    out,
                );
                let mut bytes = vec![0u8; chunk.len() * 4];
                storage::encode(to, out, &mut bytes);
                storage::decode(to, &bytes, out);
                for (x, got) in chunk.iter().zip(out.iter()) {
                    assert!(same(scalar::cast(to, *x), *got), "{from} -> {to}: {x}");
                }
            }
        }
    }
}
