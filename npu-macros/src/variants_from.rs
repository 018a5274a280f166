//! `variants N from "FILE";`: the generated schedules of a variants file, compiled
//! like hand-written ones.
//!
//! The file is read relative to the crate's directory, as target files are. Its
//! schedules are checked after the hand schedules by [`npu_core::variants::check`]; a
//! problem becomes a compile error at the `variants` line's path, whose message names
//! `FILE:line:column`, because a proc-macro span cannot point into another file. The
//! expansion includes the file with `include_bytes!`, so cargo rebuilds the crate
//! when it changes.
//!
//! A missing file is not an error: the kernel compiles with its hand schedules, and a
//! deprecated constant the expansion uses makes rustc print a warning that says so
//! (stable proc macros have no other way to warn).

use std::path::Path;

use proc_macro2::TokenStream;
use quote::{format_ident, quote_spanned};

use npu_core::ast::{KernelDef, VariantsRef};
use npu_core::variants::Problem;
use npu_core::{CheckedKernel, Code, Diagnostic, Diagnostics, Target};

/// Adds the variants of `def`'s variants file to `hand`, the kernel checked with its
/// hand schedules. Returns the kernel to expand and tokens to emit beside its module:
/// the file's `include_bytes!`, or the warning that the file is missing.
pub(crate) fn add(
    def: &KernelDef,
    target: &Target,
    hand: CheckedKernel,
    dir: &Path,
) -> Result<(CheckedKernel, TokenStream), Diagnostics> {
    let Some(variants) = def.variants.first() else {
        return Ok((hand, TokenStream::new()));
    };
    let full = dir.join(&variants.path);
    let text = match read(&full) {
        Ok(Some(text)) => text,
        Ok(None) => return Ok((hand, missing_warning(def, variants))),
        Err(message) => return Err(error(variants, message)),
    };
    let count = usize::try_from(variants.count.value).unwrap_or(usize::MAX);
    let checked = {
        let _text_spans = TextSpans::force();
        let checked = npu_core::variants::check(def, target, &text, count);
        proc_macro2::extra::invalidate_current_thread_spans();
        checked
    };
    let kernel = checked.map_err(|problem| diagnostics(variants, &problem))?;
    let tracked = match full.to_str() {
        Some(path) => quote_spanned!(variants.path_span=>
            const _: &[::core::primitive::u8] = ::core::include_bytes!(#path);
        ),
        None => TokenStream::new(),
    };
    Ok((kernel, tracked))
}

/// The file's text; `None` when it does not exist. Read by npu-core's bounded reader,
/// as the build helper reads it: a FIFO, a device or a file past the variants file's
/// size limit is an error naming the file, never a compiler that waits or fills memory.
fn read(path: &Path) -> Result<Option<String>, String> {
    match npu_core::file::read(npu_core::file::Kind::Variants, path) {
        Ok(text) => Ok(Some(text)),
        Err(error) if error.is_not_found() => Ok(None),
        Err(error) => Err(error.to_string()),
    }
}

/// One compile error per problem, all at the `variants` line's path.
fn diagnostics(variants: &VariantsRef, problem: &Problem) -> Diagnostics {
    let path = &variants.path;
    match problem {
        Problem::Diagnostics(records) => {
            let mut all = Diagnostics::default();
            for record in records {
                let at = npu_core::variants::location(path, record);
                let message = format!("{at}: {}", record.message);
                let mut diagnostic = Diagnostic::new(record.code, variants.path_span, message);
                for note in &record.notes {
                    diagnostic = diagnostic.note(note.as_str());
                }
                if let Some(help) = &record.help {
                    diagnostic = diagnostic.help(help.as_str());
                }
                all.push(diagnostic);
            }
            all
        }
        stale => error(variants, stale.render(path)),
    }
}

/// An E034 at the `variants` line's path.
fn error(variants: &VariantsRef, message: String) -> Diagnostics {
    Diagnostic::new(Code::E034, variants.path_span, message).into()
}

/// A use of a deprecated constant, which rustc reports as a warning at the path.
fn missing_warning(def: &KernelDef, variants: &VariantsRef) -> TokenStream {
    let note = format!(
        "kernel `{}` asks for variants from \"{}\", which does not exist yet: it has only its hand schedules; a build.rs with `npu::build::Variants` writes the file",
        crate::expand::unraw(&def.name),
        variants.path
    );
    // The constant's use carries the path's span: rustc puts the warning where the
    // deprecated item is used, so without it the warning would point at the macro call.
    let constant = format_ident!(
        "VARIANTS_FILE_MISSING_{}",
        crate::expand::unraw(&def.name),
        span = variants.path_span
    );
    quote_spanned!(variants.path_span=>
        const _: () = {
            #[deprecated(note = #note)]
            #[allow(non_upper_case_globals)]
            const #constant: () = ();
            #constant
        };
    )
}

/// Makes proc-macro2 parse text with its own implementation while it lives, so that
/// spans carry the text's lines and columns. Inside rustc, text would otherwise become
/// the compiler's tokens, all at the macro call.
struct TextSpans;

impl TextSpans {
    fn force() -> TextSpans {
        proc_macro2::fallback::force();
        TextSpans
    }
}

impl Drop for TextSpans {
    fn drop(&mut self) {
        proc_macro2::fallback::unforce();
    }
}

#[cfg(test)]
mod tests;
