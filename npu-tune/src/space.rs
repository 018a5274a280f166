//! The schedule space the search generators explore, and the structured form of a
//! schedule ([`Spec`]) they edit. A spec always becomes DSL text before it is
//! evaluated, so every generator goes through the same parser and checker as an LLM.
//!
//! `spec` holds a schedule as knobs and its DSL text form, `choices` the values each
//! knob may take for a kernel, and `axes` the facts about a kernel's axes both depend
//! on (which axis a core grid spreads beside the first, how many elements make an
//! aligned copy).

mod axes;
mod choices;
mod spec;
#[cfg(test)]
mod tests;

pub(crate) use axes::gcd;
pub use axes::{align_elements, second_axis, unaligned_rows};
pub use choices::Space;
pub use spec::Spec;
