//! Random expression trees of one dtype, printed as DSL text, and the smaller trees a
//! shrinker tries in their place.

use std::fmt;

use fastrand::Rng;

/// An expression of the kernel's element dtype.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A tensor element, a scalar parameter or a literal, as written.
    Leaf(String),
    /// `name(e)` or a prefix operator (`-`, `!`), or `pow(e, 2.0)` as `pow2`.
    Unary(&'static str, Box<Expr>),
    /// `(a OP b)` for an operator, `name(a, b)` for `min` and `max`.
    Binary(&'static str, Box<Expr>, Box<Expr>),
    /// `(a OP b OP c ...)`: three operands or more joined by operators of one binding
    /// power, which the parser keeps as one chain node; now and then longer than a
    /// tree may nest (past 128 operands).
    Chain(Box<Expr>, Vec<(&'static str, Expr)>),
    /// `select(a CMP b, then, else)`.
    Select(&'static str, Box<[Expr; 4]>),
    /// `((e as [sat] via) as back)`: through another dtype and back.
    Cast {
        /// The dtype it passes through.
        via: String,
        /// Whether the first cast saturates (`as sat`).
        saturating: bool,
        /// The dtype it returns to.
        back: String,
        /// The cast expression.
        value: Box<Expr>,
    },
}

/// What an expression may use: its dtype, the loads and scalar parameters in scope,
/// and the dtypes a cast may pass through.
#[derive(Clone, Debug)]
pub struct Scope {
    /// The dtype of the expression.
    pub dtype: String,
    /// The loads in scope, as text (`x[i]`).
    pub loads: Vec<String>,
    /// The scalar parameters in scope.
    pub params: Vec<String>,
    /// The dtypes a cast may pass through.
    pub cast_dtypes: Vec<String>,
}

/// Whether `dtype` names a float dtype (`f16`, `f32`, `bf16`).
pub fn is_float(dtype: &str) -> bool {
    dtype.starts_with('f') || dtype == "bf16"
}

const ANY_UNARY: &[&str] = &["abs", "-", "relu", "sign"];
const FLOAT_UNARY: &[&str] = &[
    "exp", "log", "sqrt", "rsqrt", "tanh", "recip", "sigmoid", "sin", "cos", "tan", "exp2", "log2",
    "log10", "erf", "floor", "ceil", "round", "trunc", "pow2",
];
const INTEGER_UNARY: &[&str] = &["!", "popcount"];
const ANY_BINARY: &[&str] = &["+", "-", "*", "min", "max", "+", "*", "/", "%"];
const INTEGER_BINARY: &[&str] = &["&", "|", "^", "<<", ">>"];
const COMPARES: &[&str] = &["<", "<=", ">", ">=", "==", "!="];
/// The operators a chain mixes: each list is of one binding power.
const FLOAT_CHAINS: &[&[&str]] = &[&["+", "-"], &["*"], &["*", "/"]];
const INTEGER_CHAINS: &[&[&str]] = &[&["+", "-"], &["*"], &["&"], &["|"], &["^"]];

impl Expr {
    /// A random tree at most `depth` operations deep.
    pub fn random(rng: &mut Rng, scope: &Scope, depth: u32) -> Expr {
        if depth == 0 || rng.u32(0..100) < 25 {
            return Expr::leaf(rng, scope);
        }
        let float = is_float(&scope.dtype);
        let sub = |rng: &mut Rng| Box::new(Expr::random(rng, scope, depth - 1));
        match rng.u32(0..100) {
            0..5 => Expr::chain(rng, scope, depth),
            5..30 => {
                let op = pick(rng, ANY_BINARY);
                let (a, b) = (sub(rng), sub(rng));
                Expr::Binary(op, a, b)
            }
            30..45 if !float => {
                let op = pick(rng, INTEGER_BINARY);
                let a = sub(rng);
                // Shift counts mostly in range, now and then past the width.
                let b = if op.ends_with('<') || op.ends_with('>') {
                    Box::new(Expr::Leaf(rng.u32(0..40).to_string()))
                } else {
                    sub(rng)
                };
                Expr::Binary(op, a, b)
            }
            30..50 => Expr::Unary(pick(rng, FLOAT_UNARY), sub(rng)),
            50..62 => {
                let op = if !float && rng.bool() {
                    pick(rng, INTEGER_UNARY)
                } else {
                    pick(rng, ANY_UNARY)
                };
                Expr::Unary(op, sub(rng))
            }
            62..82 => {
                let parts = [sub(rng), sub(rng), sub(rng), sub(rng)].map(|b| *b);
                Expr::Select(pick(rng, COMPARES), Box::new(parts))
            }
            _ => Expr::Cast {
                via: rng.choice(&scope.cast_dtypes).cloned().unwrap_or_default(),
                saturating: rng.bool(),
                back: scope.dtype.clone(),
                value: sub(rng),
            },
        }
    }

    /// A chain of 3 to 8 operands at most `depth - 1` deep, or one time in twenty of
    /// 129 to 160 leaves (longer than the 128 levels a tree of them could nest).
    fn chain(rng: &mut Rng, scope: &Scope, depth: u32) -> Expr {
        let groups = if is_float(&scope.dtype) {
            FLOAT_CHAINS
        } else {
            INTEGER_CHAINS
        };
        let ops = pick(rng, groups);
        let long = rng.u32(0..20) == 0;
        let count = if long {
            rng.usize(129..=160)
        } else {
            rng.usize(3..=8)
        };
        let operand = |rng: &mut Rng| {
            if long {
                Expr::leaf(rng, scope)
            } else {
                Expr::random(rng, scope, depth - 1)
            }
        };
        let first = Box::new(operand(rng));
        let rest = (1..count).map(|_| (pick(rng, ops), operand(rng))).collect();
        Expr::Chain(first, rest)
    }

    fn leaf(rng: &mut Rng, scope: &Scope) -> Expr {
        let roll = rng.u32(0..100);
        if roll < 65 && !scope.loads.is_empty() {
            return Expr::Leaf(rng.choice(&scope.loads).cloned().unwrap_or_default());
        }
        if roll < 75 && !scope.params.is_empty() {
            return Expr::Leaf(rng.choice(&scope.params).cloned().unwrap_or_default());
        }
        Expr::Leaf(literal(rng, &scope.dtype))
    }

    /// Smaller trees to try in this one's place: each direct operand, then each
    /// operand's own candidates in place, then the literal `1`.
    pub fn smaller(&self) -> Vec<Expr> {
        let mut out = Vec::new();
        match self {
            Expr::Leaf(text) if text != "1" => out.push(Expr::Leaf("1".into())),
            Expr::Leaf(_) => {}
            Expr::Unary(op, value) => {
                out.push((**value).clone());
                out.extend(
                    value
                        .smaller()
                        .into_iter()
                        .map(|v| Expr::Unary(op, Box::new(v))),
                );
            }
            Expr::Binary(op, a, b) => {
                out.push((**a).clone());
                out.push((**b).clone());
                for v in a.smaller() {
                    out.push(Expr::Binary(op, Box::new(v), b.clone()));
                }
                for v in b.smaller() {
                    out.push(Expr::Binary(op, a.clone(), Box::new(v)));
                }
            }
            Expr::Chain(first, rest) => {
                out.push((**first).clone());
                out.extend(rest.iter().map(|(_, operand)| operand.clone()));
                // Without its last step: a chain of fewer operands, or a binary.
                let shorter = &rest[..rest.len() - 1];
                out.push(match shorter {
                    [(op, b)] => Expr::Binary(op, first.clone(), Box::new(b.clone())),
                    _ => Expr::Chain(first.clone(), shorter.to_vec()),
                });
                for v in first.smaller() {
                    out.push(Expr::Chain(Box::new(v), rest.clone()));
                }
                for (slot, (_, operand)) in rest.iter().enumerate() {
                    for v in operand.smaller() {
                        let mut next = rest.clone();
                        next[slot].1 = v;
                        out.push(Expr::Chain(first.clone(), next));
                    }
                }
            }
            Expr::Select(op, parts) => {
                out.push(parts[2].clone());
                out.push(parts[3].clone());
                for slot in 0..4 {
                    for v in parts[slot].smaller() {
                        let mut next = parts.clone();
                        next[slot] = v;
                        out.push(Expr::Select(op, next));
                    }
                }
            }
            Expr::Cast { value, .. } => {
                out.push((**value).clone());
                for v in value.smaller() {
                    let mut next = self.clone();
                    if let Expr::Cast { value, .. } = &mut next {
                        **value = v;
                    }
                    out.push(next);
                }
            }
        }
        out
    }

    /// Whether the tree has a node of this kind: `select`, `cast`, `bits`, `math`,
    /// `literal`, `param:NAME`.
    pub fn has(&self, what: &str) -> bool {
        match self {
            Expr::Leaf(text) => match what {
                "literal" => {
                    text.starts_with(|c: char| c.is_ascii_digit() || c == '-')
                        || text == "inf"
                        || text == "nan"
                }
                _ => what.strip_prefix("param:") == Some(text.as_str()),
            },
            Expr::Unary(op, value) => {
                (what == "math" && FLOAT_UNARY.contains(op))
                    || (what == "bits" && INTEGER_UNARY.contains(op))
                    || value.has(what)
            }
            Expr::Binary(op, a, b) => {
                (what == "bits" && INTEGER_BINARY.contains(op)) || a.has(what) || b.has(what)
            }
            Expr::Chain(first, rest) => {
                first.has(what)
                    || rest.iter().any(|(op, operand)| {
                        (what == "bits" && INTEGER_BINARY.contains(op)) || operand.has(what)
                    })
            }
            Expr::Select(_, parts) => what == "select" || parts.iter().any(|p| p.has(what)),
            Expr::Cast { value, .. } => what == "cast" || value.has(what),
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Leaf(text) => write!(f, "{text}"),
            Expr::Unary("pow2", value) => write!(f, "pow({value}, 2.0)"),
            Expr::Unary(op @ ("-" | "!"), value) => write!(f, "({op}{value})"),
            Expr::Unary(op, value) => write!(f, "{op}({value})"),
            Expr::Binary(op @ ("min" | "max"), a, b) => write!(f, "{op}({a}, {b})"),
            Expr::Binary(op, a, b) => write!(f, "({a} {op} {b})"),
            Expr::Chain(first, rest) => {
                write!(f, "({first}")?;
                for (op, operand) in rest {
                    write!(f, " {op} {operand}")?;
                }
                write!(f, ")")
            }
            Expr::Select(op, parts) => {
                let [a, b, then, otherwise] = &**parts;
                write!(f, "select({a} {op} {b}, {then}, {otherwise})")
            }
            Expr::Cast {
                via,
                saturating,
                back,
                value,
            } => {
                let sat = if *saturating { "sat " } else { "" };
                write!(f, "(({value} as {sat}{via}) as {back})")
            }
        }
    }
}

/// A literal of `dtype`'s kind that `dtype` holds (the checker refuses any other):
/// small integers, now and then an extreme; for floats also halves, signed zeros,
/// infinities and NaN.
pub fn literal(rng: &mut Rng, dtype: &str) -> String {
    // 255 is past i8's range: there it stands for the largest i8.
    let largest = if dtype == "i8" { "127" } else { "255" };
    let integers = [
        "0", "1", "2", "3", "-1", "7", "-2", "100", "127", "-128", largest,
    ];
    if is_float(dtype) && rng.bool() {
        let floats = [
            "0.5", "-1.5", "2.0", "0.0", "-0.0", "0.25", "3.5", "-7.25", "1e3", "inf", "-inf",
            "nan", "65504.0",
        ];
        return pick(rng, &floats).to_string();
    }
    let value = pick(rng, &integers);
    if !dtype.starts_with('u') || !value.starts_with('-') {
        value.to_string()
    } else {
        value.trim_start_matches('-').to_string()
    }
}

pub(crate) fn pick<T: Copy>(rng: &mut Rng, items: &[T]) -> T {
    items[rng.usize(0..items.len())]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain of more than 128 operands in `expr`, if it has one.
    fn long_chain(expr: &Expr) -> Option<&Expr> {
        match expr {
            Expr::Leaf(_) => None,
            Expr::Unary(_, value) | Expr::Cast { value, .. } => long_chain(value),
            Expr::Binary(_, a, b) => long_chain(a).or_else(|| long_chain(b)),
            Expr::Select(_, parts) => parts.iter().find_map(long_chain),
            Expr::Chain(_, rest) if rest.len() >= 128 => Some(expr),
            Expr::Chain(first, rest) => {
                long_chain(first).or_else(|| rest.iter().find_map(|(_, e)| long_chain(e)))
            }
        }
    }

    #[test]
    fn some_chains_are_longer_than_a_tree_may_nest_and_print_flat() {
        let scope = Scope {
            dtype: "f32".into(),
            loads: vec!["x[i]".into()],
            params: Vec::new(),
            cast_dtypes: vec!["f16".into()],
        };
        let mut rng = Rng::with_seed(7);
        let exprs: Vec<Expr> = (0..2000)
            .map(|_| Expr::random(&mut rng, &scope, 3))
            .collect();
        let long = exprs
            .iter()
            .find_map(long_chain)
            .expect("a chain past 128 operands in 2000 expressions");
        // Its operands are leaves: one pair of parentheses around the whole chain,
        // none per step, so the parser reads one chain node.
        let text = long.to_string();
        assert_eq!(text.matches('(').count(), 1, "{text:.200}");
    }
}
