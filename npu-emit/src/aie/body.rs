//! One tile's body being written (`Body`): its text, the slot each buffer argument
//! gets, and each operand as a pointer into its argument in the dtype it is read in.
//! It is a leaf the writers of each instruction kind share.

use std::collections::{BTreeMap, BTreeSet};

use npu_core::{Dtype, Program, Target};

use super::layout::Layout;
use super::names::{c_type, unsupported};
use crate::output::Unsupported;
use crate::text::Text;

/// The text of one tile's body being written, with the slot each argument gets.
pub(super) struct Body<'p> {
    pub program: &'p Program,
    /// The target, for how it computes each function.
    pub target: &'p Target,
    pub layout: &'p Layout,
    pub slots: Vec<Option<u64>>,
    pub text: Text,
    /// The dtype each UB address was last written in (a cast reads its source in it).
    pub tags: &'p mut BTreeMap<u32, Dtype>,
    /// The scalar-unit helpers the bodies written so far call.
    pub helpers: &'p mut BTreeSet<Helpers>,
}

/// A block of scalar-unit helpers the file includes only when a body calls it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Helpers {
    /// The order-preserving fold steps and the saturating cast (`scalar::HELPERS`).
    Steps,
    /// The correctly rounded functions in double (`math::HELPERS`).
    Math,
    /// Popcount on the scalar unit (`math::POPCOUNT`).
    Popcount,
}

impl Body<'_> {
    /// The dtype `address` was last written in, or `default`.
    /// A buffer not written yet holds its argument's dtype (a staged tensor's).
    pub(super) fn tag(&self, address: u32, default: Dtype) -> Dtype {
        let held = || {
            let (index, _, _) = self.layout.locate(u64::from(address))?;
            Some(self.layout.args[index].dtype)
        };
        self.tags
            .get(&address)
            .copied()
            .or_else(held)
            .unwrap_or(default)
    }

    /// UB byte `address` as `dtype`: a pointer expression (its argument, cast if the
    /// argument holds another dtype) and an element offset from it; records the
    /// argument's slot.
    pub(super) fn pointer(
        &mut self,
        address: u32,
        dtype: Dtype,
    ) -> Result<(String, u64), Unsupported> {
        let construct = || format!("an operand at ub 0x{address:05x}");
        let (index, slot, offset) = self.layout.locate(u64::from(address)).ok_or_else(|| {
            unsupported(&construct(), "it lies in no buffer of the program's plan")
        })?;
        match self.slots[index] {
            Some(other) if other != slot => {
                return Err(unsupported(
                    &construct(),
                    "one tile reads two slots of a buffer; a tile kernel gets one",
                ));
            }
            _ => self.slots[index] = Some(slot),
        }
        let arg = &self.layout.args[index];
        let size = dtype.size();
        if !offset.is_multiple_of(size) {
            return Err(unsupported(
                &construct(),
                "the operand does not start on an element of its dtype",
            ));
        }
        let ty = c_type(dtype).ok_or_else(|| unsupported(&construct(), "no AIE element type"))?;
        let base = if arg.dtype == dtype {
            arg.name.clone()
        } else {
            format!("reinterpret_cast<{ty} *>({})", arg.name)
        };
        Ok((base, offset / size))
    }
}
