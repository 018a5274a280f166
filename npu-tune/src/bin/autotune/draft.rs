//! `autotune draft`: a model writes a kernel's body from its doc comment, signature and
//! target, checked and run against examples, and the first body that matches is
//! written back into the file.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use clap::ValueEnum;
use npu_core::file::Kind;
use npu_tune::atomic::write_atomic;
use npu_tune::draft::examples::{self, Example, Tolerance};
use npu_tune::draft::idioms::{self, Idiom};
use npu_tune::draft::run::{BodySource, LlmBodies, ReplayBodies};
use npu_tune::draft::{DraftConfig, Drafted, Task, draft};
use npu_tune::llm::LlmClient;

use crate::llm_args::LlmArgs;
use npu_tune::grammar::ConstrainMode;
use npu_tune::replay::{Replayer, Transcript};

/// Where candidate bodies come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum DraftGenerator {
    /// An OpenAI-compatible chat-completions endpoint (--llm-url or NPU_LLM_URL).
    Llm,
    /// Replies recorded from an earlier run with --record (needs --replay FILE).
    Replay,
}

/// What `autotune draft` takes.
#[derive(Debug, clap::Args)]
pub(crate) struct DraftArgs {
    /// A `.npu` kernel file, or a Rust file (with --kernel NAME), whose kernel has a
    /// doc comment saying what it computes, its signature, its target and an empty
    /// body `{}`.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// The kernel to draft, in a file with several (default: the first).
    #[arg(long, value_name = "NAME")]
    kernel: Option<String>,
    /// Inputs and expected outputs the body must reproduce: JSON, an .npz archive or a
    /// directory of NAME.npy files (see `npu::tuner::draft::examples`). Without them
    /// the body is marked unverified.
    #[arg(long, value_name = "FILE")]
    examples: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "llm")]
    generator: DraftGenerator,
    #[arg(long, default_value_t = 3)]
    rounds: u32,
    /// Candidate bodies per round.
    #[arg(long, default_value_t = 4)]
    candidates: usize,
    /// Relative tolerance of the comparison (default: per output dtype).
    #[arg(long, requires = "atol")]
    rtol: Option<f64>,
    /// Absolute tolerance of the comparison (default: per output dtype).
    #[arg(long, requires = "rtol")]
    atol: Option<f64>,
    #[command(flatten)]
    llm: crate::llm_args::LlmArgs,
    /// How the server is asked to constrain replies to the signature's bodies: the
    /// grammar (GBNF: the llama.cpp server), the syntax tree's JSON Schema (vLLM and
    /// hosted APIs with structured outputs), none, or auto (probe the server once).
    #[arg(long, value_enum, default_value = "gbnf")]
    llm_constrain: crate::args::Constrain,
    /// Record the model's replies to FILE, for --generator replay.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// The recording --generator replay reads.
    #[arg(long, value_name = "FILE")]
    replay: Option<PathBuf>,
    /// Stop once the body is written; by default its schedules are then tuned as
    /// `autotune FILE --kernel NAME` tunes them (from the tuner's first draft when the
    /// kernel has none).
    #[arg(long)]
    no_tune: bool,
    /// Where the tuning after the draft writes its reports.
    #[arg(long, default_value = "target/autotune")]
    report_dir: PathBuf,
    /// Read the drafting idioms from DIR, every `*.toml` of it (default: the built-in
    /// `idioms/` entries); the prompt shows those the kernel's description calls for.
    #[arg(long, value_name = "DIR")]
    pub(crate) idioms: Option<PathBuf>,
}

/// Runs `autotune draft` with `args`.
pub(crate) fn run(args: &DraftArgs) -> Result<(), String> {
    let text = npu_core::file::read(Kind::Kernel, &args.file).map_err(|e| e.to_string())?;
    let task = Task::parse_named(&text, args.kernel.as_deref())
        .map_err(|e| format!("{}: {e}", args.file.display()))?;
    let dir = args.file.parent().unwrap_or(Path::new("."));
    let target = task
        .target(dir)
        .map_err(|e| format!("{}: {e}", args.file.display()))?;
    let examples = match &args.examples {
        Some(path) => read_examples(path, &task)?,
        None => Vec::new(),
    };
    let recording = args
        .record
        .as_ref()
        .map(|_| Arc::new(Mutex::new(Transcript::new(args.llm.model()))));
    let mut source = body_source(args, recording.clone())?;
    let config = DraftConfig {
        rounds: args.rounds.max(1),
        candidates: args.candidates.max(1),
        tolerance: args
            .rtol
            .zip(args.atol)
            .map(|(relative, absolute)| Tolerance { relative, absolute }),
        parts: Default::default(),
        idioms: load_idioms(args.idioms.as_deref())?,
        variant: None,
    };
    let drafted = draft(&task, &target, &examples, source.as_mut(), &config);
    if let (Some(path), Some(recording)) = (&args.record, &recording)
        && let Ok(transcript) = recording.lock()
    {
        transcript.save(path).map_err(|e| e.to_string())?;
    }
    let drafted = drafted?;
    print_summary(&drafted, &config);
    write_back(&task, &drafted, &examples, &args.file)?;
    match args.no_tune {
        true => Ok(()),
        false => tune_drafted(args, &task.name),
    }
}

/// The idioms of `--idioms DIR`, or the built-in ones.
pub(crate) fn load_idioms(dir: Option<&Path>) -> Result<Vec<Idiom>, String> {
    match dir {
        Some(dir) => idioms::load(dir),
        None => Ok(idioms::builtin()),
    }
}

/// Tunes the drafted kernel as `autotune FILE --kernel NAME --report-dir DIR` would.
fn tune_drafted(args: &DraftArgs, name: &str) -> Result<(), String> {
    #[derive(clap::Parser)]
    struct Tune {
        #[command(flatten)]
        args: crate::args::TuneArgs,
    }
    let argv = [
        "autotune".as_ref(),
        args.file.as_os_str(),
        "--kernel".as_ref(),
        name.as_ref(),
        "--report-dir".as_ref(),
        args.report_dir.as_os_str(),
    ];
    let tune = <Tune as clap::Parser>::try_parse_from(argv).map_err(|e| e.to_string())?;
    crate::tune::tune(&tune.args)
}

/// Examples from a JSON file, an `.npz` archive or a directory of `.npy` files.
fn read_examples(path: &Path, task: &Task) -> Result<Vec<Example>, String> {
    let read = match path.extension().and_then(|e| e.to_str()) {
        _ if path.is_dir() => examples::from_npy_dir(path, &task.ports),
        Some("npz") => npu_core::file::read_bytes(Kind::Examples, path)
            .map_err(|e| e.to_string())
            .and_then(|bytes| examples::from_npz(&bytes, &task.ports)),
        Some("npy") => Err(
            "one .npy file holds one array; give an .npz archive or a directory of NAME.npy files"
                .into(),
        ),
        _ => npu_core::file::read(Kind::Examples, path)
            .map_err(|e| e.to_string())
            .and_then(|json| examples::from_json(&json, &task.ports)),
    };
    read.map_err(|e| format!("{}: {e}", path.display()))
}

fn body_source(
    args: &DraftArgs,
    recording: Option<Arc<Mutex<Transcript>>>,
) -> Result<Box<dyn BodySource>, String> {
    let how = Sourcing {
        generator: args.generator,
        replay: args.replay.as_deref(),
        llm: &args.llm,
        recording,
    };
    how.source(crate::tune::constrain_mode(args.llm_constrain))
}

/// Where a drafting run's bodies come from.
pub(crate) struct Sourcing<'a> {
    pub(crate) generator: DraftGenerator,
    pub(crate) replay: Option<&'a Path>,
    pub(crate) llm: &'a LlmArgs,
    pub(crate) recording: Option<Arc<Mutex<Transcript>>>,
}

impl Sourcing<'_> {
    /// The body source; a model's replies constrained as `constrain` says.
    pub(crate) fn source(&self, constrain: ConstrainMode) -> Result<Box<dyn BodySource>, String> {
        match self.generator {
            DraftGenerator::Replay => {
                let path = self
                    .replay
                    .ok_or("--generator replay needs --replay FILE")?;
                let transcript = Transcript::load(path).map_err(|e| e.to_string())?;
                Ok(Box::new(ReplayBodies::strict(Replayer::new(transcript))))
            }
            DraftGenerator::Llm => {
                let config = self
                    .llm
                    .config("drafting")
                    .map_err(|e| format!("{e}, or --generator replay"))?;
                Ok(Box::new(LlmBodies {
                    client: LlmClient::new(config),
                    constrain,
                    recording: self.recording.clone(),
                }))
            }
        }
    }
}

/// Comp@1, Pass@1, Pass@(R×K) and the rounds used, on stdout.
fn print_summary(drafted: &Drafted, config: &DraftConfig) {
    let (comp, pass) = drafted.first_round();
    println!(
        "{}: Comp@1 {:.0}%  Pass@1 {:.0}%  Pass@({}x{}) {}  rounds used {}  attempts {}",
        drafted.kernel,
        comp * 100.0,
        pass * 100.0,
        config.rounds,
        config.candidates,
        if drafted.chosen.is_some() {
            "yes"
        } else {
            "no"
        },
        drafted.rounds,
        drafted.attempts.len()
    );
    if let Some(reason) = &drafted.stopped {
        eprintln!(
            "warning: drafting `{}` stopped after round {}: {reason}",
            drafted.kernel, drafted.rounds
        );
    }
}

/// Writes the chosen body into the file, marked unverified without examples.
fn write_back(
    task: &Task,
    drafted: &Drafted,
    examples: &[Example],
    file: &Path,
) -> Result<(), String> {
    let Some(body) = drafted.body() else {
        let last = drafted
            .attempts
            .last()
            .map_or("no reply", |a| a.summary.as_str());
        return Err(format!(
            "no body of `{}` checked and matched in {} rounds; {} left as it was. The last attempt: {last}",
            task.name,
            drafted.rounds,
            file.display()
        ));
    };
    let body = if drafted.verified {
        body.to_string()
    } else {
        format!("// unverified: drafted without examples\n{body}")
    };
    write_atomic(file, task.with_body(&body).as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    let mut how = match drafted.verified {
        true => format!("matches {} examples", examples.len()),
        false => "unverified: no examples".to_string(),
    };
    if drafted.chosen_rewritten() {
        how.push_str("; rewritten into the forms the checker asks for");
    }
    eprintln!(
        "wrote the body of `{}` to {} ({how})",
        task.name,
        file.display()
    );
    Ok(())
}
