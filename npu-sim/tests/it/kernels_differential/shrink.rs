//! Shrinking a failing case: greedily take the first smaller case
//! ([`npu_testgen::Case::smaller`]) that still fails in the same class.

use npu_core::Target;
use npu_testgen::Case;

use super::{Outcome, run};

/// At most this many cases are tried in all.
const BUDGET: usize = 400;

pub(super) fn shrink(case: &Case, index: usize, class: &str, target: &Target) -> Case {
    let mut current = Case {
        schedules: vec![case.schedules[index].clone()],
        ..case.clone()
    };
    let mut tried = 0;
    'outer: while tried < BUDGET {
        for candidate in current.smaller(0) {
            tried += 1;
            if tried >= BUDGET {
                break 'outer;
            }
            if let Outcome::Failed(failure) = run(&candidate, 0, target)
                && failure.class == class
            {
                current = candidate;
                continue 'outer;
            }
        }
        break;
    }
    current
}
