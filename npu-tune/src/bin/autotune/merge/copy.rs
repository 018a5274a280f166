//! Copying a shard's files into the joined outputs, byte for byte, each file written
//! atomically (a merge that stops leaves each file old or new, never half written).

use std::path::Path;

use npu_tune::atomic::write_atomic;

/// Copies `KERNEL.json`, `KERNEL.md` and `KERNEL.svg` (and `KERNEL.trace.json`, when
/// the shard wrote one) from the shard's directory `from` into `to`.
pub(super) fn reports(from: &Path, to: &Path, kernel: &str) -> Result<(), String> {
    for extension in ["json", "md", "svg"] {
        let name = format!("{kernel}.{extension}");
        file(&from.join(&name), &to.join(&name))?;
    }
    let trace = format!("{kernel}.trace.json");
    if from.join(&trace).is_file() {
        file(&from.join(&trace), &to.join(&trace))?;
    }
    Ok(())
}

/// Copies the directory tree `from` into `to`, entries in name order; nothing when
/// `from` does not exist (a kernel with no source written).
pub(super) fn tree(from: &Path, to: &Path) -> Result<(), String> {
    if !from.is_dir() {
        return Ok(());
    }
    // Made even when empty: the whole run's tree has its empty folders too.
    std::fs::create_dir_all(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    let entries =
        std::fs::read_dir(from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot read {}: {e}", from.display()))?;
        names.push(entry.file_name());
    }
    names.sort();
    for name in names {
        let (source, destination) = (from.join(&name), to.join(&name));
        match source.is_dir() {
            true => tree(&source, &destination)?,
            false => file(&source, &destination)?,
        }
    }
    Ok(())
}

fn file(from: &Path, to: &Path) -> Result<(), String> {
    let bytes = std::fs::read(from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    write_atomic(to, &bytes).map_err(|e| format!("cannot write {}: {e}", to.display()))
}
