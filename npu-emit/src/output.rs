//! What every backend produces and shares: the backend's name, the emitted files, the
//! unsupported-construct error and the kernel hash the files record. It is a leaf, so
//! the backends can name these without depending on the dispatcher in `lib.rs`.

use std::fmt;

use npu_core::{CheckedKernel, Family, Target};

/// The language an emitted kernel is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// Ascend C (the `kernel_operator.h` API) for the Ascend presets.
    AscendC,
    /// AIE C++ (the AIE API) for the aie2_tile preset: the tile kernel.
    Aie,
}

impl Backend {
    /// The backend's name on the command line (`--emit ascend-c`).
    pub fn name(self) -> &'static str {
        match self {
            Backend::AscendC => "ascend-c",
            Backend::Aie => "aie",
        }
    }

    /// The backend that writes kernels for `target`, by its family; `None` for a
    /// target of no vendor (`family = "generic"`, such as `npueval_demo`).
    pub fn of(target: &Target) -> Option<Backend> {
        match target.family {
            Family::Ascend => Some(Backend::AscendC),
            Family::Aie => Some(Backend::Aie),
            Family::Generic => None,
        }
    }

    /// Why this backend does not write kernels for `target`, or `None` when it does.
    pub(crate) fn refusal(self, target: &Target) -> Option<String> {
        match Backend::of(target) {
            Some(backend) if backend == self => None,
            Some(Backend::AscendC) => {
                Some("an Ascend AI core runs Ascend C: emit it with the ascend-c backend".into())
            }
            Some(Backend::Aie) => Some(
                "an AIE tile runs AIE C++ (the AIE API), not Ascend C: emit it with the aie backend"
                    .into(),
            ),
            None => Some(format!(
                "`{}` is a target of no vendor (family \"generic\"); no backend writes for it",
                target.name
            )),
        }
    }
}

/// The files of one emitted kernel, in a fixed order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Emitted {
    /// Every file, the kernel source first.
    pub files: Vec<File>,
}

/// One emitted file: its path relative to the output directory, and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct File {
    /// Relative to the output directory, `/`-separated.
    pub path: String,
    /// The whole file.
    pub text: String,
}

impl Emitted {
    /// The file at `path`, if emitted.
    pub fn file(&self, path: &str) -> Option<&File> {
        self.files.iter().find(|f| f.path == path)
    }
}

/// A program the backend cannot write: the construct, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported {
    /// The backend that refused.
    pub backend: Backend,
    /// The construct, e.g. `vreduce.sum` or `target npueval_demo`.
    pub construct: String,
    /// Why the backend cannot write it yet.
    pub reason: String,
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} cannot express {}: {}",
            self.backend.name(),
            self.construct,
            self.reason
        )
    }
}

impl std::error::Error for Unsupported {}

/// The stable hash of the kernel's canonical text, as emitted files record it.
pub(crate) fn kernel_hash(kernel: &CheckedKernel) -> String {
    npu_core::variants::fnv1a64(kernel.source.bytes())
}
