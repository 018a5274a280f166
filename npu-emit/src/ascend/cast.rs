//! `vconv` and `vconv.sat` as Ascend C's `Cast`, where one call converts every value
//! exactly as the simulator does, and the reason why not everywhere else.
//!
//! The simulator's casts (npu-core's `scalar::cast` and `scalar::cast_saturating`):
//! to a float, nearest with ties to even (past the range: infinity); to an integer,
//! toward zero and wrapped (±∞ and NaN give 0); saturating, past the range the
//! nearest bound and NaN 0. The device's `Cast` (API reference, Cast and "precision
//! conversion"): the pairs and round modes of each product's table; an integer result
//! past its range saturates (the default), a float to an integer saturates ±∞ to the
//! bounds and NaN to 0 (the reference's table of saturation modes, on its Reg-level
//! Cast page: the Atlas A2 pages say only that an overflow saturates); a float result
//! overflows to infinity in the runtime's INF/NaN mode (`ACL_RT_OVERFLOW_MODE_INFNAN`,
//! the default on the Atlas A2 series, which the kernels assume, as the f16
//! arithmetic does). So a wrapping cast to an integer never matches, and a saturating
//! one from a float to a float never does (the simulator's ±∞ and NaN become the
//! largest finite value and 0). The Atlas inference series runs only in the
//! saturation mode (ACL's `aclrtFloatOverflowMode`), where a float result never is
//! ±∞ or NaN: there no cast between floats is written.

use npu_core::Dtype;

use super::names::Chip;

/// How a cast between two dtypes is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Conversion {
    /// The same bits: a move (`DataCopy`), no call converts.
    Move,
    /// `Cast` with this `RoundMode`, e.g. `CAST_TRUNC`.
    Cast(&'static str),
}

/// A round mode the emitter writes; the tables below list only these three.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// `CAST_NONE`: exact where the destination holds the value, else as `CAST_RINT`.
    None,
    /// `CAST_RINT`: to nearest, ties to even.
    Rint,
    /// `CAST_TRUNC`: toward zero.
    Trunc,
}

/// The `Cast` of `from` to `to` (`saturating` for `vconv.sat`) on `chip`, or why
/// none converts as the simulator does.
pub(super) fn conversion(
    from: Dtype,
    to: Dtype,
    saturating: bool,
    chip: Chip,
) -> Result<Conversion, String> {
    if from == to && !(saturating && from.is_float()) {
        return Ok(Conversion::Move);
    }
    let listed = modes(chip, from, to);
    if listed.is_empty() {
        return Err(format!(
            "{} has no Cast from {} to {}{}",
            chip.name(),
            from.name(),
            to.name(),
            two_steps(from, to)
        ));
    }
    if from.is_float() && to.is_float() && chip == Chip::AtlasInference {
        return Err(format!(
            "{} runs only in the saturation mode (ACL's aclrtFloatOverflowMode), where a float result that would be ±inf or NaN becomes the largest finite value or 0; the simulator's cast keeps ±inf and NaN, and the CPU model does not model that mode",
            chip.name()
        ));
    }
    let mode = needed(from, to, saturating)?;
    // A lossy conversion under `CAST_NONE` rounds as `CAST_RINT`: where a product lists
    // only `CAST_NONE` for a rounding pair, that is the nearest-even call.
    let mode = match mode {
        Mode::Rint if !listed.contains(&Mode::Rint) => Mode::None,
        mode => mode,
    };
    if !listed.contains(&mode) {
        return Err(format!(
            "{}'s Cast from {} to {} has no {} mode, the simulator's rounding here",
            chip.name(),
            from.name(),
            to.name(),
            name(mode)
        ));
    }
    Ok(Conversion::Cast(name(mode)))
}

/// The mode that converts as the simulator does, whatever the product lists, or why
/// none does.
fn needed(from: Dtype, to: Dtype, saturating: bool) -> Result<Mode, String> {
    let fits = to.range().1 >= from.range().1;
    match (from.is_float(), to.is_float()) {
        (true, _) if saturating && to.is_float() => Err(format!(
            "a saturating cast to {} turns ±inf into the largest finite value and NaN into 0, which Cast does only in the saturation mode (CTRL[48]), and the kernels assume the INF/NaN mode",
            to.name()
        )),
        _ if to.holds(from) => Ok(Mode::None),
        (false, true) if !fits && !saturating => Err(format!(
            "{} values can lie past {}'s range, which Cast saturates and the simulator's cast rounds to infinity",
            from.name(),
            to.name()
        )),
        (_, true) => Ok(Mode::Rint),
        (true, false) if from == Dtype::F16 && to == Dtype::U8 => Err(
            "the reference treats a negative half as an exception when it converts to uint8_t, and the simulator saturates it to 0".into(),
        ),
        _ if !saturating => Err(format!(
            "Cast saturates values past {0}'s range and the simulator wraps them (and turns ±inf and NaN into 0); `as sat {0}` converts alike on both",
            to.name()
        )),
        (true, false) => Ok(Mode::Trunc),
        (false, false) => Ok(Mode::None),
    }
}

/// A hint where a pair has no call but converts exactly through f16.
fn two_steps(from: Dtype, to: Dtype) -> &'static str {
    match (from, to) {
        (Dtype::I8 | Dtype::U8, Dtype::F32) => {
            "; cast to f16 first (exact for 8-bit integers), then to f32 (exact)"
        }
        _ => "",
    }
}

/// The round modes of `from` to `to` that the product's `Cast` table lists (of the
/// three the emitter writes); empty for a pair it does not list. Tables from the
/// API reference's Cast page (asc-devkit `docs/zh/api/SIMD-API/基础API/Memory矢量计算/类型转换/Cast.md`).
fn modes(chip: Chip, from: Dtype, to: Dtype) -> &'static [Mode] {
    use Dtype::{Bf16, F16, F32, I8, I16, I32, U8};
    use Mode::{None, Rint, Trunc};
    match chip {
        Chip::AtlasA2 => match (from, to) {
            (I8 | U8, F16) | (I16, F32) | (F16, F32) | (Bf16, F32) | (I32, I16) => &[None],
            (I16, F16) | (F16, I8 | U8) | (I32, F32) | (F32, F16) => &[Rint, Trunc, None],
            (F16, I16 | I32) | (Bf16, I32) | (F32, I16 | I32 | Bf16 | F32) => &[Rint, Trunc],
            _ => &[],
        },
        Chip::AtlasInference => match (from, to) {
            (I8 | U8 | I16, F16) | (F16, F32) | (I32, I16 | F32) | (F32, F16) => &[None],
            (F16, I8 | U8) => &[Trunc, None],
            (F16, I16) => &[Rint],
            (F16, I32) => &[Rint, Trunc],
            _ => &[],
        },
    }
}

/// The `RoundMode` spelled as the kernel writes it.
fn name(mode: Mode) -> &'static str {
    match mode {
        Mode::None => "CAST_NONE",
        Mode::Rint => "CAST_RINT",
        Mode::Trunc => "CAST_TRUNC",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Dtype::{Bf16, F16, F32, I8, I16, I32, U8};

    /// `from` to `to` on `chip` gives the mode `expect` names, or an error containing it.
    fn check(from: Dtype, to: Dtype, saturating: bool, chip: Chip, expect: &str) {
        let got = match conversion(from, to, saturating, chip) {
            Ok(Conversion::Move) => "move".to_string(),
            Ok(Conversion::Cast(mode)) => mode.to_string(),
            Err(reason) => reason,
        };
        assert!(
            got.contains(expect),
            "{from} -> {to} (sat {saturating}, {chip:?}): {got}"
        );
    }

    #[test]
    fn casts_are_written_only_where_the_device_converts_as_the_simulator() {
        let (a2, inference) = (Chip::AtlasA2, Chip::AtlasInference);
        check(F16, I8, true, a2, "CAST_TRUNC");
        check(F16, I8, true, inference, "CAST_TRUNC");
        check(F16, I8, false, a2, "the simulator wraps them");
        check(F16, I32, false, a2, "the simulator wraps them");
        check(I32, I16, true, a2, "CAST_NONE");
        check(I32, I16, false, a2, "the simulator wraps them");
        check(F16, U8, true, a2, "negative half");
        check(I8, F16, false, a2, "CAST_NONE");
        check(U8, F16, true, inference, "CAST_NONE");
        check(I8, F32, false, a2, "cast to f16 first");
        check(F32, F16, false, a2, "CAST_RINT");
        check(F32, F16, false, inference, "only in the saturation mode");
        check(F16, F32, false, inference, "only in the saturation mode");
        check(F32, Bf16, false, a2, "CAST_RINT");
        check(F32, Bf16, false, inference, "has no Cast");
        check(F32, Bf16, true, a2, "saturation mode");
        check(Bf16, F32, false, a2, "CAST_NONE");
        check(F16, F32, true, a2, "saturation mode");
        check(F16, I16, true, inference, "has no CAST_TRUNC mode");
        check(F32, I32, true, a2, "CAST_TRUNC");
        check(F32, I32, true, inference, "has no Cast");
        check(I16, I16, true, a2, "move");
        check(F16, F16, true, a2, "has no Cast");
        check(F32, F32, true, a2, "saturation mode");
    }
}
