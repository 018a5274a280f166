//! Target files: every preset loads, a target survives a trip through TOML, and a
//! corrupt file gets a message that says what is wrong instead of a panic.

use insta::assert_snapshot;
use npu_core::Target;

/// The error message for `text`, or "ok" when it loads.
fn check(text: &str) -> String {
    match Target::from_toml(text) {
        Ok(target) => format!("ok: {}", target.name),
        Err(error) => error.to_string(),
    }
}

/// The demo preset's text with the first `from` replaced by `to`.
fn demo_with(from: &str, to: &str) -> String {
    preset_with("npueval_demo", from, to)
}

/// A preset's text with the first `from`, which must occur in it, replaced by `to`.
fn preset_with(name: &str, from: &str, to: &str) -> String {
    let text = Target::preset_toml(name).expect("the preset exists");
    assert!(text.contains(from), "preset `{name}` has no `{from}`");
    text.replacen(from, to, 1)
}

#[test]
fn every_preset_loads() {
    let names = Target::preset_names();
    assert_eq!(
        names,
        ["ascend910b", "ascend310p", "npueval_demo", "aie2_tile"]
    );
    for name in names {
        let text = Target::preset_toml(name).expect("a listed preset has text");
        let target =
            Target::from_toml(text).unwrap_or_else(|error| panic!("preset `{name}`: {error}"));
        assert_eq!(target.name, name, "a preset's file names the preset");
        assert_eq!(Target::preset(name), Some(target));
    }
    assert_eq!(Target::preset("ascend910"), None);
    assert_eq!(Target::preset_toml("ascend910"), None);
}

#[test]
fn every_preset_round_trips_through_toml() {
    for name in Target::preset_names() {
        let target = Target::preset(name).expect("presets load");
        let text = target.to_toml();
        assert_eq!(
            Target::from_toml(&text),
            Ok(target),
            "preset `{name}` as TOML:\n{text}"
        );
    }
}

#[test]
fn demo_loads() {
    assert_snapshot!(check(Target::preset_toml("npueval_demo").unwrap()), @"ok: npueval_demo");
}

#[test]
fn empty_file() {
    assert_snapshot!(check(""));
}

#[test]
fn not_toml() {
    assert_snapshot!(check(
        "kernel vmla(a: [f16; 64]) -> y: [f16; 64] { y[i] = a[i]; }"
    ));
}

#[test]
fn bad_toml_syntax() {
    assert_snapshot!(check(&demo_with("clock_mhz = 1000", "clock_mhz = = 1000")));
}

#[test]
fn missing_field() {
    assert_snapshot!(check(&demo_with("clock_mhz = 1000\n", "")));
}

#[test]
fn missing_table() {
    assert_snapshot!(check(&demo_with("[scalar]\nloop_cycles = 4\n", "")));
}

#[test]
fn unknown_field() {
    assert_snapshot!(check(&demo_with(
        "clock_mhz = 1000",
        "clock_mhz = 1000\nclock_ghz = 1"
    )));
}

#[test]
fn unknown_field_in_table() {
    assert_snapshot!(check(&demo_with(
        "ub = 131072",
        "ub = 131072\nl2 = 4194304"
    )));
}

#[test]
fn wrong_type() {
    assert_snapshot!(check(&demo_with(
        "clock_mhz = 1000",
        "clock_mhz = \"1 GHz\""
    )));
}

#[test]
fn zero_clock() {
    assert_snapshot!(check(&demo_with("clock_mhz = 1000", "clock_mhz = 0")));
}

#[test]
fn negative_clock() {
    assert_snapshot!(check(&demo_with("clock_mhz = 1000", "clock_mhz = -1000")));
}

#[test]
fn negative_bandwidth() {
    assert_snapshot!(check(&demo_with(
        "gm_bytes_per_cycle = 32.0",
        "gm_bytes_per_cycle = -32.0"
    )));
}

#[test]
fn infinite_bandwidth() {
    assert_snapshot!(check(&demo_with(
        "gm_bytes_per_cycle = 32.0",
        "gm_bytes_per_cycle = inf"
    )));
}

#[test]
fn no_cores() {
    assert_snapshot!(check(&demo_with("vector = 1", "vector = 0")));
}

#[test]
fn zero_alignment() {
    assert_snapshot!(check(&demo_with("l0c = 64", "l0c = 0")));
}

#[test]
fn missing_vector_cost() {
    assert_snapshot!(check(&demo_with("reduce = 4\n", "")));
}

#[test]
fn unknown_vector_op() {
    assert_snapshot!(check(&demo_with("reduce = 4", "reduce = 4\nfma = 2")));
}

#[test]
fn unknown_dtype() {
    assert_snapshot!(check(&demo_with("\"u32\"]", "\"u32\", \"f64\"]")));
}

#[test]
fn pad_penalty_below_one() {
    assert_snapshot!(check(&demo_with("pad_penalty = 1.5", "pad_penalty = 0.5")));
}

#[test]
fn zero_cube_fractal() {
    assert_snapshot!(check(&preset_with(
        "ascend910b",
        "[cube]\nm = 16",
        "[cube]\nm = 0"
    )));
}

#[test]
fn latency_of_u64_max() {
    assert_snapshot!(check(&demo_with(
        "latency_cycles = 200",
        "latency_cycles = 18446744073709551615"
    )));
}

#[test]
fn vector_cost_past_a_million_cycles() {
    assert_snapshot!(check(&demo_with("exp = 8", "exp = 1000001")));
}

#[test]
fn capacity_past_a_tebibyte() {
    assert_snapshot!(check(&demo_with("ub = 131072", "ub = 1099511627777")));
}

#[test]
fn alignment_not_a_power_of_two() {
    assert_snapshot!(check(&demo_with("l0c = 64", "l0c = 48")));
}

#[test]
fn repeat_bytes_not_a_power_of_two() {
    assert_snapshot!(check(&demo_with(
        "repeat_bytes = 256",
        "repeat_bytes = 100"
    )));
}

#[test]
fn bandwidth_below_a_byte_per_cycle() {
    assert_snapshot!(check(&demo_with(
        "gm_bytes_per_cycle = 32.0",
        "gm_bytes_per_cycle = 1e-300"
    )));
}

#[test]
fn too_many_cores() {
    assert_snapshot!(check(&demo_with("vector = 1", "vector = 4294967295")));
}

#[test]
fn pad_penalty_of_a_million() {
    assert_snapshot!(check(&demo_with("pad_penalty = 1.5", "pad_penalty = 1e6")));
}

#[test]
fn huge_cube_cycles() {
    assert_snapshot!(check(&preset_with(
        "ascend910b",
        "cycles_per_fractal = 1",
        "cycles_per_fractal = 4294967296"
    )));
}

/// What `read_file` says about `path`, with the temporary directory shown as `DIR`.
fn read(path: &std::path::Path, dir: &std::path::Path) -> String {
    match npu_core::target::read_file(path) {
        Ok(text) => format!("ok: {} bytes", text.len()),
        Err(reason) => reason.replace(&dir.display().to_string(), "DIR"),
    }
}

#[test]
fn target_files_are_read_only_when_regular_and_small() {
    let dir = tempfile::tempdir().unwrap();
    let limit = npu_core::target::MAX_FILE_BYTES as usize;
    let at_limit = dir.path().join("at_limit.toml");
    std::fs::write(&at_limit, " ".repeat(limit)).unwrap();
    let over_limit = dir.path().join("over_limit.toml");
    std::fs::write(&over_limit, " ".repeat(limit + 1)).unwrap();
    let binary = dir.path().join("binary.toml");
    std::fs::write(&binary, b"name = \"\xff\"").unwrap();
    let missing = dir.path().join("missing.toml");
    let cases = [
        (at_limit, "ok: 1048576 bytes"),
        (
            over_limit,
            "larger than the 1 MiB limit of a target file (1048577 bytes); \
             NPU_MAX_FILE_BYTES=BYTES raises it",
        ),
        (binary, "not UTF-8 text (byte 8 is not valid)"),
        (missing, "No such file or directory (os error 2)"),
        (dir.path().to_path_buf(), "not a regular file (a directory)"),
    ];
    for (path, expected) in cases {
        assert_eq!(read(&path, dir.path()), expected, "{}", path.display());
    }
}

/// `/dev/zero` never ends and a FIFO without a writer never opens: both must be
/// refused before reading, not read until memory runs out or forever.
#[cfg(unix)]
#[test]
fn endless_and_blocking_target_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        read(std::path::Path::new("/dev/zero"), dir.path()),
        "not a regular file (a character device)"
    );
    let fifo = dir.path().join("target.toml");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    assert_eq!(read(&fifo, dir.path()), "not a regular file (a FIFO)");
    // A link is followed: to a regular file it is read, to a device it is refused.
    let real = dir.path().join("real.toml");
    std::fs::write(&real, "name = \"x\"").unwrap();
    let link = dir.path().join("link.toml");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    assert_eq!(read(&link, dir.path()), "ok: 10 bytes");
    let to_zero = dir.path().join("zero.toml");
    std::os::unix::fs::symlink("/dev/zero", &to_zero).unwrap();
    assert_eq!(
        read(&to_zero, dir.path()),
        "not a regular file (a character device)"
    );
}

/// Every kind of file goes through the one reader: the error names the kind and the
/// file, and a link to something that is not a regular file is refused as a write
/// destination too.
#[cfg(unix)]
#[test]
fn the_bounded_reader_names_the_kind_and_the_file() {
    use npu_core::file::{Kind, destination, read};
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let names: Vec<String> = Kind::ALL
        .iter()
        .map(|&kind| {
            let error = read(kind, &fifo).unwrap_err();
            assert!(!error.is_not_found());
            error
                .to_string()
                .replace(&dir.path().display().to_string(), "DIR")
        })
        .collect();
    assert_eq!(
        names,
        [
            "cannot read kernel source DIR/fifo: not a regular file (a FIFO)",
            "cannot read target file DIR/fifo: not a regular file (a FIFO)",
            "cannot read variants file DIR/fifo: not a regular file (a FIFO)",
            "cannot read knowledge file DIR/fifo: not a regular file (a FIFO)",
            "cannot read idioms file DIR/fifo: not a regular file (a FIFO)",
            "cannot read journal DIR/fifo: not a regular file (a FIFO)",
            "cannot read recording DIR/fifo: not a regular file (a FIFO)",
            "cannot read examples file DIR/fifo: not a regular file (a FIFO)",
        ]
    );
    assert!(
        read(Kind::Journal, &dir.path().join("missing"))
            .unwrap_err()
            .is_not_found()
    );

    let error = destination(&fifo).unwrap_err();
    assert_eq!(
        error.to_string(),
        "not a regular file (a FIFO); npu writes only regular files, and never replaces a link"
    );
    let new = dir.path().join("new");
    assert_eq!(destination(&new).unwrap(), new);
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&new, &link).unwrap();
    assert!(
        destination(&link)
            .unwrap_err()
            .to_string()
            .contains("which does not exist")
    );
    std::fs::write(&new, "x").unwrap();
    assert_eq!(
        destination(&link).unwrap(),
        std::fs::canonicalize(&new).unwrap()
    );
    assert!(
        destination(dir.path())
            .unwrap_err()
            .to_string()
            .starts_with("not a regular file (a directory)")
    );
}
