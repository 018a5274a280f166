//! The build-script helper: fills in the variants files of the kernels that ask for
//! them (`variants 4 from "kernels/vmla.variants.npu";`).
//!
//! In build.rs, `fn main` does:
//!
//! ```no_run
//! npu_tune::build::Variants::new().kernel_files(["src/kernels.rs"]).run();
//! ```
//!
//! Hermetic by default: a build never touches the network and never rewrites a file
//! whose kernel hash matches (even one edited by hand: the macro checks its schedules).
//! Without `NPU_REGEN_VARIANTS`, a file is (re)generated with the offline heuristic
//! only when it is missing, or when it is *stale*: a variants file of this kernel,
//! exactly as npu wrote it (its `text-hash` line matches its text), whose kernel hash is
//! an older version of the kernel's; a warning names the kernel. A file that is not as
//! npu wrote it (edited by hand, a corrupted hash line, a byte that is not UTF-8, or
//! written by an npu that did not sign its text) is never regenerated unasked: the
//! build warns, naming the file (and the byte), and the macro reports it when the crate
//! compiles. `NPU_REGEN_VARIANTS` asks for regeneration: `1` (every kernel) or
//! `vmla,rowsum` (those); it regenerates such a file too, keeping its old text as
//! `FILE.orig`. With `NPU_LLM_URL` set (and the `llm` feature), a requested regeneration
//! asks that chat-completions server; if it is down or gives no correct schedule, the
//! existing file is kept (or, without one, the heuristic writes it) and a warning says
//! why.
//!
//! What may be overwritten at all is one rule shared with `autotune --write-variants`
//! ([`crate::variants_writer::destination`]): only a variants file of this kernel
//! (by its header) or a path that does not exist. Another kernel's file, a source file,
//! a binary, a directory or a read-only file is never written, asked or not.
//!
//! Every candidate goes through the tuner: the real checker, then the simulator on
//! seeded data against the host reference. Rejected candidates become
//! `cargo:warning=` lines with their code and message. Files are written atomically,
//! through a temporary `.NAME.npu-tmp.PID.N` beside them; one left by a killed build is
//! removed by the next.

pub mod discover;

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::atomic::sweep;
use crate::evaluate::Problem;
use crate::generator::{Generator, Heuristic};
use crate::record::{KernelResult, Verdict};
use crate::run::{RunConfig, Silent, Verify, run};
use crate::variants_writer::{
    Existing, Provenance, best_distinct, first_hand, inspect, may_replace, regeneration_requested,
    render, today, write,
};

pub use discover::{Found, discover};

/// The environment variables a build depends on, for `cargo:rerun-if-env-changed`.
pub const ENV_VARS: [&str; 5] = [
    "NPU_REGEN_VARIANTS",
    "NPU_LLM_URL",
    "NPU_LLM_MODEL",
    "SOURCE_DATE_EPOCH",
    "NPU_MAX_FILE_BYTES",
];

/// Generates the variants files of kernels in a crate's sources. See the module docs.
#[derive(Debug)]
pub struct Variants {
    kernel_files: Vec<PathBuf>,
    crate_dir: Option<PathBuf>,
    out_dir: Option<PathBuf>,
    rounds: u32,
    candidates: usize,
    seed: u64,
    env: Env,
}

/// Where a kernel's variants go: the file, how many, and whether its old text is kept
/// as `FILE.orig` (a file not as npu wrote it, regenerated on request).
#[derive(Clone, Copy, Debug)]
struct Destination<'a> {
    path: &'a Path,
    count: usize,
    keep_original: bool,
}

/// Environment variables, from the process or given (for tests).
#[derive(Clone, Debug, Default)]
enum Env {
    #[default]
    Process,
    Given(Vec<(String, String)>),
}

/// What [`Variants::run_to`] did for one kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// The file's hash matches: not touched.
    Kept,
    /// The file was written by this generator.
    Written {
        /// The generator's name.
        generator: String,
        /// How many variants the file holds.
        variants: usize,
    },
    /// The file may not be written (see [`crate::variants_writer::destination`]) and
    /// was left alone, with a warning naming it and why; the macro reports a file it
    /// cannot use when the crate compiles.
    LeftAlone,
}

impl Default for Variants {
    fn default() -> Self {
        Self::new()
    }
}

impl Variants {
    /// Two rounds of four candidates per kernel, seed 0.
    pub fn new() -> Variants {
        Variants {
            kernel_files: Vec::new(),
            crate_dir: None,
            out_dir: None,
            rounds: 2,
            candidates: 4,
            seed: 0,
            env: Env::Process,
        }
    }

    /// The Rust (or `.npu`) files whose kernels to look at, relative to the crate.
    pub fn kernel_files<P: AsRef<Path>>(mut self, files: impl IntoIterator<Item = P>) -> Self {
        self.kernel_files
            .extend(files.into_iter().map(|p| p.as_ref().to_path_buf()));
        self
    }

    /// Generator rounds per kernel (default 2).
    pub fn rounds(mut self, rounds: u32) -> Self {
        self.rounds = rounds.max(1);
        self
    }

    /// Candidates per round (default 4).
    pub fn candidates(mut self, candidates: usize) -> Self {
        self.candidates = candidates.max(1);
        self
    }

    /// The seed of the generators and of the simulated inputs (default 0).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The crate root (default `CARGO_MANIFEST_DIR`).
    pub fn crate_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.crate_dir = Some(dir.into());
        self
    }

    /// Where the tuner's journals go (default `OUT_DIR`).
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Reads these variables instead of the process environment (for tests).
    pub fn env<K: Into<String>, V: Into<String>>(
        mut self,
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        self.env = Env::Given(
            vars.into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        );
        self
    }

    /// Runs in a build script: prints the `cargo:` lines and exits the build with an
    /// error when a kernel file cannot be read or its kernel does not check.
    pub fn run(self) {
        let mut stdout = std::io::stdout();
        if let Err(message) = self.run_to(&mut stdout) {
            for line in message.lines() {
                let _ = writeln!(stdout, "cargo:warning={line}");
            }
            // The macro reports a broken kernel at its tokens; failing here as well
            // would hide that better message.
        }
    }

    /// Does the work, writing `cargo:` lines to `out`; returns what happened to each
    /// kernel that asks for variants, in source order.
    pub fn run_to(&self, out: &mut dyn Write) -> Result<Vec<(String, Action)>, String> {
        let crate_dir = match &self.crate_dir {
            Some(dir) => dir.clone(),
            None => PathBuf::from(self.var("CARGO_MANIFEST_DIR").unwrap_or_default()),
        };
        let out_dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => self
                .var("OUT_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| crate_dir.join("target/npu-variants")),
        };
        let mut emit = |line: String| {
            let _ = writeln!(out, "{line}");
        };
        for var in ENV_VARS {
            emit(format!("cargo:rerun-if-env-changed={var}"));
        }
        let mut actions = Vec::new();
        for file in &self.kernel_files {
            let full = crate_dir.join(file);
            emit(format!("cargo:rerun-if-changed={}", full.display()));
            for found in discover(&full)? {
                let Some(variants) = found.def.variants.first() else {
                    continue;
                };
                let path = crate_dir.join(&variants.path);
                emit(format!("cargo:rerun-if-changed={}", path.display()));
                let count = variants.count.value.min(npu_core::internal::MAX_VARIANTS) as usize;
                let action = self
                    .kernel(&found, &crate_dir, &out_dir, &path, count, &mut emit)
                    .unwrap_or_else(|why| {
                        // The macro reports a kernel that does not check, at its tokens.
                        for line in why.lines() {
                            emit(format!("cargo:warning={line}"));
                        }
                        Action::LeftAlone
                    });
                actions.push((found.name.clone(), action));
            }
        }
        Ok(actions)
    }

    fn kernel(
        &self,
        found: &Found,
        crate_dir: &Path,
        out_dir: &Path,
        path: &Path,
        count: usize,
        emit: &mut dyn FnMut(String),
    ) -> Result<Action, String> {
        let name = &found.name;
        let target = found.target(crate_dir)?;
        let requested = self.regeneration_requested(name);
        sweep(path);
        let hash = npu_core::variants::kernel_hash(&found.def, &target.name);
        let Some((existing, keep_original)) = self.decide(path, name, &hash, requested, emit)
        else {
            return Ok(Action::LeftAlone);
        };
        if !requested && matches!(existing, Existing::Generated { current: true }) {
            return Ok(Action::Kept);
        }
        let destination = Destination {
            path,
            count,
            keep_original,
        };
        // Only now is the kernel checked and its reference computed: a kept file costs
        // a build no simulation.
        let problem = found.problem(crate_dir, self.seed)?;
        let mut heuristic = Heuristic::default();
        if existing != Existing::Missing && !requested {
            return self.generate(
                &problem,
                &mut heuristic,
                "none",
                out_dir,
                &destination,
                emit,
            );
        }
        if requested && !cfg!(feature = "llm") && self.var("NPU_LLM_URL").is_some() {
            emit(format!(
                "cargo:warning=kernel `{name}`: NPU_LLM_URL is set, but npu was built without its `llm` feature; using the offline heuristic (add features = [\"llm\"] to npu in [build-dependencies])"
            ));
        }
        if requested && let Some((mut generator, model)) = self.llm() {
            let llm = generator.as_mut();
            match self.generate(&problem, llm, &model, out_dir, &destination, emit) {
                Ok(action) => return Ok(action),
                Err(why) if existing != Existing::Missing => {
                    emit(format!(
                        "cargo:warning=kernel `{name}`: {why}; kept {} as it was",
                        path.display()
                    ));
                    return Ok(Action::Kept);
                }
                Err(why) => emit(format!(
                    "cargo:warning=kernel `{name}`: {why}; writing variants with the offline heuristic instead"
                )),
            }
        }
        self.generate(
            &problem,
            &mut heuristic,
            "none",
            out_dir,
            &destination,
            emit,
        )
    }

    /// Applies the writers' one rule ([`crate::variants_writer::destination`]) to the
    /// file at `path`: what is there and whether its old text is to be kept, or `None`
    /// (with the warning emitted) when it must be left alone. A file that is current
    /// for the kernel is reported as `Generated { current: true }`, to be kept.
    fn decide(
        &self,
        path: &Path,
        name: &str,
        hash: &str,
        requested: bool,
        emit: &mut dyn FnMut(String),
    ) -> Option<(Existing, bool)> {
        let refused = |why: String, emit: &mut dyn FnMut(String)| {
            for line in why.lines() {
                emit(format!("cargo:warning={line}"));
            }
            None
        };
        let existing = match inspect(path, name, hash) {
            Ok(existing) => existing,
            Err(why) => return refused(why, emit),
        };
        match (&existing, requested) {
            // A current file, hand-edited or not, is the user's: the macro checks it.
            (
                Existing::Generated { current: true } | Existing::Edited { current: true, .. },
                false,
            ) => Some((Existing::Generated { current: true }, false)),
            (Existing::Generated { current: false }, false) => {
                emit(format!(
                    "cargo:warning=kernel `{name}` changed since {} was written; regenerating its variants with the offline heuristic",
                    path.display()
                ));
                Some((existing, false))
            }
            _ => match may_replace(&existing, path, name, requested) {
                Ok(keep_original) => Some((existing, keep_original)),
                Err(why) => refused(why, emit),
            },
        }
    }

    /// Tunes one kernel with `generator` and writes its best `count` variants. An error
    /// (the generator failed, or found nothing correct) leaves the file untouched.
    fn generate(
        &self,
        problem: &Problem,
        generator: &mut dyn Generator,
        model: &str,
        out_dir: &Path,
        destination: &Destination<'_>,
        emit: &mut dyn FnMut(String),
    ) -> Result<Action, String> {
        let Destination {
            path,
            count,
            keep_original,
        } = *destination;
        let config = RunConfig {
            rounds: self.rounds,
            candidates: self.candidates,
            seed: self.seed,
            jobs: 0,
            report_dir: out_dir
                .join("npu-variants")
                .join(&problem.name)
                .join(generator.name()),
            resume: false,
            baselines: false,
            // Every variant written is checked on data against the reference.
            verify: Verify::All,
        };
        std::fs::create_dir_all(&config.report_dir)
            .map_err(|e| format!("cannot create {}: {e}", config.report_dir.display()))?;
        let results = run(std::slice::from_ref(problem), generator, &config, &Silent)
            .map_err(|e| e.to_string())?;
        let result: &KernelResult = results.first().ok_or("the tuner returned no result")?;
        report_rejections(result, emit);
        let chosen = best_distinct(problem, result, count);
        if chosen.is_empty() {
            return Err(format!(
                "the {} generator found no correct schedule in {} candidates",
                generator.name(),
                result.evaluations
            ));
        }
        let provenance = Provenance {
            generator: generator.name().to_string(),
            model: model.to_string(),
            rounds: self.rounds,
            candidates: self.candidates,
            seed: self.seed,
            date: today(self.var("SOURCE_DATE_EPOCH").as_deref()),
        };
        let text = render(problem, &provenance, first_hand(problem, result), &chosen);
        let original = write(path, &text, keep_original)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        if let Some(original) = original {
            emit(format!(
                "cargo:warning=kernel `{}`: regenerated {} as NPU_REGEN_VARIANTS asked; its old text is kept as {}",
                problem.name,
                path.display(),
                original.display()
            ));
        }
        Ok(Action::Written {
            generator: generator.name().to_string(),
            variants: chosen.len(),
        })
    }

    /// Whether `NPU_REGEN_VARIANTS` names this kernel (or is `1`/`all`).
    fn regeneration_requested(&self, kernel: &str) -> bool {
        regeneration_requested(self.var("NPU_REGEN_VARIANTS").as_deref(), kernel)
    }

    #[cfg(feature = "llm")]
    fn llm(&self) -> Option<(Box<dyn Generator>, String)> {
        use crate::llm::{LlmClient, LlmConfig};
        let mut config = LlmConfig::from_vars(|name| self.var(name))?;
        // A build should not wait long for a server that is struggling.
        config.max_retries = 1;
        config.backoff = std::time::Duration::from_millis(200);
        let model = config.model.clone();
        let generator = crate::generator::Llm::new(LlmClient::new(config), None);
        Some((Box::new(generator), model))
    }

    #[cfg(not(feature = "llm"))]
    fn llm(&self) -> Option<(Box<dyn Generator>, String)> {
        None
    }

    fn var(&self, name: &str) -> Option<String> {
        match &self.env {
            Env::Process => std::env::var(name).ok(),
            Env::Given(vars) => vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()),
        }
    }
}

/// One warning per candidate the checker rejected or the simulator found wrong.
fn report_rejections(result: &KernelResult, emit: &mut dyn FnMut(String)) {
    let kernel = &result.kernel;
    for record in result
        .candidates
        .iter()
        .filter(|r| r.generator == result.generator)
    {
        let name = format!(
            "{} round {} candidate {}",
            record.generator, record.round, record.index
        );
        match record.verdict {
            // A repeat of the hand schedule (the heuristic's guarantee) is no loss.
            Verdict::Correct | Verdict::Duplicate if record.cycles.is_some() => {}
            Verdict::Rejected => {
                for diagnostic in &record.diagnostics {
                    emit(format!(
                        "cargo:warning=kernel `{kernel}`: {name} rejected: [{}] {}",
                        diagnostic.code, diagnostic.message
                    ));
                }
            }
            _ => {
                let first = record.feedback.lines().next().unwrap_or_default();
                emit(format!(
                    "cargo:warning=kernel `{kernel}`: {name} dropped ({:?}): {first}",
                    record.verdict
                ));
            }
        }
    }
}
