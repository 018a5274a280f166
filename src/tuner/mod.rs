//! The tuning loop: generators, the LLM client, prompts and feedback.
//!
//! [`run::run`] drives rounds of a [`generator::Generator`] over [`evaluate::Problem`]s;
//! every evaluation is a [`record::CandidateRecord`], appended to the [`journal`] as it
//! finishes and gathered into the [`report`]s.

pub mod atomic;
pub mod evaluate;
pub mod generator;
pub mod grammar;
pub mod journal;
pub mod knowledge;
#[cfg(feature = "llm")]
pub mod llm;
#[cfg(feature = "llm")]
pub mod prompt;
pub mod record;
pub mod replay;
pub mod reply;
pub mod report;
pub mod run;
pub mod space;
pub mod suite;
pub mod variants;
