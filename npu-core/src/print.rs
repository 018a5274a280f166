//! The canonical text of a kernel: the syntax tree printed back as DSL source, without
//! spans.
//!
//! One text serves three readers. The macro embeds it in the generated code as the
//! kernel's source ([`CheckedKernel::source`](crate::CheckedKernel::source)), the tuner
//! pastes it into LLM prompts, and snapshot tests show it. So that all three see the
//! same thing however the kernel was written, the text is canonical: one statement or
//! schedule item per line, four-space indents, the fewest parentheses the parser's
//! precedence allows, and defaults written out (`depth 1`).
//!
//! Printing inverts [`parse`](crate::parse): parsing printed text gives the same tree,
//! so printing it again gives the same text.

use std::fmt::Write;

use proc_macro2::Literal;

use crate::ast::{
    Affine, BinOp, Expr, Index, ItemKind, KernelDef, Link, Param, Reduction, Schedule, Stmt,
    TargetRef,
};

/// The whole kernel: doc, signature, body, targets, the `variants` line, then each
/// schedule block after a blank line.
pub fn kernel(def: &KernelDef) -> String {
    let mut out = kernel_without_schedules(def);
    for variants in &def.variants {
        out.push_str(&format!(
            "variants {} from {};\n",
            variants.count.value,
            Literal::string(&variants.path)
        ));
    }
    for block in &def.schedules {
        out.push('\n');
        out.push_str(&schedule(block));
    }
    out
}

/// The kernel up to and including its `target` lines, without schedule blocks or the
/// `variants` line: what a prompt shows before asking for new schedules, and what a
/// variants file's kernel hash covers.
pub fn kernel_without_schedules(def: &KernelDef) -> String {
    let mut out = String::new();
    for doc in &def.doc {
        // A `#[doc = "..."]` attribute or a `/** */` comment can hold several lines. The
        // parser trims each doc string, so each printed line is trimmed the same way.
        for line in doc.split('\n').map(str::trim) {
            if line.is_empty() {
                out.push_str("///\n");
            } else {
                out.push_str(&format!("/// {line}\n"));
            }
        }
    }
    let outputs = match def.outputs.as_slice() {
        [single] => param(single),
        several => format!("({})", comma_separated(several, param)),
    };
    out.push_str(&format!(
        "kernel {}({}) -> {outputs} {{\n",
        def.name,
        comma_separated(&def.inputs, param)
    ));
    for statement in &def.body {
        out.push_str(&format!("    {}\n", stmt(statement)));
    }
    out.push_str("}\n");
    for target in &def.targets {
        let name = match target {
            TargetRef::Preset(name) => name.to_string(),
            TargetRef::File { path, .. } => Literal::string(path).to_string(),
        };
        out.push_str(&format!("target {name};\n"));
    }
    out
}

/// One `schedule name { ... }` block, ending with a newline.
pub fn schedule(block: &Schedule) -> String {
    let mut out = format!("schedule {} {{\n", block.name);
    for item in &block.items {
        out.push_str(&format!("    {};\n", item_kind(&item.kind)));
    }
    out.push_str("}\n");
    out
}

/// An algorithm expression with only the parentheses the parser needs to read it back
/// as the same tree.
pub fn expr(expr: &Expr) -> String {
    match expr {
        Expr::Load {
            tensor,
            indices,
            pad: None,
        } if indices.is_empty() => tensor.to_string(),
        Expr::Load {
            tensor,
            indices,
            pad: None,
        } => format!("{tensor}[{}]", comma_separated(indices, index)),
        Expr::Load {
            tensor,
            indices,
            pad: Some(value),
        } => format!(
            "pad({tensor}, {})[{}]",
            self::expr(value),
            comma_separated(indices, index)
        ),
        Expr::Literal {
            value, is_float, ..
        } => literal(*value, *is_float),
        Expr::Neg { arg, .. } => format!("-{}", operand(arg, UNARY)),
        Expr::Binary { op, lhs, rhs, .. } => {
            let power = op.binding_power();
            // Binary operators are left-associative, so a right operand that binds only
            // as tightly as the operator keeps its parentheses: `a - (b - c)`.
            format!(
                "{} {} {}",
                operand(lhs, left_power(*op)),
                op.symbol(),
                operand(rhs, power + 1)
            )
        }
        Expr::Chain { first, rest } => chain(first, rest),
        Expr::Call {
            func,
            reduction,
            args,
        } => {
            let axis = reduction.as_ref().map(Reduction::text).unwrap_or_default();
            format!("{func}{axis}({})", comma_separated(args, self::expr))
        }
        Expr::Cast {
            arg,
            dtype,
            saturating,
        } => {
            let sat = if *saturating { "sat " } else { "" };
            format!("{} as {sat}{dtype}", operand(arg, CAST))
        }
        Expr::Not { arg, .. } => format!("!{}", operand(arg, UNARY)),
    }
}

/// `a + b - c`: the operands in a loop, each after its operator.
fn chain(first: &Expr, rest: &[Link]) -> String {
    let mut text = match rest.first() {
        Some(link) => operand(first, left_power(link.op)),
        None => expr(first),
    };
    for link in rest {
        let power = link.op.binding_power();
        let operand = operand(&link.operand, power + 1);
        let _ = write!(text, " {} {operand}", link.op.symbol());
    }
    text
}

/// How tightly the left operand of `op` must bind to print without parentheses. A
/// run of chaining operators reads back as one chain, so a left operand that is itself
/// such a run keeps its parentheses: `(a + b) + c` is a `Binary` of a `Binary`, and
/// `a + b + c` a `Chain`.
fn left_power(op: BinOp) -> u8 {
    let power = op.binding_power();
    if op.chains() { power + 1 } else { power }
}

// How tightly each form binds, loosest first. The binary powers are the parser's own
// (`BinOp::binding_power`, 1 to 7); a unary minus or `!` takes a unary operand, and
// `as` takes a primary or another cast.
const UNARY: u8 = 8;
const CAST: u8 = 9;
const PRIMARY: u8 = 10;

fn precedence(expr: &Expr) -> u8 {
    match expr {
        Expr::Binary { op, .. } => op.binding_power(),
        Expr::Chain { rest, .. } => rest.first().map_or(PRIMARY, |link| link.op.binding_power()),
        Expr::Neg { .. } | Expr::Not { .. } => UNARY,
        // The parser never makes a negative literal, but a tree built by hand can hold
        // one, and it prints with a leading `-`.
        Expr::Literal { value, .. } if value.is_sign_negative() => UNARY,
        Expr::Cast { .. } => CAST,
        Expr::Load { .. } | Expr::Literal { .. } | Expr::Call { .. } => PRIMARY,
    }
}

/// `expr`, in parentheses when it binds more loosely than its place needs.
fn operand(child: &Expr, needed: u8) -> String {
    let text = expr(child);
    if precedence(child) < needed {
        format!("({text})")
    } else {
        text
    }
}

fn literal(value: f64, is_float: bool) -> String {
    let sign = if value.is_sign_negative() { "-" } else { "" };
    if value.is_nan() {
        return "nan".to_string();
    }
    if !is_float {
        // An integer literal is a u64 held in an f64, written out in full. `Display`
        // would round 18446744073709551615 to 18446744073709552000, which is no u64.
        return format!("{sign}{}", value.abs() as u64);
    }
    if value.is_infinite() {
        // `inf`, or a float literal too large for f64 such as `1e999`.
        return format!("{sign}inf");
    }
    // `Debug` writes the shortest text that reads back as the same f64, always with a
    // `.` or an exponent, so that it parses as a float again: `2.0`, `0.5`, `1e-7`.
    format!("{value:?}")
}

fn param(param: &Param) -> String {
    if param.is_scalar() {
        return format!("{}: {}", param.name, param.dtype);
    }
    let shape = comma_separated(&param.shape, |extent| extent.value.to_string());
    format!("{}: [{}; {shape}]", param.name, param.dtype)
}

/// One statement as the printer writes it in a kernel body: `y[i] = x[i] * 2.0;`.
pub fn statement(statement: &Stmt) -> String {
    stmt(statement)
}

fn stmt(stmt: &Stmt) -> String {
    let subscripts = if stmt.indices.is_empty() {
        String::new()
    } else {
        format!("[{}]", comma_separated(&stmt.indices, index))
    };
    format!(
        "{}{}{subscripts} = {};",
        if stmt.let_token.is_some() { "let " } else { "" },
        stmt.output,
        expr(&stmt.value)
    )
}

/// A subscript as written: `i`, `3`, `2*i + k - 1`, `idx[i]`.
pub(crate) fn index(index: &Index) -> String {
    match index {
        Index::Axis(axis) => axis.to_string(),
        Index::Const(position) => position.value.to_string(),
        Index::Affine(affine) => affine_text(affine),
        Index::Gather(gather) => format!(
            "{}[{}]",
            gather.tensor,
            comma_separated(&gather.indices, self::index)
        ),
    }
}

/// `2*i + k - 1`: the terms as written, coefficient 1 left out, the offset last.
fn affine_text(affine: &Affine) -> String {
    let mut out = String::new();
    for (position, term) in affine.terms.iter().enumerate() {
        if position > 0 {
            out.push_str(" + ");
        }
        if term.coefficient != 1 {
            let _ = write!(out, "{}*", term.coefficient);
        }
        let _ = write!(out, "{}", term.axis);
    }
    match (out.is_empty(), affine.offset) {
        // A negative constant alone would not read back: `0 - 1`.
        (true, offset) if offset < 0 => {
            let _ = write!(out, "0 - {}", offset.unsigned_abs());
        }
        // A constant alone, or one axis alone, would read back as a plain subscript.
        (true, offset) => {
            let _ = write!(out, "{offset} + 0");
        }
        (false, 0) if affine.terms.len() == 1 && affine.terms[0].coefficient == 1 => {
            out.push_str(" + 0");
        }
        (false, 0) => {}
        (false, offset) if offset < 0 => {
            let _ = write!(out, " - {}", offset.unsigned_abs());
        }
        (false, offset) => {
            let _ = write!(out, " + {offset}");
        }
    }
    out
}

fn item_kind(kind: &ItemKind) -> String {
    match kind {
        ItemKind::Parallel { axis, cores } => format!("parallel {axis} over {} cores", cores.value),
        ItemKind::Split { axis, tile } => format!("split {axis} by {}", tile.value),
        ItemKind::Stage {
            tensors,
            level,
            depth,
        } => {
            // Depth 1 is the default; writing it shows how many buffers the stage takes.
            let depth = depth.map_or(1, |depth| depth.value);
            format!(
                "stage {} in {level} depth {depth}",
                comma_separated(tensors, ToString::to_string)
            )
        }
        ItemKind::Cube { tiles } => {
            let tiles = comma_separated(tiles, |(axis, tile)| format!("{axis} by {}", tile.value));
            format!("cube {tiles}")
        }
        ItemKind::Tail { policy } => format!("tail {policy}"),
        ItemKind::Order { axes } => format!("order {}", comma_separated(axes, ToString::to_string)),
    }
}

fn comma_separated<T>(items: &[T], print: impl Fn(&T) -> String) -> String {
    items.iter().map(print).collect::<Vec<_>>().join(", ")
}
