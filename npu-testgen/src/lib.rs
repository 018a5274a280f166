//! Random kernels and schedules as DSL text, for the workspace's differential tests:
//! one generator, seeded through `fastrand`, free of the crates it tests (the caller
//! passes what a target computes as a [`Preset`]).
//!
//! A [`Case`] is a random kernel over the whole language (every dtype the preset's
//! vector unit computes, integer and float literals, nested `select`s, plain and
//! saturating casts, min/max/abs and the math functions, bit operations, reductions,
//! arg reductions and scans over 1-, 2- and 3-d tensors with and without an
//! accumulator dtype, `let` temporaries, `pad(x, v)` views with shifted subscripts,
//! gathers by every index dtype, scalar parameters, mixed-dtype and batched
//! matmuls), its expressions random trees of bounded depth, and several random
//! schedules, legal or not. [`Case::smaller`] lists the cases a shrinker tries.

// Every public item says what it is; CI denies warnings.
#![warn(missing_docs)]

mod expr;
mod kernel;
mod random;
mod render;
mod schedule;

pub use expr::{Expr, Scope, is_float, literal};
pub use kernel::{Form, Kernel, Preset, Rendered};
pub use random::Random;

use fastrand::Rng;

/// A random kernel with its schedules.
#[derive(Clone, Debug)]
pub struct Case {
    /// The kernel, as parts a shrinker can make smaller.
    pub kernel: Kernel,
    /// The preset it is written for.
    pub target: String,
    /// Each schedule's items.
    pub schedules: Vec<Vec<String>>,
}

/// Constructs besides the statement form that [`Case::constructs`] reports.
pub const FEATURES: [&str; 8] = [
    "select",
    "cast",
    "bits",
    "math",
    "literal",
    "scalar",
    "accumulator",
    "0-d",
];

impl Case {
    /// A random case for `preset` with `schedules` schedules, its element dtype
    /// `dtype` (one of the preset's vector dtypes; a matmul picks cube dtypes).
    pub fn random(rng: &mut Rng, preset: &Preset, dtype: &str, schedules: usize) -> Case {
        let kernel = Kernel::random(rng, preset, dtype, 3);
        let rendered = kernel.render();
        Case {
            schedules: schedule::schedules(rng, &rendered, preset, schedules),
            kernel,
            target: preset.name.clone(),
        }
    }

    /// The kernel, its target and schedule `index` (named `s`), as DSL text.
    pub fn text(&self, index: usize) -> String {
        format!(
            "{}\ntarget {};\nschedule s {{ {} }}",
            self.kernel.render().text,
            self.target,
            self.schedules[index].join(" ")
        )
    }

    /// The constructs the kernel exercises: its form, then each of [`FEATURES`] it has.
    pub fn constructs(&self) -> Vec<&'static str> {
        let mut out = vec![self.kernel.form.construct()];
        out.extend(FEATURES.iter().filter(|f| self.kernel.has(f)));
        out
    }

    /// Smaller cases with schedule `index` only, to try in this one's place: a
    /// schedule item dropped (never a `stage` or `cube`), a scalar parameter dropped,
    /// an accumulator dropped, an expression replaced by a smaller one, an extent
    /// made smaller.
    pub fn smaller(&self, index: usize) -> Vec<Case> {
        let one = Case {
            schedules: vec![self.schedules[index].clone()],
            ..self.clone()
        };
        let mut out = Vec::new();
        let items = &one.schedules[0];
        for (position, item) in items.iter().enumerate() {
            if !item.starts_with("stage") && !item.starts_with("cube") {
                let mut next = one.clone();
                next.schedules[0].remove(position);
                out.push(next);
            }
        }
        let mut push = |kernel: Kernel| {
            out.push(Case {
                kernel,
                ..one.clone()
            });
        };
        match &one.kernel.form {
            Form::Reduce {
                op,
                reduced,
                accumulator: Some(_),
            } => {
                let mut k = one.kernel.clone();
                k.form = Form::Reduce {
                    op,
                    reduced: *reduced,
                    accumulator: None,
                };
                push(k);
            }
            Form::Scan {
                op,
                axis,
                accumulator: Some(_),
            } => {
                let mut k = one.kernel.clone();
                k.form = Form::Scan {
                    op,
                    axis: *axis,
                    accumulator: None,
                };
                push(k);
            }
            _ => {}
        }
        for slot in 0..one.kernel.exprs.len() {
            for e in one.kernel.exprs[slot].smaller() {
                let mut k = one.kernel.clone();
                k.exprs[slot] = e;
                push(k);
            }
        }
        for dim in 0..one.kernel.dims.len() {
            let extent = one.kernel.dims[dim];
            for smaller in [1, 2, 16, extent / 2] {
                if smaller >= 1 && smaller < extent {
                    let mut k = one.kernel.clone();
                    k.dims[dim] = smaller;
                    push(k);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preset() -> Preset {
        Preset {
            name: "ascend910b".into(),
            vector_dtypes: vec!["f16".into(), "i32".into(), "u16".into()],
            cube_dtypes: vec!["f16".into(), "i8".into()],
            cores: 40,
        }
    }

    fn texts(seed: u64) -> Vec<String> {
        let mut rng = Rng::with_seed(seed);
        (0..50)
            .map(|n| {
                let dtype = preset().vector_dtypes[n % 3].clone();
                Case::random(&mut rng, &preset(), &dtype, 2).text(1)
            })
            .collect()
    }

    #[test]
    fn a_seed_gives_the_same_cases_and_another_seed_others() {
        assert_eq!(texts(7), texts(7));
        assert_ne!(texts(7), texts(8));
    }

    #[test]
    fn every_form_and_feature_is_generated() {
        let mut rng = Rng::with_seed(1);
        let mut seen = std::collections::BTreeSet::new();
        for n in 0..2000 {
            let dtype = preset().vector_dtypes[n % 3].clone();
            seen.extend(Case::random(&mut rng, &preset(), &dtype, 1).constructs());
        }
        for construct in [
            "elementwise",
            "reduce",
            "argmax",
            "scan",
            "let",
            "pad",
            "gather",
            "matmul",
        ]
        .iter()
        .chain(&FEATURES)
        {
            assert!(seen.contains(construct), "{construct} never generated");
        }
    }

    #[test]
    fn smaller_cases_are_smaller_and_keep_one_schedule() {
        let mut rng = Rng::with_seed(3);
        let case = Case::random(&mut rng, &preset(), "f16", 3);
        let length = case.text(2).len();
        let smaller = case.smaller(2);
        assert!(!smaller.is_empty());
        for candidate in smaller {
            assert_eq!(candidate.schedules.len(), 1);
            assert!(
                candidate.text(0).len() <= length + 2,
                "{}",
                candidate.text(0)
            );
        }
    }
}
