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
    pub name: Ident,
    pub inputs: Vec<Param>,
    pub outputs: Vec<Param>,
    pub body: Vec<Stmt>,
    pub targets: Vec<TargetRef>,
    pub schedules: Vec<Schedule>,
    /// `variants 6 from "kernels/vmla.variants.npu";`, when the kernel asks for them.
    pub variants: Vec<VariantsRef>,
}

/// `a: [f16; 64, 128]`: a tensor parameter with a dtype and a static shape, or
/// `offset: i8`: a scalar parameter, with an empty shape.
#[derive(Clone, Debug)]
pub struct Param {
    pub name: Ident,
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
    pub value: u64,
    pub span: Span,
}

/// `y[i, j] = expr;`, or `let m[i] = expr;` for an intermediate.
#[derive(Clone, Debug)]
pub struct Stmt {
    pub output: Ident,
    pub indices: Vec<Index>,
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
    pub tensor: Ident,
    pub indices: Vec<Index>,
}

/// `2*i + k - 1`: positive integer coefficients on axes plus an integer offset.
#[derive(Clone, Debug)]
pub struct Affine {
    pub terms: Vec<AffineTerm>,
    pub offset: i64,
    pub span: Span,
}

/// `2*i`, or `k` (coefficient 1).
#[derive(Clone, Debug)]
pub struct AffineTerm {
    pub coefficient: u64,
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
    /// expression slot; a literal today).
    Load {
        tensor: Ident,
        indices: Vec<Index>,
        pad: Option<Box<Expr>>,
    },
    /// `2`, `0.5`, `inf`, `nan`
    Literal {
        value: f64,
        is_float: bool,
        span: Span,
    },
    /// `-x`
    Neg { arg: Box<Expr>, span: Span },
    /// `x + y`, `x < y`, ...
    Binary {
        op: BinOp,
        span: Span,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `a + b - c + d`: three operands or more joined by operators of one binding power
    /// (comparisons never chain), folded left to right in source order, as
    /// `((a + b) - c) + d` is. Two operands are a `Binary`. A chain is one node however
    /// long it is, so that no pass recurses once per operator.
    Chain { first: Box<Expr>, rest: Vec<Link> },
    /// `exp(x)`, `max(x, y)`, `select(c, x, y)`, or a reduction `sum[k](x)`,
    /// `sum[kh, kw](x)`, `sum[k: bf16](x)`; a window reduction states its axis's
    /// extent: `max[k < 3](x[2*i + k])`.
    Call {
        func: Ident,
        reduction: Option<Reduction>,
        args: Vec<Expr>,
    },
    /// `x as f32`, or `x as sat i8` (`saturating`)
    Cast {
        arg: Box<Expr>,
        dtype: Ident,
        saturating: bool,
    },
    /// `!x`, bitwise not
    Not { arg: Box<Expr>, span: Span },
}

/// One operator of a chain and the operand after it: `- c` in `a + b - c`.
#[derive(Clone, Debug)]
pub struct Link {
    pub op: BinOp,
    /// The operator, where diagnostics about this step point.
    pub span: Span,
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
    Add,
    Sub,
    Mul,
    Div,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
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
    Preset(Ident),
    File { path: String, span: Span },
}

impl TargetRef {
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
    pub count: Number,
    pub path: String,
    /// The path's string literal.
    pub path_span: Span,
}

/// `schedule name { item; ... }`
#[derive(Clone, Debug)]
pub struct Schedule {
    pub name: Ident,
    pub items: Vec<Item>,
}

/// One line of a schedule. `keyword` is the span of its first word.
#[derive(Clone, Debug)]
pub struct Item {
    pub keyword: Span,
    pub kind: ItemKind,
}

#[derive(Clone, Debug)]
pub enum ItemKind {
    /// `parallel i over 8 cores;`
    Parallel { axis: Ident, cores: Number },
    /// `split i by 2048;`
    Split { axis: Ident, tile: Number },
    /// `stage a, b in ub depth 2;` (depth 1 when omitted)
    Stage {
        tensors: Vec<Ident>,
        level: Ident,
        depth: Option<Number>,
    },
    /// `cube m by 64, n by 64, k by 32;`
    Cube { tiles: Vec<(Ident, Number)> },
    /// `tail pad;` or `tail exact;`
    Tail { policy: Ident },
    /// `order j, i;`
    Order { axes: Vec<Ident> },
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
