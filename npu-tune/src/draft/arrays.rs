//! NumPy arrays read by value: `.npy` files (alone or in a directory), `.npz`
//! archives, and the JSON that `json.dumps(a.tolist())` writes, each array as
//! row-major `f64` values with its shape.

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

/// An array from a JSON value as NumPy's `tolist()` and Python's `json.dumps` write
/// it: lists nested to the array's rank (the shape is the nesting's), a bare number
/// (a 0-d array), `true`/`false` (a bool array's 1 and 0), and the strings `"nan"`,
/// `"inf"`, `"-inf"` or `"NaN"`, `"Infinity"`, `"-Infinity"` ([`quote_python_tokens`]
/// turns `json.dumps`'s bare tokens into these). A list of numbers holds row-major
/// values of any shape, as the examples format always had: its count is checked
/// against the signature, not its nesting. `name` names the array in errors.
pub(super) fn from_json(name: &str, value: &serde_json::Value) -> Result<Array, Refused> {
    let serde_json::Value::Array(items) = value else {
        return Ok(Array {
            shape: Some(Vec::new()),
            values: vec![number(name, value)?],
        });
    };
    if items.iter().all(|item| !item.is_array()) {
        let values = items
            .iter()
            .enumerate()
            .map(|(index, item)| number(&format!("{name}[{index}]"), item))
            .collect::<Result<_, _>>()?;
        return Ok(Array {
            shape: None,
            values,
        });
    }
    let shape = first_shape(value);
    let mut values = Vec::new();
    nested(name, value, &shape, &mut Vec::new(), &mut values)?;
    Ok(Array {
        shape: Some(shape),
        values,
    })
}

/// Why a JSON value is not an array, each a phrase after the array's name.
#[derive(Debug)]
pub(super) enum Refused {
    /// Lists of several lengths or depths: `is a ragged list: x[1] holds 2 items, ...`.
    Ragged(String),
    /// An element that is no value: `holds `big` at x[11], which is not a value ...`.
    NotAValue(String),
}

/// The shape the first elements' nesting gives: `[[1, 2, 3], ...]` of four rows is
/// `[4, 3]`.
fn first_shape(value: &serde_json::Value) -> Vec<u64> {
    let mut shape = Vec::new();
    let mut at = value;
    while let serde_json::Value::Array(items) = at {
        shape.push(items.len() as u64);
        match items.first() {
            Some(first) => at = first,
            None => break,
        }
    }
    shape
}

/// Appends the values of `value`, at position `path` of the nesting, to `values`,
/// refusing a list whose length or depth differs from `shape`'s.
fn nested(
    name: &str,
    value: &serde_json::Value,
    shape: &[u64],
    path: &mut Vec<usize>,
    values: &mut Vec<f64>,
) -> Result<(), Refused> {
    let at = |path: &[usize]| -> String {
        path.iter()
            .fold(name.to_string(), |text, i| format!("{text}[{i}]"))
    };
    let depth = path.len();
    match (value, shape.get(depth)) {
        (serde_json::Value::Array(items), Some(&expected)) => {
            if items.len() as u64 != expected {
                let first = vec![0; depth];
                return Err(Refused::Ragged(format!(
                    "is a ragged list: {} holds {} items, {} holds {expected}",
                    at(path),
                    items.len(),
                    at(&first)
                )));
            }
            for (index, item) in items.iter().enumerate() {
                path.push(index);
                nested(name, item, shape, path, values)?;
                path.pop();
            }
            Ok(())
        }
        (serde_json::Value::Array(_), None) => Err(Refused::Ragged(format!(
            "is a ragged list: {} is a list where a number belongs",
            at(path)
        ))),
        (_, Some(_)) => Err(Refused::Ragged(format!(
            "is a ragged list: {} is a number where a list belongs",
            at(path)
        ))),
        (_, None) => {
            values.push(number(&at(path), value)?);
            Ok(())
        }
    }
}

/// One element's value.
fn number(name: &str, value: &serde_json::Value) -> Result<f64, Refused> {
    let special = |text: &str| match text {
        "nan" | "NaN" => Some(f64::NAN),
        "inf" | "Infinity" => Some(f64::INFINITY),
        "-inf" | "-Infinity" => Some(f64::NEG_INFINITY),
        _ => None,
    };
    let parsed = match value {
        serde_json::Value::Number(number) => number.as_f64(),
        serde_json::Value::Bool(flag) => Some(f64::from(u8::from(*flag))),
        serde_json::Value::String(text) => special(text),
        _ => None,
    };
    parsed.ok_or_else(|| {
        let shown: String = value.to_string().chars().take(40).collect();
        Refused::NotAValue(format!(
            "holds `{}` at {name}, which is not a value (a number, a boolean, NaN, Infinity, -Infinity, \"nan\", \"inf\" or \"-inf\")",
            shown.trim_matches('"')
        ))
    })
}

/// `text` with the bare tokens `NaN`, `Infinity` and `-Infinity`, which Python's
/// `json.dumps` writes for those floats and JSON does not have, quoted as strings;
/// strings and other text are kept as they are.
pub(super) fn quote_python_tokens(text: &str) -> String {
    const TOKENS: [&str; 3] = ["-Infinity", "Infinity", "NaN"];
    let mut out = String::with_capacity(text.len());
    let (mut quoted, mut escaped) = (false, false);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let standalone = !out.ends_with(|p: char| p.is_ascii_alphanumeric() || p == '_');
        let token = TOKENS.iter().find(|t| {
            rest.starts_with(**t)
                && !rest[t.len()..].starts_with(|n: char| n.is_ascii_alphanumeric() || n == '_')
        });
        match token {
            Some(token) if !quoted && standalone => {
                out.push('"');
                out.push_str(token);
                out.push('"');
                rest = &rest[token.len()..];
                continue;
            }
            _ => {}
        }
        if quoted {
            quoted = escaped || c != '"';
            escaped = !escaped && c == '\\';
        } else {
            quoted = c == '"';
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_tokens_are_quoted_outside_strings_only() {
        for (text, quoted) in [
            (
                "[NaN, -Infinity, Infinity]",
                r#"["NaN", "-Infinity", "Infinity"]"#,
            ),
            (r#"{"a\"NaN": NaN}"#, r#"{"a\"NaN": "NaN"}"#),
            (r#"{"x\\": Infinity}"#, r#"{"x\\": "Infinity"}"#),
            ("[NaNx, xNaN]", "[NaNx, xNaN]"),
        ] {
            assert_eq!(quote_python_tokens(text), quoted, "{text}");
        }
    }
}
