//! An on-chip memory (UB, L1, L0A, L0B, L0C) as the machine, the vector unit and the
//! cube see it: bytes, and per byte the dtype last written there.

use npu_core::Dtype;

use crate::storage::{self, Run};

/// An on-chip memory: its bytes and, per byte, the tag of the dtype last written there.
#[derive(Debug)]
pub(crate) struct Level {
    pub bytes: Vec<u8>,
    pub tags: Vec<u8>,
}

impl Level {
    pub(crate) fn new(bytes: usize) -> Level {
        Level {
            bytes: vec![storage::POISON; bytes],
            tags: vec![storage::UNWRITTEN; bytes],
        }
    }

    /// Forgets everything written below `end`.
    pub(crate) fn clear(&mut self, end: usize) {
        let end = end.min(self.bytes.len());
        self.bytes[..end].fill(storage::POISON);
        self.tags[..end].fill(storage::UNWRITTEN);
    }

    /// The dtype last written at byte `address`, or `otherwise` if none was.
    pub(crate) fn dtype_at(&self, address: usize, otherwise: Dtype) -> Dtype {
        self.tags
            .get(address)
            .and_then(|tag| storage::tagged(*tag))
            .unwrap_or(otherwise)
    }

    pub(crate) fn load(&self, dtype: Dtype, run: Run, lanes: &mut [f64]) -> Result<(), String> {
        if storage::load(dtype, &self.bytes, run, lanes) {
            Ok(())
        } else {
            Err(format!(
                "reads past the end of its level at byte {}",
                run.offset
            ))
        }
    }

    /// The element of `dtype` at byte `address`.
    pub(crate) fn element(&self, dtype: Dtype, address: usize) -> Result<f64, String> {
        let mut one = [0.0];
        let run = Run {
            offset: address,
            stride: 0,
            len: 1,
        };
        self.load(dtype, run, &mut one)?;
        Ok(one[0])
    }

    /// Writes `value` as an element of `dtype` at byte `address`.
    pub(crate) fn set_element(
        &mut self,
        dtype: Dtype,
        address: usize,
        value: f64,
    ) -> Result<(), String> {
        let run = Run {
            offset: address,
            stride: 0,
            len: 1,
        };
        self.store(dtype, &[value], run)
    }

    /// [`Level::load`] of f16 elements into f32 lanes.
    pub(crate) fn load_f16(&self, run: Run, lanes: &mut [f32]) -> Result<(), String> {
        if storage::load_f16(&self.bytes, run, lanes) {
            Ok(())
        } else {
            Err(format!(
                "reads past the end of its level at byte {}",
                run.offset
            ))
        }
    }

    /// [`Level::store`] of f32 lanes as f16 elements.
    pub(crate) fn store_f16(&mut self, lanes: &[f32], run: Run) -> Result<(), String> {
        if storage::store_f16(lanes, &mut self.bytes, &mut self.tags, run) {
            Ok(())
        } else {
            Err(format!(
                "writes past the end of its level at byte {}",
                run.offset
            ))
        }
    }

    pub(crate) fn store(&mut self, dtype: Dtype, lanes: &[f64], run: Run) -> Result<(), String> {
        if storage::store(dtype, lanes, &mut self.bytes, &mut self.tags, run) {
            Ok(())
        } else {
            Err(format!(
                "writes past the end of its level at byte {}",
                run.offset
            ))
        }
    }
}
