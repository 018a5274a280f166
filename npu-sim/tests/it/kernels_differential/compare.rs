//! One accepted kernel through the validator, the IR interpreter and the simulator.

use npu_core::host::HostTensor;
use npu_core::ir::{CheckedKernel, Expr};
use npu_sim::{SimError, SimOptions, compare_outputs_with, folds, reference, simulate};

/// `Err((stage, detail))` where the stages disagree.
pub(super) fn agree(kernel: &CheckedKernel) -> Result<(), (&'static str, String)> {
    let program = npu_core::lower::lower(kernel, 0);
    if let Err(violations) = npu_core::validate(&program, &kernel.target) {
        return Err(("validator", violations[0].to_string()));
    }
    let options = SimOptions {
        functional: true,
        max_instructions: 2_000_000,
        ..SimOptions::default()
    };
    for (data, inputs) in [
        ("random", kernel.random_inputs(11)),
        ("edge", kernel.edge_inputs(13)),
    ] {
        let expected = reference(kernel, &inputs)
            .map_err(|error| ("reference-error", format!("{data} data: {error}")))?;
        let simulation = match simulate(kernel, &program, &inputs, &options) {
            Ok(simulation) => simulation,
            Err(SimError::InstructionBudget { .. }) => return Ok(()),
            Err(error) => return Err(("simulator-error", format!("{data} data: {error}"))),
        };
        for (output, (want, got)) in expected.iter().zip(&simulation.outputs).enumerate() {
            if let Some(detail) = differ(want, got, &inputs) {
                if folds_tile_by_tile(kernel)
                    && compare_outputs_with(&expected, &simulation.outputs, &folds(kernel)).is_ok()
                {
                    continue;
                }
                return Err((
                    "mismatch",
                    format!("{data} data, output {output}: {detail}"),
                ));
            }
        }
    }
    Ok(())
}

/// The first element where `got` is not bit-identical to `want` (NaN equals NaN).
fn differ(want: &HostTensor, got: &HostTensor, inputs: &[HostTensor]) -> Option<String> {
    let (w, g) = (want.values(), got.values());
    if w.len() != g.len() {
        return Some(format!("{} elements, expected {}", g.len(), w.len()));
    }
    let wrong: Vec<usize> = (0..w.len())
        .filter(|&i| !(w[i].to_bits() == g[i].to_bits() || (w[i].is_nan() && g[i].is_nan())))
        .collect();
    let first = *wrong.first()?;
    let shown: Vec<String> = inputs
        .iter()
        .map(|t| {
            let v = t.values();
            format!("{:?}", &v[..v.len().min(8)])
        })
        .collect();
    Some(format!(
        "{} of {} elements differ; element {first}: interpreter {}, simulator {} (inputs start {})",
        wrong.len(),
        w.len(),
        w[first],
        g[first],
        shown.join(", ")
    ))
}

/// The one named tolerance, `tile-by-tile fold`: a float reduction over several axes
/// (`sum[k, q]`) whose later axis the schedule splits folds tile by tile (every `q`
/// tile of a `k` tile before the next `k` tile), not in the reference's index order,
/// so its sum rounds differently; the outputs are then held to the folds' tolerance
/// ([`npu_sim::compare_outputs_with`]) instead of bit equality. A split of the first
/// reduction axis only, and every integer fold, keep index order and bit equality.
pub(super) fn folds_tile_by_tile(kernel: &CheckedKernel) -> bool {
    let tiles = &kernel.schedules[0].tiles;
    let mut found = false;
    for assign in &kernel.body {
        assign.value.walk(&mut |node| {
            if let Expr::Reduce {
                axes, accumulator, ..
            } = node
                && accumulator.is_float()
                && axes[1..]
                    .iter()
                    .any(|a| tiles.get(*a).is_some_and(|t| *t < kernel.axes[*a].extent))
            {
                found = true;
            }
        });
    }
    found
}
