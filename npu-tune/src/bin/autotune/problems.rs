//! The kernels a run tunes: the bundled ones, or those found in the user's sources,
//! each checked on its own target or the one `--target` names.

use std::path::{Path, PathBuf};

use npu_tune::build::discover::{Found, discover, seeded_problem};
use npu_tune::evaluate::Problem;
use npu_tune::kernels::{self, Bundled, SUITE};

use crate::args::TuneArgs;

/// The bundled kernels selected with --kernel (all of them by default).
pub(crate) fn bundled_problems(
    args: &TuneArgs,
    target: Option<&npu_core::Target>,
) -> Result<Vec<Problem>, String> {
    let selected: Vec<Bundled> = if args.kernels.is_empty() {
        if args.all {
            kernels::all()
        } else {
            SUITE.to_vec()
        }
    } else {
        args.kernels
            .iter()
            .map(|name| {
                Bundled::find(name).ok_or_else(|| {
                    let names: Vec<&str> = kernels::all().iter().map(|b| b.name).collect();
                    format!(
                        "no bundled kernel `{name}`; the kernels are: {} (`autotune --list` describes them)",
                        names.join(", ")
                    )
                })
            })
            .collect::<Result<_, _>>()?
    };
    selected
        .iter()
        .map(|b| b.problem(args.seed, target))
        .collect::<Result<Vec<_>, _>>()
}

/// The kernels found in the SOURCE arguments, selected with --kernel, and the variants
/// count each asks for. Target files resolve relative to the crate root, the nearest
/// directory above a source that has a Cargo.toml, as the macro resolves them.
pub(crate) fn user_problems(
    args: &TuneArgs,
    target: Option<&npu_core::Target>,
) -> Result<(Vec<Problem>, Option<usize>), String> {
    let mut found = Vec::new();
    for source in &args.sources {
        let kernels = discover(source)?;
        if kernels.is_empty() {
            return Err(format!(
                "{}: no `npu_kernel!` block found",
                source.display()
            ));
        }
        found.extend(kernels);
    }
    let selected: Vec<&Found> = if args.kernels.is_empty() {
        found.iter().collect()
    } else {
        args.kernels
            .iter()
            .map(|name| {
                found.iter().find(|f| &f.name == name).ok_or_else(|| {
                    let names: Vec<String> = found
                        .iter()
                        .map(|f| format!("{} ({})", f.name, f.location()))
                        .collect();
                    format!(
                        "no kernel `{name}` in the sources; found: {}",
                        names.join(", ")
                    )
                })
            })
            .collect::<Result<_, _>>()?
    };
    let asked = selected
        .first()
        .and_then(|f| f.def.variants.first())
        .map(|v| v.count.value as usize);
    let problems = selected
        .into_iter()
        .map(|found| {
            let root = crate_root(&found.file);
            let kernel = match target {
                None if found.def.schedules.is_empty() => {
                    let target = found.target(&root)?;
                    check_on(found, &target)?
                }
                None => found.check(&root)?,
                Some(target) => check_on(found, target)?,
            };
            Ok(seeded_problem(kernel, args.seed))
        })
        .collect::<Result<_, String>>()?;
    Ok((problems, asked))
}

/// The nearest directory at or above `source` with a Cargo.toml, or the source's own
/// directory when there is none.
pub(crate) fn crate_root(source: &Path) -> PathBuf {
    let start = if source.is_dir() {
        source.to_path_buf()
    } else {
        source.parent().map(Path::to_path_buf).unwrap_or_default()
    };
    let absolute = std::path::absolute(&start).unwrap_or_else(|_| start.clone());
    absolute
        .ancestors()
        .find(|dir| dir.join("Cargo.toml").is_file())
        .map_or(start, Path::to_path_buf)
}

pub(crate) fn load_target(name: &str) -> Result<npu_core::Target, String> {
    if let Some(target) = npu_core::Target::preset(name) {
        return Ok(target);
    }
    let text = npu_core::target::read_file(std::path::Path::new(name)).map_err(|e| {
        format!(
            "`{name}` is neither a preset ({}) nor a readable file: {e}",
            npu_core::Target::preset_names().join(", ")
        )
    })?;
    npu_core::Target::from_toml(&text).map_err(|e| format!("{name}: {e}"))
}

/// `found` checked on `target`; a kernel without a schedule block is checked for its
/// algorithm alone, and tuning starts from the tuner's first draft.
fn check_on(found: &Found, target: &npu_core::Target) -> Result<npu_core::CheckedKernel, String> {
    let checked = match found.def.schedules.is_empty() {
        true => npu_core::internal::check_algorithm(&found.def, target),
        false => npu_core::internal::check(&found.def, target),
    };
    checked.map_err(|d| {
        format!(
            "{}: kernel `{}` does not check on target `{}`:\n{}",
            found.location(),
            found.name,
            target.name,
            d.render(&found.text)
        )
    })
}
