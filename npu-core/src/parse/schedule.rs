//! A `schedule` block's items: splits, core grids, staging, cube blocks, tails and
//! loop order.

use syn::parse::ParseStream;
use syn::{Ident, LitInt, Token, braced};

use super::leaves::{integer, kw, number};
use crate::ast::*;
use crate::diag::{Code, Diagnostic};
use crate::words::suggestion;

// schedule_body := IDENT '{' item* '}'
/// An unknown schedule word is added to `recovered` and its item skipped.
pub(super) fn schedule_body(
    input: ParseStream,
    recovered: &mut Vec<Diagnostic>,
) -> syn::Result<Schedule> {
    let name: Ident = input.parse()?;
    let content;
    braced!(content in input);
    let mut items = Vec::new();
    while !content.is_empty() {
        items.extend(item(&content, recovered)?);
    }
    Ok(Schedule { name, items })
}

// item := 'parallel' IDENT (',' IDENT)* 'over' INT ('x' INT)* 'cores' ';'
//       | 'split' IDENT 'by' INT ';'
//       | 'stage' IDENT (',' IDENT)* 'in' IDENT ('depth' INT)? ';'
//       | 'cube' IDENT 'by' INT (',' IDENT 'by' INT)* ';'
//       | 'tail' IDENT ';'
//       | 'order' IDENT (',' IDENT)* ';'
//
// A core grid, `parallel m, n over 4 x 5 cores;`, is one `parallel` item per axis
// (`parallel m over 4 cores; parallel n over 5 cores;`), which is how it prints.
fn item(input: ParseStream, recovered: &mut Vec<Diagnostic>) -> syn::Result<Vec<Item>> {
    let keyword = input.span();
    let kind = if input.peek(kw::parallel) {
        input.parse::<kw::parallel>()?;
        let axes = ident_list(input)?;
        input.parse::<kw::over>()?;
        let counts = core_grid(input, axes.len())?;
        input.parse::<kw::cores>()?;
        input.parse::<Token![;]>()?;
        return Ok(axes
            .into_iter()
            .zip(counts)
            .map(|(axis, cores)| Item {
                keyword,
                kind: ItemKind::Parallel { axis, cores },
            })
            .collect());
    } else if input.peek(kw::split) {
        input.parse::<kw::split>()?;
        let axis = input.parse()?;
        input.parse::<kw::by>()?;
        ItemKind::Split {
            axis,
            tile: number(input)?,
        }
    } else if input.peek(kw::stage) {
        input.parse::<kw::stage>()?;
        let tensors = ident_list(input)?;
        input.parse::<Token![in]>()?;
        let level = input.parse()?;
        let depth = if input.peek(kw::depth) {
            input.parse::<kw::depth>()?;
            Some(number(input)?)
        } else {
            None
        };
        ItemKind::Stage {
            tensors,
            level,
            depth,
        }
    } else if input.peek(kw::cube) {
        input.parse::<kw::cube>()?;
        let mut tiles = Vec::new();
        loop {
            let axis: Ident = input.parse()?;
            input.parse::<kw::by>()?;
            tiles.push((axis, number(input)?));
            if !input.peek(Token![,]) {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        ItemKind::Cube { tiles }
    } else if input.peek(kw::tail) {
        input.parse::<kw::tail>()?;
        ItemKind::Tail {
            policy: input.parse()?,
        }
    } else if input.peek(kw::order) {
        input.parse::<kw::order>()?;
        ItemKind::Order {
            axes: ident_list(input)?,
        }
    } else if input.peek(Ident) {
        // An unknown word: report it with a suggestion and skip the item.
        let word: Ident = input.parse()?;
        let name = word.to_string();
        recovered.push(
            Diagnostic::new(
                Code::E006,
                word.span(),
                format!("unknown schedule item `{name}`"),
            )
            .help(item_suggestion(&name)),
        );
        while !input.is_empty() && !input.peek(Token![;]) {
            input.parse::<proc_macro2::TokenTree>()?;
        }
        input.parse::<Token![;]>()?;
        return Ok(Vec::new());
    } else {
        return Err(input.error(format!(
            "expected a schedule item: {}",
            crate::words::list(ITEM_KEYWORDS)
        )));
    };
    input.parse::<Token![;]>()?;
    Ok(vec![Item { keyword, kind }])
}

// core_grid := INT ('x' INT)*, one count per axis of the `parallel` item.
fn core_grid(input: ParseStream, axes: usize) -> syn::Result<Vec<Number>> {
    let mut counts = Vec::new();
    loop {
        let lit: LitInt = input.parse()?;
        if lit.suffix().starts_with('x') {
            return Err(syn::Error::new(
                lit.span(),
                format!(
                    "write the core grid with spaces: `{} x {}`",
                    lit.base10_digits(),
                    &lit.suffix()[1..]
                ),
            ));
        }
        counts.push(Number {
            value: integer(&lit)?,
            span: lit.span(),
        });
        if !input.peek(kw::x) {
            break;
        }
        input.parse::<kw::x>()?;
    }
    if counts.len() != axes {
        let grid = counts
            .iter()
            .map(|c| c.value.to_string())
            .collect::<Vec<_>>()
            .join(" x ");
        // The first count too many, or the last one when some are missing.
        let span = counts[axes.min(counts.len() - 1)].span;
        return Err(syn::Error::new(
            span,
            format!(
                "`parallel` names {axes} {} but the core grid `{grid}` has {} {}; give one core count per axis",
                if axes == 1 { "axis" } else { "axes" },
                counts.len(),
                if counts.len() == 1 { "count" } else { "counts" },
            ),
        ));
    }
    Ok(counts)
}

fn ident_list(input: ParseStream) -> syn::Result<Vec<Ident>> {
    let mut list = vec![input.parse::<Ident>()?];
    while input.peek(Token![,]) {
        input.parse::<Token![,]>()?;
        list.push(input.parse()?);
    }
    Ok(list)
}

/// Words other scheduling languages use for our items (Halide, TVM, Triton, Ascend C).
const ITEM_SYNONYMS: &[(&str, &str)] = &[
    ("tile", "split"),
    ("block", "split"),
    ("chunk", "split"),
    ("reorder", "order"),
    ("multicore", "parallel"),
    ("cores", "parallel"),
    ("blockdim", "parallel"),
    ("buffer", "stage"),
    ("cache", "stage"),
    ("copy", "stage"),
    ("double_buffer", "stage"),
    ("mmad", "cube"),
    ("matmul", "cube"),
    ("pad", "tail"),
];

fn item_suggestion(word: &str) -> String {
    let lower = word.to_ascii_lowercase();
    match ITEM_SYNONYMS.iter().find(|(other, _)| *other == lower) {
        Some((_, ours)) => format!("did you mean `{ours}`? (`{word}` elsewhere is `{ours}` here)"),
        None => suggestion(word, ITEM_KEYWORDS),
    }
}
