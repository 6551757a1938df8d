//! The C-style preprocessor of RPSL (as DXC's for HLSL): comments, line continuations, object- and
//! function-like macros, conditionals and includes; maps the expanded text back to original file
//! locations.
//!
//! # Use
//! ```
//! use rpsl_frontend::preprocess::{MemoryLoader, Preprocessor};
//! use rpsl_frontend::source::SourceFiles;
//!
//! let mut files = SourceFiles::new();
//! let root = files.add("a.rpsl", "#define N 4\nuint x = N; // four\n".to_string());
//! let mut pp = Preprocessor::new();
//! pp.define("__RPSL__", "1");
//! let (expanded, diagnostics) = pp.run(&mut files, root, &MemoryLoader::new());
//! assert!(diagnostics.is_empty());
//! assert_eq!(expanded.text, "\nuint x = 4; \n");
//! // `4` maps back to the invocation `N` on line 2.
//! assert_eq!(files.location(expanded.map.span(10, 11)), "a.rpsl:2:10");
//! assert_eq!(expanded.map.expansion(10).unwrap().macro_name, "N");
//! ```
//!
//! Macros persist across [`Preprocessor::run`] calls, so a prelude can be preprocessed first and
//! its macros used by the script preprocessed next.
//!
//! # Output
//! Text that is not a macro invocation is copied verbatim (comments become one space plus their
//! newlines; continuation lines are joined). Directive lines and skipped groups leave only their
//! newlines, so lines keep their numbers unless a macro's arguments or a line continuation span
//! lines (the source map is exact either way). Tokens produced by a macro are separated by one
//! space where the source had whitespace or where they would otherwise run together.
//!
//! # Diagnostics (exact messages)
//! Errors about a directive as a whole point at `#NAME` (from the `#` to the end of the name);
//! errors about a token point at that token (for a token produced by a macro: the invocation).
//! `DIR` is the directive's name (`if`, `elif`, `ifdef`, ...); `X`, `F`, `N`, `PATH` are names.
//! ```text
//! error   unterminated block comment                            at the `/*`
//! error   unknown preprocessor directive `#foo`                 also `#!` for non-identifiers
//! error   missing macro name in `#define`                       also `#undef`, `#ifdef`, `#ifndef`
//! error   macro name must be an identifier                      at the token
//! error   `defined` cannot be used as a macro name
//! error   expected macro parameter name                         at the token, or the last one
//! error   expected `,` or `)` in macro parameter list
//! error   duplicate macro parameter `x`
//! error   expected `)` after `...` in macro parameter list
//! error   `##` cannot appear at either end of a macro body
//! error   `#` must be followed by a macro parameter
//! warning macro `X` redefined                                   at the new name; secondary label
//!                                                               "previous definition is here"
//! error   extra tokens after macro name in `#ifdef`             also `#ifndef`, `#undef`
//! warning extra tokens after `#else`                            also `#endif`, `#include` file name
//! error   unterminated argument list invoking macro `F`         at the macro name
//! error   macro `F` takes 2 arguments but 3 were given          at `F(...)`; "1 argument", "1 was",
//!                                                               "takes at least N" for `...`
//! error   pasting `a` and `+` does not give a valid token       at the invocation
//! error   macro expansion is too large (more than 1048576 tokens)
//! error   macro arguments are nested too deeply (more than 128)
//! error   `#else` without `#if`                                 also `#elif`, `#endif`
//! error   `#elif` after `#else`                                 also `#else` after `#else`; secondary
//!                                                               label "the conditional starts here"
//! error   missing `#endif` for `#if`                            also `#ifdef`, `#ifndef`; at the
//!                                                               opening directive
//! error   missing expression in `#DIR`                          `#if` / `#elif` with nothing after
//! error   expected value in `#DIR` expression                   at the token, or just after the last
//! error   expected `)` in `#DIR` expression
//! error   expected `:` in `#DIR` expression
//! error   unexpected token `X` in `#DIR` expression
//! error   division by zero in `#DIR` expression                 at the operator
//! error   remainder by zero in `#DIR` expression
//! error   floating-point number in `#DIR` expression
//! error   invalid integer `09` in `#DIR` expression
//! error   integer `N` is too large in `#DIR` expression
//! error   `#DIR` expression is nested too deeply
//! error   expected macro name after `defined`
//! error   expected `)` after macro name in `defined`
//! error   expected "FILE" or <FILE> after `#include`
//! error   empty file name in `#include`
//! error   cannot find included file `x.rpsl`                    at the file name (as written)
//! error   cannot include `x.rpsl`: it lies outside the include directories
//!                                                               note "includes resolve only inside
//!                                                               `dir`, `inc` (after `..` and
//!                                                               symbolic links)"
//! error   cannot include `x.rpsl`: it is a FIFO, not a regular file
//!                                                               also "a directory", "a character
//!                                                               device", "a block device", "a
//!                                                               socket", "a file under /proc"
//!                                                               (`/sys`, `/dev`)
//! error   cannot include `x.rpsl`: it is larger than 4194304 bytes
//! error   cannot read included file `x.rpsl`: IO ERROR
//! error   too many `#include`s (more than 1024 in one script)   once, at the first refused one
//! error   preprocessed text is too large (more than 16777216 bytes)
//!                                                               once; the text stops there
//! error   `#include` nested too deeply (more than 64 levels)
//! error   `#include` cycle: `PATH` is already being included    note "include chain: a.rpsl -> b.rpsl -> a.rpsl"
//! error   #error TEXT                                           the directive's tokens, single-spaced
//! warning #warning TEXT
//! error   file is too large to preprocess
//! ```
//!
//! `#pragma` is ignored except `#pragma once`; `#line` and `# 12 "file"` markers are ignored. A file
//! that is included again while it is still open is skipped silently when it starts with an
//! include guard (`#ifndef X`) whose macro is now defined.

mod directive;
mod driver;
mod expand;
mod expr;
mod lexer;
mod loader;
mod macros;
mod map;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_errors;
#[cfg(test)]
mod tests_policy;

use crate::diagnostic::Diagnostic;
use crate::source::{FileId, SourceFiles};
use driver::{Run, State};
pub use loader::{
    read_source_file, FileLoader, FsLoader, IncludePolicy, LoadError, LoadRequest, MemoryLoader,
    SourceLimits, MAX_INCLUDE_DEPTH,
};
pub(crate) use macros::WordHasher;
pub use map::{Expansion, ExpansionId, SourceMap};

/// The output of preprocessing one translation unit.
#[derive(Debug, Default)]
pub struct Expanded {
    /// The expanded text that the parser reads.
    pub text: String,
    /// Where each part of `text` came from.
    pub map: SourceMap,
    /// Whether the text stops short because it reached
    /// [`SourceLimits::max_preprocessed_bytes`] (an error says so); the driver then parses none of it.
    pub truncated: bool,
}

/// A preprocessor whose macros persist from one [`Preprocessor::run`] to the next. A clone carries
/// the macros defined so far (the driver clones the state after the prelude).
#[derive(Clone, Debug, Default)]
pub struct Preprocessor {
    state: State,
    /// `#define` lines from [`Preprocessor::define`] not yet processed.
    predefined: String,
    /// Include roots and limits.
    policy: IncludePolicy,
}

impl Preprocessor {
    /// A preprocessor with no macros.
    pub fn new() -> Preprocessor {
        Preprocessor::default()
    }

    /// Predefines a macro as if by `#define NAME BODY` (`name` may carry a parameter list, as in
    /// `"MAX(a, b)"`). It takes effect at the next [`Preprocessor::run`], where it is read from a
    /// file named `<predefined>` that is added to the run's `SourceFiles`.
    pub fn define(&mut self, name: &str, body: &str) {
        let body = body.replace(['\n', '\r'], " ");
        self.predefined
            .push_str(&format!("#define {name} {body}\n"));
    }

    /// Sets the include directories and limits of the following runs.
    pub fn set_policy(&mut self, policy: IncludePolicy) {
        self.policy = policy;
    }

    /// The include directories and limits in force.
    pub fn policy(&self) -> &IncludePolicy {
        &self.policy
    }

    /// Whether a macro of this name is defined now (not counting pending [`Preprocessor::define`]s).
    pub fn is_defined(&self, name: &str) -> bool {
        self.state
            .interner
            .lookup(name)
            .is_some_and(|sym| self.state.macros.get(sym).is_some())
    }

    /// Preprocesses `root` (already in `files`). Included files are looked up next to the
    /// including file, then in each include directory of the [`IncludePolicy`], loaded through
    /// `loader` and added to `files`; a path loaded before is reused. Includes resolve only inside
    /// `root`'s directory and the include directories. Never fails: problems come back as diagnostics, and the output is whatever could be
    /// made of the input.
    pub fn run(
        &mut self,
        files: &mut SourceFiles,
        root: FileId,
        loader: &dyn FileLoader,
    ) -> (Expanded, Vec<Diagnostic>) {
        let predefined = std::mem::take(&mut self.predefined);
        let mut run = Run::new(&mut self.state, &self.policy, files, loader, root);
        if !predefined.is_empty() {
            let id = run.files.add("<predefined>", predefined);
            run.process_file(id);
            run.out.clear();
            run.map.clear_segments();
            run.after_expansion = false;
        }
        if (root.0 as usize) < run.files.len() {
            run.process_file(root);
        }
        let Run {
            out,
            map,
            diags,
            truncated,
            ..
        } = run;
        for active in &mut self.state.macros.active {
            *active = false;
        }
        let map = map.finish(out.len());
        (
            Expanded {
                text: out,
                map,
                truncated,
            },
            diags,
        )
    }
}
