//! `vgather` as `Gather`: the offset table holds, for each element of the box, its
//! position in the table's view plus its index times the table's row bytes. Every
//! index is checked first: outside the gathered extent the kernel calls `Trap()`,
//! where the simulator stops with an error, so the gather never reads outside the
//! table. The `lookup` module writes the table on the vector unit, or where its
//! scratch does not fit, the positions on the vector unit moved on row by row by the
//! index the scalar unit reads; where neither can, the `offsets` module writes it on
//! the scalar unit, each index read and checked there.

use npu_core::program::{Operand, Program, VectorInstr};

use super::names::{c_type, unsupported};
use super::offsets::{Lookup, destination, gather_calls, table};
use crate::output::Unsupported;
use crate::text::Text;

/// `vgather`: each element reads its index on the scalar unit, checks it against the
/// gathered extent (`Trap()` outside it, where the simulator stops with an error),
/// and `Gather` reads the table's view moved on by the index's rows.
pub(super) fn gather(
    text: &mut Text,
    program: &Program,
    v: &VectorInstr,
    (gather, room): (u8, u64),
) -> Result<(), Unsupported> {
    let construct = format!("{} {}", v.kind.mnemonic(), v.dtype.name());
    let facts = &program.gathers[usize::from(gather)];
    let (
        Operand::Ub {
            address: from,
            strides: from_strides,
        },
        Operand::Ub {
            address: index,
            strides: index_strides,
        },
    ) = (v.src[0], v.src[1])
    else {
        return Err(unsupported(
            &construct,
            "the table and the index lie in the ub",
        ));
    };
    let (Some(ty), Some(index_ty)) = (c_type(v.dtype), c_type(facts.index_dtype)) else {
        return Err(unsupported(
            &construct,
            "Gather is written for f16, f32, i16 and i32 tables with i16 or i32 indices",
        ));
    };
    let extents = &program.boxes[v.shape as usize];
    let size = v.dtype.size();
    destination(
        program,
        &construct,
        extents,
        (v.dst, v.dst_strides, ty, size),
    )?;
    let from_strides = &program.strides[from_strides as usize];
    let index_strides = &program.strides[index_strides as usize];
    let base = from / 32 * 32;
    let index_at: String = (0..extents.len())
        .map(|d| format!(" + g{d} * {}", index_strides[d]))
        .collect();
    let lookup = Lookup {
        read: format!(
            "ub.ReinterpretCast<{index_ty}>().GetValue(({index}{index_at}) / {})",
            facts.index_dtype.size()
        ),
        extent: facts.extent,
        row_bytes: facts.row_bytes,
    };
    let start = u64::from(from - base);
    text.comment(&format!("{construct}: offsets from the index tile"));
    let looked_up = super::lookup::table(text, program, v, facts, (start, room))
        .or_else(|| super::lookup::per_row(text, program, v, facts, start));
    let table = match looked_up {
        Some(table) => table,
        None => {
            text.comment("each element's index read and checked on the scalar unit");
            table(
                text,
                program,
                extents,
                start,
                |d| from_strides[d],
                Some(&lookup),
            )
        }
    };
    let count: u64 = extents.iter().product();
    gather_calls(text, (ty, size), (u64::from(v.dst), base, table), count);
    text.close("");
    Ok(())
}
