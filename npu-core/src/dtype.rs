//! Element types of the algorithm language.

use std::fmt;

use serde::{Deserialize, Serialize};

/// An element type a tensor or an expression can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dtype {
    F16,
    Bf16,
    F32,
    I8,
    U8,
    I16,
    I32,
}

impl Dtype {
    /// Every dtype, in the order docs list them.
    pub const ALL: [Dtype; 7] = [
        Dtype::F16,
        Dtype::Bf16,
        Dtype::F32,
        Dtype::I8,
        Dtype::U8,
        Dtype::I16,
        Dtype::I32,
    ];

    /// Every dtype name, for "did you mean" suggestions.
    pub const NAMES: [&'static str; 7] = ["f16", "bf16", "f32", "i8", "u8", "i16", "i32"];

    pub fn from_name(name: &str) -> Option<Dtype> {
        Dtype::ALL.into_iter().find(|d| d.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Dtype::F16 => "f16",
            Dtype::Bf16 => "bf16",
            Dtype::F32 => "f32",
            Dtype::I8 => "i8",
            Dtype::U8 => "u8",
            Dtype::I16 => "i16",
            Dtype::I32 => "i32",
        }
    }

    /// Size of one element in bytes.
    pub fn size(self) -> u64 {
        match self {
            Dtype::I8 | Dtype::U8 => 1,
            Dtype::F16 | Dtype::Bf16 | Dtype::I16 => 2,
            Dtype::F32 | Dtype::I32 => 4,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Dtype::F16 | Dtype::Bf16 | Dtype::F32)
    }

    /// The type reductions accumulate in: f32 for floats, i32 for integers.
    pub fn accumulator(self) -> Dtype {
        if self.is_float() {
            Dtype::F32
        } else {
            Dtype::I32
        }
    }

    /// Rounds an exact value to the nearest value of this dtype (wrapping for integers),
    /// the way the hardware stores a result. Floats round to nearest even.
    pub fn round(self, value: f64) -> f64 {
        match self {
            Dtype::F16 => half::f16::from_f64(value).to_f64(),
            Dtype::Bf16 => half::bf16::from_f64(value).to_f64(),
            Dtype::F32 => value as f32 as f64,
            Dtype::I8 => wrap(value, 8, true),
            Dtype::U8 => wrap(value, 8, false),
            Dtype::I16 => wrap(value, 16, true),
            Dtype::I32 => wrap(value, 32, true),
        }
    }
}

fn wrap(value: f64, bits: u32, signed: bool) -> f64 {
    if !value.is_finite() {
        return 0.0;
    }
    let truncated = value.trunc() as i128;
    let modulus = 1i128 << bits;
    let mut wrapped = truncated.rem_euclid(modulus);
    if signed && wrapped >= modulus / 2 {
        wrapped -= modulus;
    }
    wrapped as f64
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
