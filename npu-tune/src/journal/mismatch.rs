//! Whether a journal can be resumed by a run: its header's settings against the run's,
//! and the first setting that differs.

use std::fmt;

use super::lines::JournalHeader;

/// The first setting in which a journal's header and a run's settings differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderMismatch {
    /// The setting's name: as the header spells it, or `kernel `vmla`'s text hash`.
    pub setting: String,
    /// Its value in the journal.
    pub journal: String,
    /// Its value in the run that wants to resume.
    pub requested: String,
}

impl JournalHeader {
    /// `Ok` when a journal with this header can be resumed by a run with `requested`
    /// settings; otherwise the first setting that differs. The simulator's model
    /// version comes first: a journal of an older npu lacks the hashes too.
    pub fn matches(&self, requested: &JournalHeader) -> Result<(), HeaderMismatch> {
        self.settings()
            .into_iter()
            .zip(requested.settings())
            .find(|((_, journal), (_, run))| journal != run)
            .map_or(Ok(()), |((setting, journal), (_, requested))| {
                Err(HeaderMismatch {
                    setting,
                    journal,
                    requested,
                })
            })
    }

    /// Every setting as (name, value), in the order [`matches`](Self::matches) compares
    /// them; the hashes come one per kernel of `self`, so two headers with the same
    /// kernels list the same names.
    fn settings(&self) -> Vec<(String, String)> {
        // Destructured so that a new setting cannot be forgotten here.
        let JournalHeader {
            kernels,
            target,
            generator,
            seed,
            rounds,
            candidates,
            kernel_hashes,
            target_hashes,
            model_version,
        } = self;
        let version = model_version.map_or_else(
            || "none (a journal of an npu that did not record it)".to_string(),
            |version| version.to_string(),
        );
        let mut settings = vec![
            ("simulator model version".to_string(), version),
            ("kernels".to_string(), kernels.join(", ")),
            ("target".to_string(), target.clone()),
            ("generator".to_string(), generator.clone()),
            ("seed".to_string(), seed.to_string()),
            ("rounds".to_string(), rounds.to_string()),
            ("candidates".to_string(), candidates.to_string()),
        ];
        for (what, hashes) in [("text", kernel_hashes), ("target's content", target_hashes)] {
            for (index, kernel) in kernels.iter().enumerate() {
                let hash = hashes.get(index).map_or("none", String::as_str);
                settings.push((format!("kernel `{kernel}`'s {what} hash"), hash.to_string()));
            }
        }
        settings
    }
}

impl fmt::Display for HeaderMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let HeaderMismatch {
            setting,
            journal,
            requested,
        } = self;
        write!(
            f,
            "the journal was written with {setting} `{journal}`, this run has {setting} \
             `{requested}`"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_mismatch_names_the_first_setting_that_differs() {
        let journal = JournalHeader {
            kernels: vec!["vmla".into(), "softmax".into()],
            target: "ascend910b".into(),
            generator: "heuristic".into(),
            seed: 7,
            rounds: 3,
            candidates: 4,
            kernel_hashes: vec!["fnv1a64:01".into(), "fnv1a64:02".into()],
            target_hashes: vec!["fnv1a64:03".into(), "fnv1a64:03".into()],
            model_version: Some(npu_sim::MODEL_VERSION),
        };
        assert_eq!(journal.matches(&journal.clone()), Ok(()));
        let requested = JournalHeader {
            seed: 8,
            rounds: 5,
            ..journal.clone()
        };
        let mismatch = journal.matches(&requested).unwrap_err();
        assert_eq!(
            mismatch.to_string(),
            "the journal was written with seed `7`, this run has seed `8`"
        );
        let requested = JournalHeader {
            kernels: vec!["vmla".into()],
            ..journal.clone()
        };
        assert_eq!(
            journal.matches(&requested).unwrap_err().to_string(),
            "the journal was written with kernels `vmla, softmax`, this run has kernels `vmla`"
        );
        let edited = JournalHeader {
            kernel_hashes: vec!["fnv1a64:01".into(), "fnv1a64:09".into()],
            ..journal.clone()
        };
        assert_eq!(
            journal.matches(&edited).unwrap_err().to_string(),
            "the journal was written with kernel `softmax`'s text hash `fnv1a64:02`, this run has kernel `softmax`'s text hash `fnv1a64:09`"
        );
        let retargeted = JournalHeader {
            target_hashes: vec!["fnv1a64:04".into(), "fnv1a64:03".into()],
            ..journal.clone()
        };
        assert_eq!(
            journal.matches(&retargeted).unwrap_err().setting,
            "kernel `vmla`'s target's content hash"
        );
        // A journal of an older npu: no version, no hashes; the version is named first.
        let old = JournalHeader {
            kernel_hashes: Vec::new(),
            target_hashes: Vec::new(),
            model_version: None,
            ..journal.clone()
        };
        assert_eq!(
            old.matches(&journal).unwrap_err().to_string(),
            format!(
                "the journal was written with simulator model version `none (a journal of an npu that did not record it)`, this run has simulator model version `{}`",
                npu_sim::MODEL_VERSION
            )
        );
        let older = JournalHeader {
            model_version: Some(0),
            ..journal.clone()
        };
        assert_eq!(
            older.matches(&journal).unwrap_err().setting,
            "simulator model version"
        );
    }
}
