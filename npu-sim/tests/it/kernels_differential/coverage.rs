//! Accepted kernels per construct × dtype × preset: printed, compared with the
//! committed `coverage.txt` for the default campaign, and held to a minimum per cell,
//! so that zero disagreements cannot come from a generator that avoids hard cases.

use std::collections::{BTreeMap, BTreeSet};

use npu_testgen::{Case, FEATURES, Form, Preset, is_float};

/// Accepted kernels each expected cell needs in any campaign at least as long as the
/// default one.
pub(super) const MIN_PER_CELL: usize = 2;

/// The statement forms, in table order.
const FORMS: [&str; 8] = [
    "elementwise",
    "reduce",
    "argmax",
    "scan",
    "let",
    "pad",
    "gather",
    "matmul",
];

#[derive(Default)]
pub(super) struct Table {
    /// (preset, construct, dtype) → accepted kernels.
    cells: BTreeMap<(String, String, String), usize>,
}

impl Table {
    /// Counts an accepted case under its form and each feature it has; a matmul under
    /// its operand dtypes (`f16xi8`).
    pub(super) fn count(&mut self, case: &Case) {
        let dtype = match &case.kernel.form {
            Form::Matmul { a, b, .. } => format!("{a}x{b}"),
            _ => case.kernel.dtype.clone(),
        };
        for construct in case.constructs() {
            *self
                .cells
                .entry((case.target.clone(), construct.to_string(), dtype.clone()))
                .or_default() += 1;
        }
    }

    /// One block per preset: a row per construct, a column per dtype.
    pub(super) fn render(&self) -> String {
        let presets: BTreeSet<&String> = self.cells.keys().map(|(p, _, _)| p).collect();
        let mut out = String::new();
        for preset in presets {
            let dtypes: BTreeSet<&String> = self
                .cells
                .keys()
                .filter(|(p, _, _)| p == preset)
                .map(|(_, _, d)| d)
                .collect();
            out.push_str(&format!("{preset:<12}"));
            for dtype in &dtypes {
                out.push_str(&format!(" {dtype:>9}"));
            }
            out.push('\n');
            for construct in FORMS.iter().chain(&FEATURES) {
                out.push_str(&format!("  {construct:<10}"));
                for dtype in &dtypes {
                    let key = (preset.clone(), construct.to_string(), dtype.to_string());
                    let count = self.cells.get(&key).copied().unwrap_or(0);
                    out.push_str(&format!(" {count:>9}"));
                }
                out.push('\n');
            }
        }
        out
    }

    /// The expected cells (every form and feature on every dtype of each preset that
    /// can have it) with fewer than [`MIN_PER_CELL`] accepted kernels.
    pub(super) fn thin_cells(&self, presets: &[Preset]) -> Vec<String> {
        let mut thin = Vec::new();
        for preset in presets {
            for (construct, dtype) in expected(preset) {
                let key = (preset.name.clone(), construct.to_string(), dtype.clone());
                let count = self.cells.get(&key).copied().unwrap_or(0);
                if count < MIN_PER_CELL {
                    thin.push(format!("{} {construct} {dtype}: {count}", preset.name));
                }
            }
        }
        thin
    }
}

/// The cells a preset must cover: vector forms and features on each vector dtype
/// (bit operations on integers, math functions on floats), matmuls on each cube dtype.
fn expected(preset: &Preset) -> Vec<(&'static str, String)> {
    let mut cells = Vec::new();
    for dtype in &preset.vector_dtypes {
        let float = is_float(dtype);
        for construct in FORMS.iter().chain(&FEATURES) {
            let fits = match *construct {
                "matmul" => false,
                "bits" => !float,
                "math" => float,
                _ => true,
            };
            if fits && !unreachable(preset, construct, dtype) {
                cells.push((*construct, dtype.clone()));
            }
        }
    }
    for dtype in &preset.cube_dtypes {
        cells.push(("matmul", format!("{dtype}x{dtype}")));
    }
    cells
}

/// Cells the language or the preset rules out, each with its reason.
fn unreachable(_preset: &Preset, _construct: &str, _dtype: &str) -> bool {
    false
}

/// Compares `table` with the committed `coverage.txt` (`NPU_DIFF_BLESS=1` rewrites it).
pub(super) fn compare_with_committed(table: &str) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/it/kernels_differential/coverage.txt"
    );
    if std::env::var_os("NPU_DIFF_BLESS").is_some() {
        std::fs::write(path, table).expect("write coverage.txt");
        return;
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == table,
        "the default campaign's coverage differs from {path} (NPU_DIFF_BLESS=1 rewrites it after a \
         generator change; review the diff):\n{table}"
    );
}
