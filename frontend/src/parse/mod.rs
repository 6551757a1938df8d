//! The pest grammar of RPSL and the lowering of pest pairs into the AST.
//!
//! Parsing never fails: [`parse_module`] always returns a [`Module`] and reports syntax errors as
//! diagnostics. Two pest grammars accept the same language: `grammar.pest`, tuned for speed,
//! parses; `grammar_reference.pest`, written plainly, is re-run on an item that failed to describe
//! the error (pest's account of a failure depends on the rule structure, and the messages are
//! designed for the plain one). The parser only sees ASCII text (see `ascii_view`). The expanded
//! text is parsed one top-level item at a time (the grammar's `item` rule). When an item has a
//! syntax error, the error is reported and the parser skips to the next item boundary: just after
//! the next `;` outside braces, or just after the `}` that closes the item's first brace (and a `;`
//! right after it). So several errors per file are reported, one per broken item. A large text's
//! items are parsed on several threads (`items.rs`), with exactly the sequential result. The
//! input is preprocessed text: the grammar has no comment rule (the preprocessor turns comments
//! into blanks), though comments between items are skipped.
//!
//! Nesting limits keep the recursive-descent parser and every later recursive pass off the end of
//! the stack: an item whose brackets nest deeper than [`MAX_BRACKET_DEPTH`] is rejected before it
//! is parsed, so is an item whose statements and conditional expressions nest without brackets
//! more than [`MAX_UNBRACKETED_NESTING`] deep (counted by keywords, conservatively), and
//! expressions and statements deeper than [`MAX_EXPR_DEPTH`] /
//! [`MAX_STMT_DEPTH`] are rejected while lowering.
//!
//! # Casts
//! `(T) operand` is a cast when `T` is a built-in type (a scalar, vector or matrix type such as
//! `float4`, `uint64_t`, `float4x3`; `texture`, `buffer`, `node`, `void`; `unsigned int`;
//! `vector<..>`/`matrix<..>`), whatever follows. When `T` is any other single identifier, the
//! parenthesized name is a cast only when the next token starts a primary expression that could
//! not continue a parenthesized expression: a word, a numeric literal or `(`. So `(MyType)x` and
//! `(MyType)(a + b)` are casts but `(x) - y`, `(x) * y` and `(x)[i]` are not; casting a
//! user type with a leading `-`, `+`, `!` or `~` on the operand needs parentheses:
//! `(MyType)(-x)`.

mod errors;
mod expr;
mod extent;
mod item;
mod items;
pub mod print;
mod stmt;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_corpus;
#[cfg(test)]
mod tests_errors;
#[cfg(test)]
mod tests_grammars;
#[cfg(test)]
mod tests_items;

use std::borrow::Cow;

use crate::ast::Module;
use crate::diagnostic::Diagnostic;
use crate::preprocess::{Expanded, SourceMap};
use crate::source::Span;

pub use extent::MAX_UNBRACKETED_NESTING;

/// The reserved words of RPSL: never identifiers (they may still be attribute names and
/// arguments, member names and semantics).
pub const KEYWORDS: &[&str] = &[
    "struct", "enum", "typedef", "static", "const", "export", "inout", "in", "out", "if", "else",
    "for", "while", "do", "switch", "case", "default", "break", "continue", "return", "true",
    "false", "null", "sizeof", "async", "graphics", "compute", "copy", "unsigned", "signed",
];

/// Whether `word` is one of [`KEYWORDS`] (a `match`, cheaper than a search of the list).
pub(crate) fn is_keyword(word: &str) -> bool {
    matches!(
        word,
        "struct"
            | "enum"
            | "typedef"
            | "static"
            | "const"
            | "export"
            | "inout"
            | "in"
            | "out"
            | "if"
            | "else"
            | "for"
            | "while"
            | "do"
            | "switch"
            | "case"
            | "default"
            | "break"
            | "continue"
            | "return"
            | "true"
            | "false"
            | "null"
            | "sizeof"
            | "async"
            | "graphics"
            | "compute"
            | "copy"
            | "unsigned"
            | "signed"
    )
}

/// The most brackets (`(`, `[`, `{` together) that may be open at once inside one item.
pub const MAX_BRACKET_DEPTH: usize = 64;

/// The deepest expression tree the parser builds (operands of long operator chains count too).
pub const MAX_EXPR_DEPTH: u32 = 256;

/// The deepest statement nesting the parser accepts (`else if` chains count).
pub const MAX_STMT_DEPTH: u32 = 128;

/// The generated parser lives in a private module so that its `Rule` enum stays crate-internal.
mod generated {
    /// The pest parser generated from `grammar.pest`.
    #[derive(pest_derive::Parser)]
    #[grammar = "parse/grammar.pest"]
    pub(crate) struct RpslParser;
}

pub(crate) use generated::{RpslParser, Rule};

/// The parser generated from `grammar_reference.pest`: the same language without the speed-ups,
/// run only to describe syntax errors (see `errors.rs`).
mod reference {
    /// The pest parser generated from `grammar_reference.pest`.
    #[derive(pest_derive::Parser)]
    #[grammar = "parse/grammar_reference.pest"]
    pub(crate) struct ReferenceParser;
}

/// Parses a preprocessed translation unit into a module, appending syntax errors to
/// `diagnostics`. Items with syntax errors are left out of the module.
///
/// ```
/// use rpsl_frontend::parse::parse_module;
/// use rpsl_frontend::preprocess::Expanded;
/// let expanded = Expanded { text: "node f(texture t);\n".to_string(), ..Default::default() };
/// let mut diagnostics = Vec::new();
/// let module = parse_module(&expanded, &mut diagnostics);
/// assert!(diagnostics.is_empty());
/// assert_eq!(module.items.len(), 1);
/// ```
pub fn parse_module(expanded: &Expanded, diagnostics: &mut Vec<Diagnostic>) -> Module {
    // pest recurses once per nesting level, and its stack use per level is large in unoptimized
    // builds; the nesting limits bound the depth, and a thread with a stack of known size makes
    // that bound safe whatever the caller's stack (the spawn costs microseconds). Should the
    // thread not start, the parse runs on the caller's stack.
    std::thread::scope(|scope| {
        let parser = std::thread::Builder::new()
            .name("rpsl-parse".to_string())
            .stack_size(PARSER_STACK_BYTES)
            .spawn_scoped(scope, || {
                let mut thread_diagnostics = Vec::new();
                let module = parse_module_here(expanded, &mut thread_diagnostics);
                (module, thread_diagnostics)
            });
        match parser.map(|handle| handle.join()) {
            Ok(Ok((module, thread_diagnostics))) => {
                diagnostics.extend(thread_diagnostics);
                module
            }
            // The parser never panics; if it did, the panic carries on in the caller.
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
            Err(_) => parse_module_here(expanded, diagnostics),
        }
    })
}

/// The stack of the parser thread: enough for [`MAX_BRACKET_DEPTH`] brackets and
/// [`MAX_UNBRACKETED_NESTING`] unbracketed levels in an unoptimized build.
const PARSER_STACK_BYTES: usize = 64 << 20;

/// [`parse_module`] on the current thread's stack (and on helper threads of its own).
fn parse_module_here(expanded: &Expanded, diagnostics: &mut Vec<Diagnostic>) -> Module {
    let text = expanded.text.as_str();
    let parse_text = ascii_view(text);
    let source = items::Source {
        text,
        parse_text: &parse_text,
        map: &expanded.map,
    };
    items::parse_items(source, diagnostics)
}

/// The text the grammar runs on: `text` itself when it is ASCII without the control characters
/// U+000E to U+001F (the usual case), otherwise a copy in which each of those bytes, and every
/// byte of every non-ASCII character, is replaced by `@`. No grammar rule matches a non-ASCII
/// character, one of those control characters or `@`, so the parse (its pairs, its failure
/// positions and the rules and tokens it attempted) is the same on both texts; byte offsets are
/// kept. The fast grammar relies on this: its Unicode property tests (`XID_START`,
/// `XID_CONTINUE`) equal the ASCII character classes only on ASCII text, and its blank test is
/// the one range `\t`..` ` (U+0009 to U+0020), which equals the six blanks once the control
/// characters between them are masked.
pub(crate) fn ascii_view(text: &str) -> Cow<'_, str> {
    let masked_byte = |byte: u8| !byte.is_ascii() || (0x0E..=0x1F).contains(&byte);
    if !text.bytes().any(masked_byte) {
        return Cow::Borrowed(text);
    }
    let masked: String = text
        .bytes()
        .map(|byte| if masked_byte(byte) { '@' } else { byte as char })
        .collect();
    Cow::Owned(masked)
}

/// Skips blanks and comments from `pos`; returns the offset of the next token (or the end).
pub(crate) fn skip_trivia(text: &str, mut pos: usize) -> usize {
    let bytes = text.as_bytes();
    while pos < bytes.len() {
        match bytes[pos] {
            b' ' | b'\t' | b'\r' | b'\n' | 0x0B | 0x0C => pos += 1,
            b'/' if matches!(bytes.get(pos + 1), Some(b'/') | Some(b'*')) => {
                pos = skip_comment(text, pos)
            }
            _ => break,
        }
    }
    pos
}

/// Skips the comment starting at `pos` (which must start with `//` or `/*`).
pub(crate) fn skip_comment(text: &str, pos: usize) -> usize {
    let rest = &text[pos + 2..];
    if text.as_bytes()[pos + 1] == b'/' {
        pos + 2 + rest.find('\n').unwrap_or(rest.len())
    } else {
        pos + 2 + rest.find("*/").map(|i| i + 2).unwrap_or(rest.len())
    }
}

/// The lowering of one item's pest pairs into AST nodes.
pub(crate) struct Lowerer<'a> {
    /// Offset of the parsed item in the expanded text (pest positions are relative to it).
    base: usize,
    /// Maps expanded-text offsets to original spans.
    map: &'a SourceMap,
    /// Where lowering errors go.
    diagnostics: &'a mut Vec<Diagnostic>,
    /// How many statements enclose the one being lowered.
    stmt_depth: u32,
    /// The operator-precedence stacks, shared by all expressions (allocated once per parse).
    stacks: &'a mut ExprStacks,
}

/// The shunting-yard stacks of expression lowering (see `expr.rs`), kept between expressions and
/// items so that lowering an expression allocates nothing for them.
#[derive(Default)]
pub(crate) struct ExprStacks {
    /// Operands waiting for their operator.
    operands: Vec<expr::Tree>,
    /// Operators waiting for their right operand.
    operators: Vec<expr::Infix>,
}

/// Lowering gave up on the current item; the reason is already in the diagnostics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Abort;

/// The result of lowering a piece of an item.
pub(crate) type Lowered<T> = Result<T, Abort>;

impl<'a> Lowerer<'a> {
    fn new(
        base: usize,
        map: &'a SourceMap,
        diagnostics: &'a mut Vec<Diagnostic>,
        stacks: &'a mut ExprStacks,
    ) -> Self {
        // An item whose lowering gave up may have left entries behind.
        stacks.operands.clear();
        stacks.operators.clear();
        Lowerer {
            base,
            map,
            diagnostics,
            stmt_depth: 0,
            stacks,
        }
    }

    /// The original span of a pest span of the current item.
    pub(crate) fn span(&self, span: pest::Span<'_>) -> Span {
        self.map.span(
            (self.base + span.start()) as u32,
            (self.base + span.end()) as u32,
        )
    }

    /// Reports an error and gives up on the item.
    pub(crate) fn abort(&mut self, diagnostic: Diagnostic) -> Abort {
        self.diagnostics.push(diagnostic);
        Abort
    }

    /// Reports an error but keeps lowering the item.
    pub(crate) fn report(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }
}
