//! The run journal through its public API: what `--resume` relies on.

#[cfg(unix)]
use crate::support::hang;

use std::fs;
use std::path::Path;

use npu_core::{Code, DiagnosticRecord};
use npu_tune::journal::{CandidateKey, FILE_NAME, Journal, JournalError, JournalHeader, completed};
use npu_tune::record::{CandidateRecord, Verdict};

fn header() -> JournalHeader {
    JournalHeader {
        kernels: vec!["vmla".into(), "softmax".into()],
        target: "ascend910b".into(),
        generator: "heuristic".into(),
        seed: 7,
        rounds: 3,
        candidates: 4,
        kernel_hashes: vec!["fnv1a64:01".into(), "fnv1a64:02".into()],
        target_hashes: vec!["fnv1a64:03".into(), "fnv1a64:03".into()],
        model_version: Some(npu_sim::MODEL_VERSION),
    }
}

fn record(round: u32, index: u32) -> CandidateRecord {
    let rejected = index % 2 == 1;
    CandidateRecord {
        kernel: "vmla".into(),
        generator: "heuristic".into(),
        round,
        index,
        source: format!("tile i {};\nbuffer ub depth 2;", 512 << index),
        verdict: if rejected {
            Verdict::Rejected
        } else {
            Verdict::Correct
        },
        cycles: (!rejected).then_some(2000 - u64::from(round * 100 + index)),
        diagnostics: if rejected {
            vec![DiagnosticRecord {
                code: Code::E020,
                line: 1,
                column: 8,
                message: "ub holds 196608 B; a, b, y at depth 2 need 262144 B".into(),
                help: Some("split i by 2048 or less fits".into()),
                labels: Vec::new(),
                notes: Vec::new(),
            }]
        } else {
            Vec::new()
        },
        feedback: "MTE2 busy 92%, vector 31%: memory-bound \"quoted\"\n".into(),
        report: None,
        knowledge: Vec::new(),
        verified: true,
        constraint: None,
    }
}

/// Records as JSON, for comparing (the record types do not implement `PartialEq`).
fn json(records: &[CandidateRecord]) -> serde_json::Value {
    serde_json::to_value(records).unwrap()
}

/// Opens a fresh journal in `dir` and appends `records`.
fn write_journal(dir: &Path, records: &[CandidateRecord]) {
    let (mut journal, resumed) = Journal::open(dir, &header(), false).unwrap();
    assert!(resumed.is_empty());
    for record in records {
        journal.append(record).unwrap();
    }
}

#[test]
fn append_then_resume_returns_the_same_records() {
    let dir = tempfile::tempdir().unwrap();
    let records: Vec<_> = (0..4).map(|index| record(0, index)).collect();
    write_journal(dir.path(), &records);

    let (mut journal, resumed) = Journal::open(dir.path(), &header(), true).unwrap();
    assert_eq!(json(&resumed), json(&records));
    assert_eq!(journal.dropped_lines(), 0);
    assert_eq!(journal.backup(), None);

    // Appends continue after the resumed records.
    journal.append(&record(1, 0)).unwrap();
    drop(journal);
    let (_, resumed) = Journal::open(dir.path(), &header(), true).unwrap();
    assert_eq!(resumed.len(), 5);
    assert_eq!(json(&resumed[4..]), json(&[record(1, 0)]));
}

#[test]
fn a_line_cut_by_a_crash_is_dropped_and_the_file_repaired() {
    let dir = tempfile::tempdir().unwrap();
    let records: Vec<_> = (0..3).map(|index| record(0, index)).collect();
    write_journal(dir.path(), &records);
    let path = dir.path().join(FILE_NAME);
    let whole = fs::read(&path).unwrap();
    // Cut the last line half-way, as a crash during its write would.
    fs::write(&path, &whole[..whole.len() - 60]).unwrap();

    let (mut journal, resumed) = Journal::open(dir.path(), &header(), true).unwrap();
    assert_eq!(journal.dropped_lines(), 1);
    assert_eq!(json(&resumed), json(&records[..2]));

    // The redone evaluation follows the last whole line, not the cut one.
    journal.append(&records[2]).unwrap();
    drop(journal);
    assert_eq!(fs::read(&path).unwrap(), whole);
    let (journal, resumed) = Journal::open(dir.path(), &header(), true).unwrap();
    assert_eq!(journal.dropped_lines(), 0);
    assert_eq!(json(&resumed), json(&records));
}

#[test]
fn a_last_line_missing_only_its_newline_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let records: Vec<_> = (0..2).map(|index| record(0, index)).collect();
    write_journal(dir.path(), &records);
    let path = dir.path().join(FILE_NAME);
    let whole = fs::read(&path).unwrap();
    fs::write(&path, &whole[..whole.len() - 1]).unwrap();

    let (journal, resumed) = Journal::open(dir.path(), &header(), true).unwrap();
    assert_eq!(journal.dropped_lines(), 0);
    assert_eq!(json(&resumed), json(&records));
    drop(journal);
    assert_eq!(fs::read(&path).unwrap(), whole);
}

#[test]
fn a_corrupt_middle_line_names_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let records: Vec<_> = (0..3).map(|index| record(0, index)).collect();
    write_journal(dir.path(), &records);
    let path = dir.path().join(FILE_NAME);
    let text = fs::read_to_string(&path).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[2] = r#"{"candidate":{"kernel":"vmla","round":"zero"}}"#;
    let before = lines.join("\n") + "\n";
    fs::write(&path, &before).unwrap();

    let error = Journal::open(dir.path(), &header(), true).unwrap_err();
    assert!(
        matches!(error, JournalError::Corrupt { line: 3, .. }),
        "{error:?}"
    );
    let message = error.to_string();
    let expected = format!(
        "journal {}:3:44 is not a journal line: invalid type: string \"zero\", expected u32; \
         move the file away to start afresh",
        path.display()
    );
    assert_eq!(message, expected);
    // Nothing was changed.
    assert_eq!(fs::read_to_string(&path).unwrap(), before);
}

#[test]
fn a_journal_made_with_other_settings_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_journal(dir.path(), &[record(0, 0)]);
    let other = JournalHeader {
        generator: "llm".into(),
        ..header()
    };
    let error = Journal::open(dir.path(), &other, true).unwrap_err();
    let expected = format!(
        "cannot resume {}: the journal was written with generator `heuristic`, this run has \
         generator `llm`; rerun with the journal's settings, or without --resume to start \
         afresh (the old journal is kept as a backup), or with another --report-dir",
        dir.path().join(FILE_NAME).display()
    );
    assert_eq!(error.to_string(), expected);
}

#[test]
fn a_journal_of_an_older_npu_or_another_kernel_text_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE_NAME);
    // A header as npu wrote it before it recorded hashes and the model version.
    let old = r#"{"header":{"kernels":["vmla","softmax"],"target":"ascend910b","generator":"heuristic","seed":7,"rounds":3,"candidates":4}}"#;
    fs::write(&path, format!("{old}\n")).unwrap();
    let error = Journal::open(dir.path(), &header(), true).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "cannot resume {}: the journal was written with simulator model version `none (a \
             journal of an npu that did not record it)`, this run has simulator model version \
             `{}`; its records are not this run's numbers; rerun without --resume to start \
             afresh (the old journal is kept as a backup), or with another --report-dir",
            path.display(),
            npu_sim::MODEL_VERSION
        )
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), format!("{old}\n"));

    write_journal(dir.path(), &[record(0, 0)]);
    let before = fs::read(&path).unwrap();
    let mut edited = header();
    edited.kernel_hashes[0] = "fnv1a64:09".into();
    let error = Journal::open(dir.path(), &edited, true).unwrap_err();
    assert!(
        error.to_string().contains(
            "the journal was written with kernel `vmla`'s text hash `fnv1a64:01`, this run has kernel `vmla`'s text hash `fnv1a64:09`"
        ),
        "{error}"
    );
    assert_eq!(fs::read(&path).unwrap(), before);
}

#[test]
fn a_fresh_start_backs_up_the_previous_journal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE_NAME);
    write_journal(dir.path(), &[record(0, 0)]);
    let first = fs::read(&path).unwrap();
    write_journal(dir.path(), &[record(0, 1)]);
    let second = fs::read(&path).unwrap();

    let (journal, resumed) = Journal::open(dir.path(), &header(), false).unwrap();
    assert!(resumed.is_empty());
    // Both earlier journals are kept, under distinct names.
    let backups: Vec<Vec<u8>> = {
        let mut names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .filter(|name| name.ends_with(".jsonl.bak"))
            .collect();
        names.sort();
        assert_eq!(names.len(), 2, "{names:?}");
        assert!(names.iter().all(|name| name.starts_with("journal.")));
        let mut contents: Vec<_> = names
            .iter()
            .map(|name| fs::read(dir.path().join(name)).unwrap())
            .collect();
        contents.sort();
        contents
    };
    let mut expected = vec![first, second];
    expected.sort();
    assert_eq!(backups, expected);
    let backup = journal.backup().unwrap();
    assert!(backup.starts_with(dir.path()));
    drop(journal);
    let (_, resumed) = Journal::open(dir.path(), &header(), true).unwrap();
    assert!(resumed.is_empty());
}

#[test]
fn resume_without_a_journal_starts_afresh() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("out").join("run");
    let (mut journal, resumed) = Journal::open(&run_dir, &header(), true).unwrap();
    assert!(resumed.is_empty());
    journal.append(&record(0, 0)).unwrap();
    drop(journal);
    let (_, resumed) = Journal::open(&run_dir, &header(), true).unwrap();
    assert_eq!(json(&resumed), json(&[record(0, 0)]));
}

#[test]
fn an_empty_journal_is_reused_without_a_backup() {
    for resume in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(FILE_NAME), b"").unwrap();
        let (mut journal, resumed) = Journal::open(dir.path(), &header(), resume).unwrap();
        assert!(resumed.is_empty());
        assert_eq!(journal.backup(), None);
        journal.append(&record(0, 0)).unwrap();
        drop(journal);
        let (_, resumed) = Journal::open(dir.path(), &header(), true).unwrap();
        assert_eq!(json(&resumed), json(&[record(0, 0)]));
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}

#[test]
fn a_second_run_in_the_same_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_journal, _) = Journal::open(dir.path(), &header(), false).unwrap();
    for resume in [false, true] {
        let error = Journal::open(dir.path(), &header(), resume).unwrap_err();
        assert!(matches!(error, JournalError::Locked { .. }), "{error:?}");
    }
    // The running journal was not moved away.
    let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 1);
}

#[test]
fn completed_indexes_by_kernel_generator_round_and_index() {
    let records = vec![record(0, 0), record(0, 1), record(1, 0)];
    let done = completed(records.clone());
    assert_eq!(done.len(), 3);
    let found = &done[&CandidateKey::new("vmla", "heuristic", 0, 1)];
    assert_eq!(found.verdict, Verdict::Rejected);
    assert!(!done.contains_key(&CandidateKey::new("vmla", "heuristic", 1, 1)));
    assert!(!done.contains_key(&CandidateKey::new("vmla", "random", 0, 0)));
    assert_eq!(
        CandidateKey::of(&records[2]),
        CandidateKey::new("vmla", "heuristic", 1, 0)
    );
}

/// Floats a resumed run must read back bit for bit: sums that are not their decimal
/// look, the extremes of the range, subnormals, and values serde_json's fast parser
/// rounds wrongly without `float_roundtrip`, plus a fixed pseudo-random spread.
fn awkward_floats() -> Vec<f64> {
    let mut floats = vec![
        0.1 + 0.2,
        1.0 / 3.0,
        1e-300,
        f64::MIN_POSITIVE,
        5e-324,
        2.225073858507201e-308,
        f64::MAX,
        4.628495163589311e-151,
        1.0391779999412903e114,
        -3.646365386218247e-90,
    ];
    let mut rng = fastrand::Rng::with_seed(0x2545_f491_4f6c_dd1d);
    while floats.len() < 200 {
        let float = f64::from_bits(rng.u64(..));
        if float.is_finite() {
            floats.push(float);
        }
    }
    floats
}

/// A report as the simulator writes it, for the vmla kernel on the demo target.
fn simulated_report() -> npu_sim::Report {
    let source =
        "kernel vmla(a: [f16; 4096], b: [f16; 4096]) -> y: [f16; 4096] { y[i] = a[i] * b[i]; }
        target npueval_demo;
        schedule s { split i by 1024; stage a, b, y in ub depth 2; }";
    let target = npu_core::Target::preset("npueval_demo").unwrap();
    let kernel = npu_core::check_source(source, &target).unwrap();
    let program = npu_core::lower::lower(&kernel, 0);
    let options = npu_sim::SimOptions {
        functional: false,
        ..npu_sim::SimOptions::default()
    };
    npu_sim::simulate(&kernel, &program, &[], &options)
        .unwrap()
        .report
}

/// Every float of a report, in a fixed order.
fn report_floats(report: &npu_sim::Report) -> Vec<f64> {
    let mut floats = vec![
        report.memory_bound_ratio,
        report.vector_score,
        report.efficiency,
        report.machine_efficiency,
    ];
    for pipe in &report.pipes {
        floats.extend([pipe.busy_ratio, pipe.stall_ratio]);
    }
    floats
}

#[test]
fn resumed_floats_are_bit_for_bit_the_written_ones() {
    let template = simulated_report();
    assert!(!template.pipes.is_empty());
    let records: Vec<CandidateRecord> = awkward_floats()
        .chunks(2)
        .enumerate()
        .map(|(index, pair)| {
            let mut report = template.clone();
            report.memory_bound_ratio = pair[0];
            report.vector_score = pair[1];
            report.efficiency = -pair[0];
            report.machine_efficiency = -pair[1];
            for pipe in &mut report.pipes {
                pipe.busy_ratio = pair[1];
                pipe.stall_ratio = pair[0];
            }
            CandidateRecord {
                report: Some(report),
                round: index as u32,
                ..record(0, 0)
            }
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    write_journal(dir.path(), &records);

    let (_, resumed) = Journal::open(dir.path(), &header(), true).unwrap();
    assert_eq!(resumed.len(), records.len());
    for (written, read) in records.iter().zip(&resumed) {
        let bits = |record: &CandidateRecord| -> Vec<u64> {
            report_floats(record.report.as_ref().unwrap())
                .into_iter()
                .map(f64::to_bits)
                .collect()
        };
        assert_eq!(
            bits(read),
            bits(written),
            "record of round {}",
            written.round
        );
    }
}

/// The notes `Journal::open` returns for a journal of two records whose bytes `edit`
/// changed, with the directory written as `DIR`.
fn notes_after(edit: impl FnOnce(&mut Vec<u8>), resume: bool) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    write_journal(dir.path(), &[record(0, 0), record(0, 1)]);
    let path = dir.path().join(FILE_NAME);
    let mut bytes = fs::read(&path).unwrap();
    edit(&mut bytes);
    fs::write(&path, &bytes).unwrap();
    let (journal, _) = Journal::open(dir.path(), &header(), resume).unwrap();
    let shown = dir.path().display().to_string();
    let notes = journal
        .notes()
        .iter()
        .map(|note| note.replace(&shown, "DIR"))
        .collect();
    // A second open finds nothing left to repair.
    drop(journal);
    let (again, _) = Journal::open(dir.path(), &header(), true).unwrap();
    assert_eq!(again.notes(), [] as [String; 0], "after {notes:?}");
    notes
}

#[test]
fn every_repair_is_reported_as_a_note() {
    assert_eq!(notes_after(|_| {}, true), [] as [String; 0]);
    assert_eq!(
        notes_after(|bytes| bytes.truncate(bytes.len() - 60), true),
        [format!(
            "journal DIR/{FILE_NAME}: dropped a cut last line ({} bytes) left by an interrupted run; its evaluation is done again",
            record_line_len(1) - 60
        )]
    );
    assert_eq!(
        notes_after(|bytes| bytes.extend_from_slice(b"  \t "), true),
        [format!(
            "journal DIR/{FILE_NAME}: dropped 4 bytes of blank space after the last line"
        )]
    );
    assert_eq!(
        notes_after(
            |bytes| {
                bytes.pop();
            },
            true
        ),
        [format!(
            "journal DIR/{FILE_NAME}: added the newline the last line was missing"
        )]
    );
    assert_eq!(
        notes_after(|bytes| bytes.truncate(20), true),
        [format!(
            "journal DIR/{FILE_NAME}: dropped a cut header line (20 bytes) left by an interrupted run and started afresh"
        )]
    );
    let notes = notes_after(|_| {}, false);
    let [note] = notes.as_slice() else {
        panic!("expected one note, got {notes:?}");
    };
    let prefix = format!("journal DIR/{FILE_NAME}: kept the previous journal as DIR/journal.");
    assert!(
        note.starts_with(&prefix) && note.ends_with(".jsonl.bak and started afresh"),
        "{note}"
    );
}

/// Bytes of the journal line of `record(0, index)`, newline included.
fn record_line_len(index: u32) -> usize {
    let dir = tempfile::tempdir().unwrap();
    write_journal(dir.path(), &[]);
    let empty = fs::metadata(dir.path().join(FILE_NAME)).unwrap().len();
    write_journal(dir.path(), &[record(0, index)]);
    (fs::metadata(dir.path().join(FILE_NAME)).unwrap().len() - empty) as usize
}

#[test]
fn a_one_line_file_that_is_not_a_journal_is_never_cut_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE_NAME);
    for bytes in [&b"fn main() {}"[..], b"\x7fELF\x00\xff", b"{\"kernels\": 1"] {
        fs::write(&path, bytes).unwrap();
        let error = Journal::open(dir.path(), &header(), true).unwrap_err();
        assert!(
            error
                .to_string()
                .ends_with(":1:0 is not a journal line: the first line is not a run header; this is not a journal; move the file away to start afresh"),
            "{error}"
        );
        assert_eq!(fs::read(&path).unwrap(), bytes);
    }
    // A header cut by a crash is still repaired.
    fs::write(&path, br#"{"header":{"kern"#).unwrap();
    assert!(Journal::open(dir.path(), &header(), true).is_ok());
}

/// Issue 24: a journal that is a FIFO hung `--resume` (the journal is opened for
/// reading and appending, which does not wait, and the read then waits forever), and
/// a link to `/dev/zero` was read until memory ran out. Both are refused before the
/// file is opened. A journal that is a link to a regular file is written through: a
/// fresh start keeps the old journal beside the file linked to, and the link stays.
#[cfg(unix)]
#[test]
fn a_journal_that_is_a_fifo_or_endless_is_refused_and_a_link_is_kept() {
    for resume in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        hang::mkfifo(&path);
        let at = dir.path().to_path_buf();
        let error = hang::within_20_s("Journal::open", move || {
            Journal::open(&at, &header(), resume)
                .map(|_| ())
                .unwrap_err()
                .to_string()
        });
        assert!(error.contains("not a regular file (a FIFO)"), "{error}");
        assert!(hang::is_fifo(&path));
        fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
        let at = dir.path().to_path_buf();
        let error = hang::within_20_s("Journal::open", move || {
            Journal::open(&at, &header(), resume)
                .map(|_| ())
                .unwrap_err()
                .to_string()
        });
        assert!(error.contains("/dev/zero (a character device)"), "{error}");
        assert_eq!(fs::read_link(&path).unwrap(), Path::new("/dev/zero"));
    }

    let dir = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    write_journal(elsewhere.path(), &[record(0, 0)]);
    let real = elsewhere.path().join(FILE_NAME);
    let old = fs::read(&real).unwrap();
    let link = dir.path().join(FILE_NAME);
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let (_, resumed) = Journal::open(dir.path(), &header(), true).unwrap();
    assert_eq!(json(&resumed), json(&[record(0, 0)]));
    let (journal, resumed) = Journal::open(dir.path(), &header(), false).unwrap();
    assert!(resumed.is_empty());
    let backup = journal.backup().unwrap().to_path_buf();
    drop(journal);
    assert_eq!(fs::read_link(&link).unwrap(), real);
    assert_eq!(fs::read(&backup).unwrap(), old);
    assert_eq!(
        fs::canonicalize(backup.parent().unwrap()).unwrap(),
        fs::canonicalize(elsewhere.path()).unwrap()
    );
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}
