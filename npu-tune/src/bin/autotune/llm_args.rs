//! The options every subcommand that asks a model shares, and the client config they
//! make.

use std::time::Duration;

use npu_tune::llm::LlmConfig;

/// How to reach the model.
#[derive(Clone, Debug, clap::Args)]
pub(crate) struct LlmArgs {
    /// Chat-completions base URL, e.g. http://127.0.0.1:8766/v1 (env NPU_LLM_URL).
    #[arg(long)]
    pub(crate) llm_url: Option<String>,
    /// Model name (env NPU_LLM_MODEL).
    #[arg(long)]
    pub(crate) llm_model: Option<String>,
    #[arg(long, default_value_t = 0.8)]
    pub(crate) temperature: f32,
    /// Seconds one LLM request may take.
    #[arg(long, default_value_t = 300)]
    pub(crate) llm_timeout: u64,
    /// Requests in flight at once, for a server that answers one choice per request
    /// and serves several (llama.cpp's `--parallel`, vLLM); the candidates of a round
    /// are then asked for together.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    pub(crate) llm_jobs: u16,
    /// Sampling seed of the first request, one more for each request after it (sent
    /// as `seed`; llama.cpp's server and vLLM honour it). Default: none sent.
    #[arg(long)]
    pub(crate) llm_seed: Option<u64>,
}

impl LlmArgs {
    /// The client config: the environment's (`NPU_LLM_URL`, ...) overridden by the
    /// options. Without an endpoint, the error says what `needs` one and how to give it.
    pub(crate) fn config(&self, needs: &str) -> Result<LlmConfig, String> {
        let mut config =
            LlmConfig::from_env().unwrap_or_else(|| LlmConfig::new(String::new(), "default"));
        if let Some(url) = &self.llm_url {
            config.base_url = url.clone();
        }
        if let Some(model) = &self.llm_model {
            config.model = model.clone();
        }
        if config.base_url.is_empty() {
            return Err(format!(
                "{needs} needs a model: --llm-url URL or NPU_LLM_URL (e.g. http://127.0.0.1:8766/v1)"
            ));
        }
        config.temperature = self.temperature;
        config.timeout = Duration::from_secs(self.llm_timeout);
        config.jobs = usize::from(self.llm_jobs);
        config.seed = self.llm_seed;
        Ok(config)
    }

    /// The model name recordings carry.
    pub(crate) fn model(&self) -> String {
        self.llm_model.clone().unwrap_or_default()
    }
}
