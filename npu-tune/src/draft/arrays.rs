//! NumPy arrays read by value: `.npy` files (alone or in a directory) and `.npz`
//! archives, each array as row-major `f64` values with its shape.

use std::collections::BTreeMap;
use std::io::{Cursor, Read};
use std::path::Path;

use npyz::{DType, NpyFile, Order, TypeChar};

/// An array's values in row-major order, with its shape when the file has one.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Array {
    pub(super) shape: Option<Vec<u64>>,
    pub(super) values: Vec<f64>,
}

/// The most bytes one array of an archive may unpack to, so that a small archive
/// cannot claim unbounded memory.
const MAX_ARRAY_BYTES: u64 = 256 << 20;

/// The arrays of an `.npz` archive by name (the entry's name without `.npy`).
pub(super) fn read_npz(bytes: &[u8]) -> Result<BTreeMap<String, Array>, String> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| format!("not an .npz archive: {e}"))?;
    let mut arrays = BTreeMap::new();
    for index in 0..archive.len() {
        let mut entry = archive
            .by_index(index)
            .map_err(|e| format!("entry {index} of the archive: {e}"))?;
        let name = entry.name().trim_end_matches(".npy").to_string();
        if entry.size() > MAX_ARRAY_BYTES {
            return Err(format!(
                "array `{name}` unpacks to {} bytes; the limit is {MAX_ARRAY_BYTES}",
                entry.size()
            ));
        }
        let mut data = Vec::new();
        entry
            .read_to_end(&mut data)
            .map_err(|e| format!("array `{name}`: {e}"))?;
        let array = read_npy(&data).map_err(|e| format!("array `{name}`: {e}"))?;
        arrays.insert(name, array);
    }
    Ok(arrays)
}

/// The `NAME.npy` files of `dir` by name.
pub(super) fn read_npy_dir(dir: &Path) -> Result<BTreeMap<String, Array>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut arrays = BTreeMap::new();
    for entry in entries {
        let path = entry
            .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
            .path();
        let (Some(stem), Some("npy")) = (
            path.file_stem().and_then(|s| s.to_str()),
            path.extension().and_then(|e| e.to_str()),
        ) else {
            continue;
        };
        let data = npu_core::file::read_bytes(npu_core::file::Kind::Examples, &path)
            .map_err(|e| e.to_string())?;
        let array = read_npy(&data).map_err(|e| format!("{}: {e}", path.display()))?;
        arrays.insert(stem.to_string(), array);
    }
    match arrays.is_empty() {
        true => Err(format!("{} holds no .npy file", dir.display())),
        false => Ok(arrays),
    }
}

/// One `.npy` file's array.
pub(super) fn read_npy(bytes: &[u8]) -> Result<Array, String> {
    let file = NpyFile::new(bytes).map_err(|e| format!("not an .npy array: {e}"))?;
    if file.order() == Order::Fortran {
        return Err("a Fortran-ordered array; save np.ascontiguousarray(a)".into());
    }
    let shape = file.shape().to_vec();
    let DType::Plain(kind) = file.dtype() else {
        return Err("a structured or array dtype; save a plain numeric array".into());
    };
    let values = values(file, kind.type_char(), kind.size_field())?;
    Ok(Array {
        shape: Some(shape),
        values,
    })
}

/// The elements as `f64`, whatever numeric dtype they are stored in.
fn values(file: NpyFile<&[u8]>, kind: TypeChar, size: u64) -> Result<Vec<f64>, String> {
    let io = |e: std::io::Error| format!("cannot read the array: {e}");
    fn widen<T: Copy + Into<f64>>(values: Vec<T>) -> Vec<f64> {
        values.into_iter().map(Into::into).collect()
    }
    Ok(match (kind, size) {
        (TypeChar::Float, 2) => file
            .into_vec::<half::f16>()
            .map_err(io)?
            .into_iter()
            .map(f64::from)
            .collect(),
        (TypeChar::Float, 4) => widen(file.into_vec::<f32>().map_err(io)?),
        (TypeChar::Float, 8) => file.into_vec::<f64>().map_err(io)?,
        (TypeChar::Int, 1) => widen(file.into_vec::<i8>().map_err(io)?),
        (TypeChar::Int, 2) => widen(file.into_vec::<i16>().map_err(io)?),
        (TypeChar::Int, 4) => widen(file.into_vec::<i32>().map_err(io)?),
        (TypeChar::Int, 8) => file
            .into_vec::<i64>()
            .map_err(io)?
            .into_iter()
            .map(|v| v as f64)
            .collect(),
        (TypeChar::Uint, 1) => widen(file.into_vec::<u8>().map_err(io)?),
        (TypeChar::Uint, 2) => widen(file.into_vec::<u16>().map_err(io)?),
        (TypeChar::Uint, 4) => widen(file.into_vec::<u32>().map_err(io)?),
        (TypeChar::Uint, 8) => file
            .into_vec::<u64>()
            .map_err(io)?
            .into_iter()
            .map(|v| v as f64)
            .collect(),
        (TypeChar::Bool, 1) => file
            .into_vec::<bool>()
            .map_err(io)?
            .into_iter()
            .map(|b| f64::from(u8::from(b)))
            .collect(),
        _ => {
            return Err(format!(
                "dtype {kind:?} of {size} bytes is not a number npu reads"
            ));
        }
    })
}
