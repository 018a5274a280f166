//! npu-tune's integration tests, one binary: each module was once a test target of its
//! own. Heavy runs are sized by environment variables where they have them.

mod ablation;
mod calibrate;
mod check_paths;
mod draft;
mod draft_budget;
mod draft_constants;
mod draft_eval;
mod draft_examples;
mod draft_grammar;
mod draft_names;
mod emit;
mod gbnf_recogniser;
mod host_launch;
mod journal;
mod llm_client;
mod llm_constrained;
mod llm_loop;
mod llm_real;
mod replay;
mod shard;
mod shard_deploy;
mod shipped_folders;
mod suite;
mod support;
mod tuner;
mod variants_build;

/// The repository's root, where docs/, knowledge/, idioms/ and examples/ are.
fn repo_root() -> &'static std::path::Path {
    std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}
