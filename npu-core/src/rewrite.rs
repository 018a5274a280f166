//! Rewrites of an algorithm body into the forms the checker asks for, for a body
//! written the way mathematics is (a tool's draft, a model's reply). Each moves code
//! only, says `None` when it changes nothing, and leaves the verdict to the checker:
//! a caller checks what it returns.
//!
//! - [`promote`]: operands of two dtypes cast to the wider (E010's help).
//! - [`window`]: terms stepping through a tensor folded into a windowed reduction
//!   (E011's "one window, read once as `w[k]`", E012's pad).
//! - [`hoist`]: a reduction that cannot stay where it is moved into a `let` (E003,
//!   E011, E030).
//!
//! [`all`] applies them in that order: casts first, so that a window's terms compare
//! with their casts; windows before hoisting, so that a folded window that must move
//! is hoisted whole.

pub mod hoist;
pub mod promote;
pub mod window;

use crate::ast::{KernelDef, Stmt};

/// A rewrite: the body it makes of a kernel's, or `None` when it changes nothing.
pub type Rewrite = fn(&KernelDef) -> Option<Vec<Stmt>>;

/// `def`'s body after every rewrite, in order; `None` when none changes it.
pub fn all(def: &KernelDef) -> Option<Vec<Stmt>> {
    let rewrites: [Rewrite; 3] = [promote::casts, window::fold, hoist::reductions];
    let mut def = def.clone();
    let mut changed = false;
    for rewrite in rewrites {
        if let Some(body) = rewrite(&def) {
            def.body = body;
            changed = true;
        }
    }
    changed.then_some(def.body)
}
