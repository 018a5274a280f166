//! Writes `$OUT_DIR/kernels.rs`: a fixed, seeded set of generated kernels (npu-testgen),
//! each one the checker accepts with its first schedule, as `npu_kernel!` blocks, and a
//! table of their `kernel()` and `reference_host` functions for the test to walk.

use std::fmt::Write as _;

use npu_core::Target;
use npu_testgen::{Case, Preset};

/// Kernels written; every preset and every vector dtype takes turns.
const KERNELS: usize = 240;
const SEED: u64 = 0x7265_6664_6966_6621;

fn main() {
    let mut rng = fastrand::Rng::with_seed(SEED);
    let presets: Vec<(Target, Preset)> = Target::preset_names()
        .into_iter()
        .map(|name| {
            let target = Target::preset(name).expect("a preset");
            let preset = Preset {
                name: name.to_string(),
                vector_dtypes: target
                    .vector
                    .dtypes
                    .iter()
                    .map(|d| d.name().into())
                    .collect(),
                cube_dtypes: target
                    .cube
                    .as_ref()
                    .map(|c| c.dtypes.iter().map(|d| d.name().into()).collect())
                    .unwrap_or_default(),
                cores: u64::from(target.cores.vector.max(target.cores.cube)),
            };
            (target, preset)
        })
        .collect();
    let mut blocks = String::new();
    let mut table = String::from("pub const KERNELS: &[Entry] = &[\n");
    let mut written = 0;
    let mut attempt = 0usize;
    while written < KERNELS && attempt < 50 * KERNELS {
        let (target, preset) = &presets[attempt % presets.len()];
        let dtype = &preset.vector_dtypes[(attempt / presets.len()) % preset.vector_dtypes.len()];
        attempt += 1;
        let case = Case::random(&mut rng, preset, dtype, 1);
        let name = format!("k{written}");
        let text = case
            .text(0)
            .replacen("kernel fuzz(", &format!("kernel {name}("), 1);
        if npu_core::check_source(&text, target).is_err() {
            continue;
        }
        writeln!(blocks, "npu::npu_kernel! {{\n{text}\n}}\n").expect("a string");
        writeln!(
            table,
            "    (\"{name}\", {name}::kernel, {name}::reference_host),"
        )
        .expect("a string");
        written += 1;
    }
    table.push_str("];\n");
    let out = std::env::var("OUT_DIR").expect("OUT_DIR");
    std::fs::write(format!("{out}/kernels.rs"), blocks + &table).expect("write kernels.rs");
    println!("cargo::rerun-if-changed=build.rs");
}
