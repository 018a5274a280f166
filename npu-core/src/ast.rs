//! The syntax tree of an `npu_kernel!` block, exactly as written, with spans.
//!
//! Nothing here is checked: names may be unknown and numbers may be illegal. The
//! checker ([`crate::check`]) turns this tree into a span-free
//! [`CheckedKernel`](crate::CheckedKernel) or into diagnostics that point at these spans.

use proc_macro2::{Ident, Span};

/// A whole `npu_kernel!` block: one kernel, its target and its schedules.
#[derive(Clone, Debug)]
pub struct KernelDef {
    /// The `///` doc comment lines, without the leading `///`.
    pub doc: Vec<String>,
    /// The `kernel` keyword, where "missing item" diagnostics point.
    pub kernel_span: Span,
    /// The kernel's name, after `kernel`.
    pub name: Ident,
    /// The parameters in the parentheses after the name, in order.
    pub inputs: Vec<Param>,
    /// The parameters after `->`: one bare, or several in parentheses.
    pub outputs: Vec<Param>,
    /// The statements inside the braces, in source order.
    pub body: Vec<Stmt>,
    /// Every `target` line, in order; the checker wants exactly one.
    pub targets: Vec<TargetRef>,
    /// The `schedule` blocks after the body, in source order.
    pub schedules: Vec<Schedule>,
    /// `variants 6 from "kernels/vmla.variants.npu";`, when the kernel asks for them.
    pub variants: Vec<VariantsRef>,
}

/// `a: [f16; 64, 128]`: a tensor parameter with a dtype and a static shape, or
/// `offset: i8`: a scalar parameter, with an empty shape.
#[derive(Clone, Debug)]
pub struct Param {
    /// The tensor's name; a raw identifier (`r#in`) for a Rust keyword.
    pub name: Ident,
    /// The element dtype as written; the checker resolves it and reports an unknown one.
    pub dtype: Ident,
    /// Empty for a scalar parameter.
    pub shape: Vec<Number>,
}

impl Param {
    /// Whether it is a scalar parameter, written `name: DTYPE` without brackets.
    pub fn is_scalar(&self) -> bool {
        self.shape.is_empty()
    }
}

/// A non-negative integer literal and where it was written.
#[derive(Clone, Copy, Debug)]
pub struct Number {
    /// The value; a negative literal or one past 64 bits is a parse error.
    pub value: u64,
    /// The literal token.
    pub span: Span,
}

/// `y[i, j] = expr;`, or `let m[i] = expr;` for an intermediate.
#[derive(Clone, Debug)]
pub struct Stmt {
    /// The tensor written: an output, or the intermediate a `let` declares.
    pub output: Ident,
    /// The subscripts of the written tensor; empty for a 0-d one (`y = ...;`).
    pub indices: Vec<Index>,
    /// The right-hand side.
    pub value: Expr,
    /// The `let` keyword of an intermediate: a tensor the kernel computes on chip, that
    /// later statements read and that is not an output.
    pub let_token: Option<Span>,
}

/// One subscript of a tensor access.
#[derive(Clone, Debug)]
pub enum Index {
    /// A loop axis such as `i`.
    Axis(Ident),
    /// A fixed position such as `0`.
    Const(Number),
    /// An affine form of axes such as `2*i + k - 1`: terms as written, constants folded
    /// into `offset`. `span` is its first token, where bounds diagnostics point.
    Affine(Affine),
    /// A gather: the position is read from an integer index tensor, `idx[i]` in
    /// `table[idx[i], d]`. The index tensor's own subscripts are affine.
    Gather(Gather),
}

/// `idx[i]` as a subscript: the index tensor and its subscripts.
#[derive(Clone, Debug)]
pub struct Gather {
    /// The index tensor, `idx` in `idx[i]`; the checker wants an integer input.
    pub tensor: Ident,
    /// The index tensor's own subscripts.
    pub indices: Vec<Index>,
}

/// `2*i + k - 1`: positive integer coefficients on axes plus an integer offset.
#[derive(Clone, Debug)]
pub struct Affine {
    /// The axis terms in written order; an axis may appear more than once.
    pub terms: Vec<AffineTerm>,
    /// The sum of the constant terms, with their signs (`- 1` gives -1).
    pub offset: i64,
    /// The subscript's first token, where bounds diagnostics point.
    pub span: Span,
}

/// `2*i`, or `k` (coefficient 1).
#[derive(Clone, Debug)]
pub struct AffineTerm {
    /// The multiplier, at least 1 (1 when none is written); axes are never subtracted.
    pub coefficient: u64,
    /// The loop axis it multiplies.
    pub axis: Ident,
}

impl Index {
    /// The token a diagnostic about this subscript points at.
    pub fn span(&self) -> Span {
        match self {
            Index::Axis(axis) => axis.span(),
            Index::Const(number) => number.span,
            Index::Affine(affine) => affine.span,
            Index::Gather(gather) => gather.tensor.span(),
        }
    }
}

/// An algorithm expression. Each node keeps the span of the token a diagnostic about
/// it should point at: the operator, the function name or the tensor name.
#[derive(Clone, Debug)]
pub enum Expr {
    /// `a[i, j]`; `offset` (no indices): a scalar parameter by its bare name; or a
    /// padded view `pad(a, 0)[i - 1]` whose out-of-range elements read as `pad` (an
    /// expression slot: a literal, a negated literal or a scalar parameter).
    Load {
        /// The tensor or scalar parameter read, by name; for a padded view, the name
        /// inside `pad(..)`.
        tensor: Ident,
        /// The subscripts in brackets; empty for a bare name.
        indices: Vec<Index>,
        /// The pad value of a padded view, `0` in `pad(a, 0)[..]`.
        pad: Option<Box<Expr>>,
    },
    /// `2`, `0.5`, `inf`, `nan`
    Literal {
        /// The value, never negative: a leading `-` is an [`Expr::Neg`]. An integer
        /// literal is converted from `u64`, so one above 2^53 is rounded.
        value: f64,
        /// Whether it was written as a float (`0.5`, `inf`, `nan`); an integer
        /// operand refuses one.
        is_float: bool,
        /// The literal token.
        span: Span,
    },
    /// `-x`
    Neg {
        /// The negated operand.
        arg: Box<Expr>,
        /// The `-` token.
        span: Span,
    },
    /// `x + y`, `x < y`, ...
    Binary {
        /// The operator; a comparison makes the node a mask.
        op: BinOp,
        /// The operator token.
        span: Span,
        /// The left operand.
        lhs: Box<Expr>,
        /// The right operand.
        rhs: Box<Expr>,
    },
    /// `a + b - c + d`: three operands or more joined by operators of one binding power
    /// (comparisons never chain), folded left to right in source order, as
    /// `((a + b) - c) + d` is. Two operands are a `Binary`. A chain is one node however
    /// long it is, so that no pass recurses once per operator.
    Chain {
        /// The leftmost operand.
        first: Box<Expr>,
        /// Each later operator with the operand after it, in source order; two or
        /// more.
        rest: Vec<Link>,
    },
    /// `exp(x)`, `max(x, y)`, `select(c, x, y)`, or a reduction `sum[k](x)`,
    /// `sum[kh, kw](x)`, `sum[k: bf16](x)`; a window reduction states its axis's
    /// extent: `max[k < 3](x[2*i + k])`.
    Call {
        /// The function, reduction or scan name as written, not yet checked to exist.
        func: Ident,
        /// The bracket of a reduction or scan (`sum[k]`, `cumsum[k]`); `None` for a
        /// plain call.
        reduction: Option<Reduction>,
        /// The arguments in order.
        args: Vec<Expr>,
    },
    /// `x as f32`, or `x as sat i8` (`saturating`)
    Cast {
        /// The value cast.
        arg: Box<Expr>,
        /// The dtype after `as` (and `sat`), as written; diagnostics about the cast
        /// point at it.
        dtype: Ident,
        /// Whether `sat` was written: out-of-range values clamp instead of wrapping.
        saturating: bool,
    },
    /// `!x`, bitwise not
    Not {
        /// The operand; the checker wants an integer.
        arg: Box<Expr>,
        /// The `!` token.
        span: Span,
    },
}

impl Expr {
    /// Calls `f` on this expression and every expression under it, in source order
    /// (a node before its operands), a pad value included.
    pub fn each<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        f(self);
        match self {
            Expr::Load { pad, .. } => pad.iter().for_each(|p| p.each(f)),
            Expr::Literal { .. } => {}
            Expr::Neg { arg, .. } | Expr::Not { arg, .. } | Expr::Cast { arg, .. } => arg.each(f),
            Expr::Binary { lhs, rhs, .. } => {
                lhs.each(f);
                rhs.each(f);
            }
            Expr::Chain { first, rest } => {
                first.each(f);
                rest.iter().for_each(|link| link.operand.each(f));
            }
            Expr::Call { args, .. } => args.iter().for_each(|a| a.each(f)),
        }
    }

    /// [`each`](Self::each), with each expression mutable.
    pub fn each_mut(&mut self, f: &mut impl FnMut(&mut Expr)) {
        f(self);
        match self {
            Expr::Load { pad, .. } => pad.iter_mut().for_each(|p| p.each_mut(f)),
            Expr::Literal { .. } => {}
            Expr::Neg { arg, .. } | Expr::Not { arg, .. } | Expr::Cast { arg, .. } => {
                arg.each_mut(f)
            }
            Expr::Binary { lhs, rhs, .. } => {
                lhs.each_mut(f);
                rhs.each_mut(f);
            }
            Expr::Chain { first, rest } => {
                first.each_mut(f);
                rest.iter_mut().for_each(|link| link.operand.each_mut(f));
            }
            Expr::Call { args, .. } => args.iter_mut().for_each(|a| a.each_mut(f)),
        }
    }
}

/// One operator of a chain and the operand after it: `- c` in `a + b - c`.
#[derive(Clone, Debug)]
pub struct Link {
    /// The operator before the operand; one of the same binding power as the chain's
    /// other links.
    pub op: BinOp,
    /// The operator, where diagnostics about this step point.
    pub span: Span,
    /// The operand after the operator.
    pub operand: Expr,
}

/// The bracket of a reduction: `[kh, kw]`, `[k: bf16]` or a window's `[kh < 3, kw < 3]`.
#[derive(Clone, Debug)]
pub struct Reduction {
    /// The axes it reduces over, outermost first; at least one.
    pub axes: Vec<Ident>,
    /// Each axis's stated extent (`k < 3`), when one is written.
    pub extents: Vec<Option<Number>>,
    /// The accumulator dtype after `:`, when one is written.
    pub accumulator: Option<Ident>,
}

impl Reduction {
    /// The bracket as the canonical printer writes it: `[kh < 3, kw: bf16]`.
    pub fn text(&self) -> String {
        let axes: Vec<String> = self
            .axes
            .iter()
            .zip(&self.extents)
            .map(|(axis, extent)| match extent {
                Some(extent) => format!("{axis} < {}", extent.value),
                None => axis.to_string(),
            })
            .collect();
        match &self.accumulator {
            Some(dtype) => format!("[{}: {dtype}]", axes.join(", ")),
            None => format!("[{}]", axes.join(", ")),
        }
    }
}

/// A binary operator of the algorithm language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`, addition.
    Add,
    /// `-`, subtraction.
    Sub,
    /// `*`, multiplication.
    Mul,
    /// `/`, division.
    Div,
    /// `<`, a comparison.
    Lt,
    /// `<=`, a comparison.
    Le,
    /// `>`, a comparison.
    Gt,
    /// `>=`, a comparison.
    Ge,
    /// `==`, a comparison.
    Eq,
    /// `!=`, a comparison.
    Ne,
    /// `&`, on integers only.
    BitAnd,
    /// `|`, on integers only.
    BitOr,
    /// `^`, on integers only.
    BitXor,
    /// `<<`, on integers only.
    Shl,
    /// `>>`, on integers only.
    Shr,
    /// `%`, the remainder.
    Rem,
}

impl BinOp {
    /// The operator as written in source.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Rem => "%",
        }
    }

    /// Whether a run of this operator (and others of its binding power) is kept as one
    /// [`Expr::Chain`]: every operator but the comparisons, which yield a mask that no
    /// operator takes.
    pub fn chains(self) -> bool {
        !self.is_comparison()
    }

    /// Whether the operator compares and yields a mask rather than a number.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
        )
    }

    /// How tightly the operator binds, loosest first, as in Rust: comparisons, `|`,
    /// `^`, `&`, shifts, `+ -`, `* / %`. The parser and the printer share it.
    pub fn binding_power(self) -> u8 {
        match self {
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => 1,
            BinOp::BitOr => 2,
            BinOp::BitXor => 3,
            BinOp::BitAnd => 4,
            BinOp::Shl | BinOp::Shr => 5,
            BinOp::Add | BinOp::Sub => 6,
            BinOp::Mul | BinOp::Div | BinOp::Rem => 7,
        }
    }
}

/// `target ascend910b;` or `target "targets/my_chip.toml";`
#[derive(Clone, Debug)]
pub enum TargetRef {
    /// A built-in target by name, `ascend910b`.
    Preset(Ident),
    /// A target TOML file.
    File {
        /// The path as written, relative to the crate root of the kernel's crate.
        path: String,
        /// The path's string literal.
        span: Span,
    },
}

impl TargetRef {
    /// The preset name or the path literal, where diagnostics about the target point.
    pub fn span(&self) -> Span {
        match self {
            TargetRef::Preset(ident) => ident.span(),
            TargetRef::File { span, .. } => *span,
        }
    }
}

/// `variants 6 from "kernels/vmla.variants.npu";`: up to `count` generated schedules,
/// kept as DSL text in a file relative to the crate root (see `npu_core::variants`).
#[derive(Clone, Debug)]
pub struct VariantsRef {
    /// The `variants` keyword.
    pub keyword: Span,
    /// How many schedules to generate; the checker allows 1 to `MAX_VARIANTS`.
    pub count: Number,
    /// The variants file's path as written, relative to the crate root.
    pub path: String,
    /// The path's string literal.
    pub path_span: Span,
}

/// `schedule name { item; ... }`
#[derive(Clone, Debug)]
pub struct Schedule {
    /// The schedule's name; unique within a kernel.
    pub name: Ident,
    /// The items in source order; a core grid is one `parallel` item per axis.
    pub items: Vec<Item>,
}

/// One line of a schedule. `keyword` is the span of its first word.
#[derive(Clone, Debug)]
pub struct Item {
    /// The item's first word (`split`, `stage`, ...).
    pub keyword: Span,
    /// What the item says.
    pub kind: ItemKind,
}

/// What one schedule item says, with its names and numbers as written.
#[derive(Clone, Debug)]
pub enum ItemKind {
    /// `parallel i over 8 cores;`
    Parallel {
        /// The axis whose tiles are shared out across cores.
        axis: Ident,
        /// How many cores share it.
        cores: Number,
    },
    /// `split i by 2048;`
    Split {
        /// The axis split into tiles.
        axis: Ident,
        /// The tile's extent along the axis, in elements.
        tile: Number,
    },
    /// `stage a, b in ub depth 2;` (depth 1 when omitted)
    Stage {
        /// The tensors staged, in order.
        tensors: Vec<Ident>,
        /// The memory level's name (`ub`, `l1`, `l0a`, ...), not yet checked.
        level: Ident,
        /// Buffer slots per tensor (2 for double buffering), when written.
        depth: Option<Number>,
    },
    /// `cube m by 64, n by 64, k by 32;`
    Cube {
        /// Each axis of the cube's base block with its extent in elements, as written.
        tiles: Vec<(Ident, Number)>,
    },
    /// `tail pad;` or `tail exact;`
    Tail {
        /// The policy word, not yet checked to be `pad` or `exact`.
        policy: Ident,
    },
    /// `order j, i;`
    Order {
        /// The output axes' tile loops, outermost first.
        axes: Vec<Ident>,
    },
}

impl ItemKind {
    /// The keyword that starts the item, as written.
    pub fn keyword(&self) -> &'static str {
        match self {
            ItemKind::Parallel { .. } => "parallel",
            ItemKind::Split { .. } => "split",
            ItemKind::Stage { .. } => "stage",
            ItemKind::Cube { .. } => "cube",
            ItemKind::Tail { .. } => "tail",
            ItemKind::Order { .. } => "order",
        }
    }
}

/// Every schedule keyword, for "did you mean" suggestions.
pub const ITEM_KEYWORDS: &[&str] = &["parallel", "split", "stage", "cube", "tail", "order"];
