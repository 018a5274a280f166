//! `npu_core::check_schedule` checks a candidate block against the already checked
//! algorithm instead of checking the kernel's whole text again; it must answer exactly
//! as the whole check does. For every bundled kernel, points spread over the tuner's
//! space, their one-knob edits and texts a model might send instead of one block are
//! checked both ways: the same checked kernel, or the same diagnostics at the same
//! places with the same text around them. `NPU_CHECK_POINTS` sets the points per kernel
//! (default 12).

use npu_core::CheckedKernel;
use npu_tune::space::Space;

/// The whole check of `text` appended to `kernel`'s header: the path `check_schedule`
/// took for every candidate before it checked a block on its own.
fn whole(kernel: &CheckedKernel, text: &str) -> Result<CheckedKernel, String> {
    let source = format!("{}\n{}", kernel.header.trim_end(), text);
    npu_core::check_source(&source, &kernel.target).map_err(|d| d.render(&source))
}

fn block(kernel: &CheckedKernel, text: &str) -> Result<CheckedKernel, String> {
    npu_core::check_schedule(kernel, text).map_err(|rejected| rejected.render())
}

/// Texts that are not one plain block: the whole check answers for them.
fn odd_texts(one: &str) -> Vec<String> {
    vec![
        String::new(),
        "schedule".to_string(),
        format!("{one}\n{one}"),
        one.replacen('{', "{ frobnicate 3;", 1),
        one.replacen(';', "", 1),
        format!("// a comment\n{one}"),
        format!("{one}\ntarget npueval_demo;"),
    ]
}

#[test]
fn a_block_checked_alone_answers_as_the_whole_kernel_checked_again() {
    let per_kernel: u64 = std::env::var("NPU_CHECK_POINTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    let (mut accepted, mut refused) = (0, 0);
    for bundled in npu_tune::kernels::all() {
        let kernel = (bundled.kernel)();
        let space = Space::of(kernel);
        let step = (space.size() / per_kernel).max(1);
        let mut texts = Vec::new();
        for index in (0..space.size())
            .step_by(step as usize)
            .take(per_kernel as usize)
        {
            let spec = space.point(kernel, index);
            texts.push(spec.to_dsl(kernel, "candidate"));
            for edit in space.edits(kernel, &spec).into_iter().take(3) {
                texts.push(edit.to_dsl(kernel, "edited"));
            }
        }
        let first = texts.first().cloned().unwrap_or_default();
        texts.extend(odd_texts(&first));
        for text in &texts {
            let (fast, slow) = (block(kernel, text), whole(kernel, text));
            assert_eq!(fast, slow, "{}: {text}", bundled.name);
            match fast {
                Ok(_) => accepted += 1,
                Err(_) => refused += 1,
            }
        }
    }
    assert!(
        accepted > 100 && refused > 100,
        "{accepted} accepted, {refused} refused"
    );
}
