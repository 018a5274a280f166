//! The llm generator against a real model, when one is configured: start one with
//! `../shared/tools/local-llm start` and export what it prints (NPU_LLM_URL,
//! NPU_LLM_MODEL). Without NPU_LLM_URL the test says why it did nothing.

use std::time::Duration;

use npu_tune::generator::Llm;
use npu_tune::kernels::Bundled;
use npu_tune::llm::{LlmClient, LlmConfig};
use npu_tune::run::{RunConfig, Silent, run};

#[test]
fn llm_generator_against_a_real_model() {
    let Some(mut config) = LlmConfig::from_env() else {
        println!(
            "skipped: NPU_LLM_URL is not set; `../shared/tools/local-llm start` serves a model"
        );
        return;
    };
    // A small model on two cores takes tens of seconds per reply.
    config.timeout = Duration::from_secs(600);
    let mut generator = Llm::new(LlmClient::new(config), None);
    let problem = Bundled::find("vmla").unwrap().problem(0, None).unwrap();
    let dir = std::env::temp_dir().join(format!("npu-llm-real-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let run_config = RunConfig {
        rounds: 1,
        candidates: 2,
        seed: 0,
        jobs: 1,
        report_dir: dir.clone(),
        resume: false,
        baselines: false,
        verify: npu_tune::run::Verify::All,
    };
    let results = run(
        std::slice::from_ref(&problem),
        &mut generator,
        &run_config,
        &Silent,
    )
    .expect("the model answers");
    let llm: Vec<_> = results[0]
        .candidates
        .iter()
        .filter(|c| c.generator == "llm")
        .collect();
    assert_eq!(llm.len(), 2);
    for candidate in &llm {
        println!(
            "{:?}: {}\n{}\n",
            candidate.verdict, candidate.source, candidate.feedback
        );
    }
    println!(
        "Comp@1 {:.2}, Pass@1 {:.2}",
        results[0].comp_at_1, results[0].pass_at_1
    );
    let _ = std::fs::remove_dir_all(&dir);
}
