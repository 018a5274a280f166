//! A view that holds one value along its innermost dimensions (stride 0 there: a
//! row's max against every element of the row) moved into a contiguous destination,
//! as one `Duplicate` per value on the vector unit. Each value is read on the scalar
//! unit (`GetValue`) between the emitter's `V_S` flag (the vector unit has written
//! it) and `S_V` flag (the vector unit may then overwrite it), the flags `reduce`
//! and `offsets` use.

use npu_core::program::Program;

use super::view::View;
use crate::text::Text;

/// A view as `duplicate` reads it: address, byte strides, C++ type and element size.
pub(super) type Strided<'v> = (u32, &'v [u64], &'v str, u64);

/// A program's view with its stride table looked up.
pub(super) fn strided<'p>(
    program: &'p Program,
    (address, strides, ty, size): View<'p>,
) -> Strided<'p> {
    (address, &program.strides[strides as usize], ty, size)
}

/// Writes the move of `src` into `dst` over the box `extents` as `Duplicate`s if
/// `src` has stride 0 along the innermost dimensions, `dst` lies contiguous along
/// them, and each run starts 32-byte aligned; `false` leaves the move to the caller.
pub(super) fn duplicate(
    text: &mut Text,
    extents: &[u64],
    (dst, dst_strides, ty, size): Strided,
    (src, src_strides, _, src_size): Strided,
) -> bool {
    let dims: Vec<(u64, u64, u64)> = extents
        .iter()
        .enumerate()
        .filter(|(_, len)| **len > 1)
        .map(|(d, len)| (*len, dst_strides[d], src_strides[d]))
        .collect();
    let split = dims
        .iter()
        .rposition(|(_, _, src)| *src != 0)
        .map_or(0, |d| d + 1);
    let mut run = 1;
    for &(len, dst, _) in dims[split..].iter().rev() {
        if dst != run * size {
            return false;
        }
        run *= len;
    }
    let outer = &dims[..split];
    let aligned = dst % 32 == 0 && outer.iter().all(|(_, dst, _)| dst % 32 == 0);
    let span = |start: u32, stride: fn(&(u64, u64, u64)) -> u64| {
        let last: u64 = dims.iter().map(|dim| (dim.0 - 1) * stride(dim)).sum();
        (u64::from(start), u64::from(start) + last + size)
    };
    let (written, read) = (span(dst, |dim| dim.1), span(src, |dim| dim.2));
    let overlap = written.0 < read.1 && read.0 < written.1;
    if split == dims.len() || !aligned || size != src_size || overlap {
        return false;
    }
    text.comment(&format!(
        "a broadcast of ub {src}: one Duplicate of {run} elements per value"
    ));
    text.line("AscendC::SetFlag<AscendC::HardEvent::V_S>(0);");
    text.line("AscendC::WaitFlag<AscendC::HardEvent::V_S>(0);");
    let (mut to, mut from) = (dst.to_string(), src.to_string());
    for (depth, (len, to_stride, from_stride)) in outer.iter().enumerate() {
        text.open(format!(
            "for (uint64_t b{depth} = 0; b{depth} < {len}; ++b{depth})"
        ));
        to.push_str(&format!(" + b{depth} * {to_stride}"));
        from.push_str(&format!(" + b{depth} * {from_stride}"));
    }
    text.line(format!(
        "AscendC::Duplicate(ub[{to}].ReinterpretCast<{ty}>(), ub.ReinterpretCast<{ty}>().GetValue(({from}) / {size}), {run});"
    ));
    for _ in outer {
        text.close("");
    }
    text.line("AscendC::SetFlag<AscendC::HardEvent::S_V>(0);");
    text.line("AscendC::WaitFlag<AscendC::HardEvent::S_V>(0);");
    true
}
