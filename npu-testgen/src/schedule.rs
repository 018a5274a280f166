//! Random schedules, legal or not, for a rendered kernel: core counts and grids,
//! splits (divisors, non-divisors, misaligned), loop orders, stage depths 1 to 3,
//! tail policies, cube blocks.

use fastrand::Rng;

use crate::expr::pick;
use crate::kernel::{Preset, Rendered};

/// `count` schedules, each a list of items; the first stages everything at depth 1,
/// splits nothing and pads tails, which most kernels that fit pass.
pub(crate) fn schedules(
    rng: &mut Rng,
    kernel: &Rendered,
    preset: &Preset,
    count: usize,
) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for index in 0..count {
        out.push(if kernel.matmul {
            matmul(rng, kernel, preset, index == 0)
        } else if index == 0 {
            vec![
                format!("stage {} in ub depth 1;", kernel.staged.join(", ")),
                "tail pad;".to_string(),
            ]
        } else {
            vector(rng, kernel, preset)
        });
    }
    out
}

fn tile(rng: &mut Rng, extent: u64) -> u64 {
    let mut fitting: Vec<u64> = [1, 2, 4, 8, 16, 32, 64, 128, 256]
        .into_iter()
        .filter(|t| *t <= extent)
        .collect();
    fitting.extend([
        extent / 2,
        extent.saturating_sub(1),
        1 + rng.u64(0..extent.max(1)),
    ]);
    fitting.retain(|t| *t >= 1);
    if fitting.is_empty() || rng.u32(0..100) < 3 {
        return extent + 1;
    }
    pick(rng, &fitting)
}

fn cores(rng: &mut Rng, preset: &Preset) -> u64 {
    if rng.u32(0..100) < 5 {
        preset.cores + 1
    } else {
        pick(rng, &[2, 3, 4, 8])
    }
}

fn vector(rng: &mut Rng, kernel: &Rendered, preset: &Preset) -> Vec<String> {
    let mut items = Vec::new();
    let outputs = &kernel.axes[..kernel.outputs];
    if !outputs.is_empty() && rng.u32(0..100) < 40 {
        if outputs.len() >= 2 && rng.u32(0..100) < 30 {
            items.push(format!(
                "parallel {}, {} over {} x {} cores;",
                outputs[0].0,
                outputs[1].0,
                pick(rng, &[1, 2, 3]),
                pick(rng, &[2, 4])
            ));
        } else {
            let axis = &outputs[rng.usize(0..outputs.len())].0;
            items.push(format!(
                "parallel {axis} over {} cores;",
                cores(rng, preset)
            ));
        }
    }
    for (axis, extent) in &kernel.axes {
        if rng.u32(0..100) < 50 {
            items.push(format!("split {axis} by {};", tile(rng, *extent)));
        }
    }
    if outputs.len() >= 2 && rng.u32(0..100) < 15 {
        let names: Vec<&str> = outputs.iter().rev().map(|(n, _)| n.as_str()).collect();
        items.push(format!("order {};", names.join(", ")));
    }
    if rng.u32(0..100) < 30 {
        for tensor in &kernel.staged {
            items.push(format!("stage {tensor} in ub depth {};", 1 + rng.u32(0..3)));
        }
    } else {
        items.push(format!(
            "stage {} in ub depth {};",
            kernel.staged.join(", "),
            1 + rng.u32(0..3)
        ));
    }
    tail(rng, &mut items);
    items
}

fn tail(rng: &mut Rng, items: &mut Vec<String>) {
    match rng.u32(0..4) {
        0 | 1 => items.push("tail pad;".into()),
        2 => items.push("tail exact;".into()),
        _ => {}
    }
}

fn matmul(rng: &mut Rng, kernel: &Rendered, preset: &Preset, plain: bool) -> Vec<String> {
    let mut items = Vec::new();
    let batched = kernel.axes[0].0 == "t";
    if !plain && rng.u32(0..100) < 30 {
        let axes: &[&str] = if batched {
            &["m", "n", "t"]
        } else {
            &["m", "n"]
        };
        items.push(format!(
            "parallel {} over {} cores;",
            pick(rng, axes),
            cores(rng, preset)
        ));
    }
    if batched && !plain && rng.u32(0..100) < 40 {
        items.push(format!("split t by {};", 1 + rng.u64(0..kernel.axes[0].1)));
    }
    let mut blocks = Vec::new();
    for (axis, extent) in kernel.axes.iter().filter(|(a, _)| a != "t") {
        let fitting: Vec<u64> = [16u64, 32, 64]
            .into_iter()
            .filter(|b| b <= extent)
            .collect();
        let block = if plain || fitting.is_empty() {
            16
        } else {
            pick(rng, &fitting)
        };
        let block = if !plain && rng.u32(0..100) < 5 {
            24
        } else {
            block
        };
        blocks.push(format!("{axis} by {block}"));
        if !plain && (rng.bool() || extent % block != 0) {
            let whole = (extent / block * block).max(block);
            items.push(format!(
                "split {axis} by {};",
                (block * (1 + rng.u64(0..3))).min(whole)
            ));
        }
    }
    items.push(format!("cube {};", blocks.join(", ")));
    let mut depth = || if plain { 1 } else { 1 + rng.u32(0..2) };
    items.push(format!("stage a, b in l1 depth {};", depth()));
    items.push(format!("stage a in l0a depth {};", depth()));
    items.push(format!("stage b in l0b depth {};", depth()));
    items.push(format!("stage c in l0c depth {};", depth()));
    if !plain {
        tail(rng, &mut items);
    }
    items
}
