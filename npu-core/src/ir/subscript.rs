//! How a load indexes one dimension of a tensor: an axis, a constant, an affine form
//! of axes or a gathered index.

use serde::{Deserialize, Serialize};

use crate::dtype::Dtype;

/// One subscript of a load.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Subscript {
    /// The axis's current value; an index into [`CheckedKernel::axes`](super::CheckedKernel::axes).
    Axis(usize),
    /// A fixed position along the dimension.
    Const(u64),
    /// `Σ coefficient × axis + offset`, e.g. `2*i + k - 1`: terms in written order,
    /// one per axis, every coefficient at least 1. Plain axes and constants keep
    /// their own variants.
    Affine {
        /// `(axis, coefficient)` pairs: indices into [`CheckedKernel::axes`](super::CheckedKernel::axes), each
        /// coefficient at least 1.
        terms: Vec<(usize, u64)>,
        /// The constant added, possibly negative.
        offset: i64,
    },
    /// A gather, `idx[i]` in `table[idx[i], d]`: the position is the value of the
    /// integer input `tensor` at `subscripts` (affine ones), known only at run time.
    /// `extent` is the gathered dimension's length: a value outside `0..extent` is a
    /// run-time error, never a read. The gathered dimension has no axis, so every
    /// tile of the tensor holds it whole.
    Gather {
        /// The index tensor, an integer input; an index into [`CheckedKernel::tensors`](super::CheckedKernel::tensors).
        tensor: usize,
        /// The index tensor's subscripts, one per its dimension; never a gather.
        subscripts: Vec<Subscript>,
        /// The index tensor's integer dtype.
        dtype: Dtype,
        /// The gathered dimension's length, in elements.
        extent: u64,
    },
}

impl Subscript {
    /// The axes and coefficients of the subscript (none for a constant or a gather,
    /// whose dimension no axis slides along).
    pub fn terms(&self) -> Vec<(usize, u64)> {
        match self {
            Subscript::Axis(axis) => vec![(*axis, 1)],
            Subscript::Const(_) | Subscript::Gather { .. } => Vec::new(),
            Subscript::Affine { terms, .. } => terms.clone(),
        }
    }

    /// The constant part.
    pub fn offset(&self) -> i64 {
        match self {
            Subscript::Axis(_) | Subscript::Gather { .. } => 0,
            Subscript::Const(value) => *value as i64,
            Subscript::Affine { offset, .. } => *offset,
        }
    }

    /// The index it reads when each axis `a` has the value `env[a]`; `None` for a
    /// gather, whose index is data (see [`Subscript::gather`]).
    pub fn at(&self, env: &[u64]) -> Option<i64> {
        match self {
            Subscript::Axis(axis) => Some(env[*axis] as i64),
            Subscript::Const(value) => Some(*value as i64),
            Subscript::Affine { terms, offset } => Some(
                terms
                    .iter()
                    .fold(*offset, |sum, (axis, c)| sum + (env[*axis] * c) as i64),
            ),
            Subscript::Gather { .. } => None,
        }
    }

    /// The index tensor and its subscripts, for a gather.
    pub fn gather(&self) -> Option<(usize, &[Subscript])> {
        match self {
            Subscript::Gather {
                tensor, subscripts, ..
            } => Some((*tensor, subscripts)),
            _ => None,
        }
    }

    /// The coefficient of `axis` (0 when it does not appear).
    pub fn coefficient(&self, axis: usize) -> u64 {
        match self {
            Subscript::Axis(a) => u64::from(*a == axis),
            Subscript::Const(_) | Subscript::Gather { .. } => 0,
            Subscript::Affine { terms, .. } => terms
                .iter()
                .filter(|(a, _)| *a == axis)
                .map(|(_, c)| c)
                .sum(),
        }
    }
}
