//! One preprocessing run: walks a file line by line, copies unexpanded text verbatim (with its
//! source map), hands directive lines to `directive.rs` and macro invocations to `expand.rs`.

use std::collections::HashSet;
use std::path::PathBuf;

use super::expand::Context;
use super::lexer::{Lexer, Raw, RawKind, Spliced};
use super::loader::{normalize, MAX_INCLUDE_DEPTH};
use super::macros::{Interner, Kind, MacroTable, Sym, Tok};
use super::map::MapBuilder;
use super::{FileLoader, IncludePolicy};
use crate::diagnostic::Diagnostic;
use crate::source::{FileId, SourceFiles, Span};

/// Limits that keep hostile input linear and panic-free.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// Most tokens that macro expansions may produce in one run.
    pub expansion_tokens: usize,
    /// Deepest nesting of macro invocations inside macro arguments.
    pub argument_depth: usize,
    /// Deepest parenthesis nesting in a `#if` expression.
    pub expression_depth: usize,
}

pub(crate) const LIMITS: Limits = Limits {
    expansion_tokens: 1 << 20,
    argument_depth: 128,
    expression_depth: 256,
};

/// What survives from one run to the next on a `Preprocessor`.
#[derive(Clone, Debug, Default)]
pub(crate) struct State {
    pub interner: Interner,
    pub macros: MacroTable,
    /// Files that said `#pragma once`.
    pub once: HashSet<PathBuf>,
}

/// A file being preprocessed: its spliced text.
pub(crate) struct SrcFile {
    pub id: FileId,
    pub spliced: Spliced,
}

impl SrcFile {
    /// The original span of a spliced range.
    pub(crate) fn span(&self, start: u32, end: u32) -> Span {
        let (s, e) = self.spliced.original_range(start, end);
        Span::new(self.id, s, e)
    }
}

/// The current file and its lexer, which the expander reads when a macro's arguments continue in
/// the source text.
pub(crate) struct Src<'s, 't> {
    pub file: &'t SrcFile,
    pub lex: &'s mut Lexer<'t>,
}

/// A file on the include stack.
pub(crate) struct OpenFile {
    pub id: FileId,
    /// The macro of an `#ifndef X` that opens the file (an include guard), once seen.
    pub guard: Option<Sym>,
    /// Whether anything but trivia came before (so a later `#ifndef` is no guard).
    pub seen_content: bool,
    /// Number of conditionals open when the file was entered.
    pub cond_base: usize,
}

/// State of one `#if` group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CondState {
    /// In the group being taken.
    Taking,
    /// No group taken yet; a later `#elif`/`#else` may be.
    Searching,
    /// A group was taken already, or the whole conditional is inside a skipped group.
    Done,
}

/// One open conditional.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cond {
    pub state: CondState,
    pub seen_else: bool,
    /// The opening `#if`/`#ifdef`/`#ifndef` (from `#` to the name).
    pub opening: Span,
    pub name: &'static str,
    /// Whether the text around the conditional is kept.
    pub parent_active: bool,
}

/// Everything one `Preprocessor::run` works with.
pub(crate) struct Run<'a> {
    pub st: &'a mut State,
    pub policy: &'a IncludePolicy,
    /// The directories includes may resolve into: the root file's, then the include directories
    /// (lexically normalized).
    pub roots: Vec<PathBuf>,
    /// `#include`s carried out so far.
    pub inclusions: usize,
    pub inclusions_reported: bool,
    /// Whether the output reached the preprocessed-size limit (reported once; nothing more is
    /// emitted and no further line is read).
    pub truncated: bool,
    pub files: &'a mut SourceFiles,
    pub loader: &'a dyn FileLoader,
    pub out: String,
    pub map: MapBuilder,
    pub diags: Vec<Diagnostic>,
    pub open_files: Vec<OpenFile>,
    pub conds: Vec<Cond>,
    pub ctx: Vec<Context>,
    pub tokens_left: usize,
    pub budget_reported: bool,
    pub arg_depth: usize,
    pub arg_depth_reported: bool,
    /// Whether the last output came from a macro expansion (so following source text may need a
    /// separating space).
    pub after_expansion: bool,
}

impl<'a> Run<'a> {
    pub(crate) fn new(
        st: &'a mut State,
        policy: &'a IncludePolicy,
        files: &'a mut SourceFiles,
        loader: &'a dyn FileLoader,
        root: FileId,
    ) -> Run<'a> {
        let root_dir = if (root.0 as usize) < files.len() {
            files.get(root).path.parent().map(normalize)
        } else {
            None
        };
        let roots = root_dir
            .into_iter()
            .chain(policy.include_dirs.iter().map(|dir| normalize(dir)))
            .collect();
        Run {
            st,
            policy,
            roots,
            inclusions: 0,
            inclusions_reported: false,
            truncated: false,
            files,
            loader,
            out: String::new(),
            map: MapBuilder::new(root),
            diags: Vec::new(),
            open_files: Vec::new(),
            conds: Vec::new(),
            ctx: Vec::new(),
            tokens_left: LIMITS.expansion_tokens,
            budget_reported: false,
            arg_depth: 0,
            arg_depth_reported: false,
            after_expansion: false,
        }
    }

    /// Whether text at this point is being kept (all enclosing conditionals are taken).
    pub(crate) fn active(&self) -> bool {
        self.conds
            .last()
            .is_none_or(|c| c.state == CondState::Taking)
    }

    /// A token from a raw token of the current file.
    pub(crate) fn make_tok(
        &mut self,
        file: &SrcFile,
        text: &str,
        raw: Raw,
        space_before: bool,
    ) -> Tok {
        let kind = match raw.kind {
            RawKind::Ident => Kind::Ident,
            RawKind::Number => Kind::Number,
            RawKind::Str => Kind::Str,
            RawKind::Char => Kind::Char,
            RawKind::Punct => Kind::Punct,
            _ => Kind::Other,
        };
        let sym = self
            .st
            .interner
            .intern(&text[raw.start as usize..raw.end as usize]);
        Tok {
            kind,
            sym,
            span: file.span(raw.start, raw.end),
            expansion: None,
            space_before,
            painted: false,
        }
    }

    /// Reports an unterminated block comment that starts at `raw`.
    pub(crate) fn unterminated_comment(&mut self, file: &SrcFile, raw: Raw) {
        let span = file.span(raw.start, raw.start + 2);
        self.diags
            .push(Diagnostic::error(span, "unterminated block comment"));
    }

    /// The deepest `#include` nesting allowed.
    pub(crate) fn max_include_depth(&self) -> usize {
        self.policy.limits.max_include_depth.min(MAX_INCLUDE_DEPTH)
    }

    /// Whether `extra` more bytes of output stay within the preprocessed-size limit; the first
    /// time they would not, reports it at `span` and stops the run's output.
    pub(crate) fn has_room(&mut self, extra: usize, span: Span) -> bool {
        if self.truncated {
            return false;
        }
        let limit = self.policy.limits.max_preprocessed_bytes;
        if self.out.len() + extra <= limit {
            return true;
        }
        self.truncated = true;
        let message = format!("preprocessed text is too large (more than {limit} bytes)");
        self.diags.push(Diagnostic::error(span, message));
        false
    }

    /// Copies spliced text `start..end` of `file` to the output, mapped byte for byte.
    pub(crate) fn copy_source(&mut self, file: &SrcFile, start: u32, end: u32) {
        if end <= start || !self.has_room((end - start) as usize + 1, file.span(start, start)) {
            return;
        }
        let text = &file.spliced.text;
        if self.after_expansion {
            self.after_expansion = false;
            let next = text.as_bytes()[start as usize];
            if let Some(&prev) = self.out.as_bytes().last() {
                if needs_space(prev, next) {
                    self.map
                        .fixed(self.out.len(), file.span(start, start), None);
                    self.out.push(' ');
                }
            }
        }
        let out = &mut self.out;
        let map = &mut self.map;
        file.spliced.pieces(start, end, |a, b, orig| {
            map.linear(out.len(), file.id, orig);
            out.push_str(&text[a as usize..b as usize]);
        });
    }

    /// Emits only the newlines of spliced range `start..end` (for directive lines, skipped lines
    /// and comments), so the output keeps the line structure.
    pub(crate) fn copy_newlines(&mut self, file: &SrcFile, start: u32, end: u32) {
        let bytes = file.spliced.text.as_bytes();
        for i in start..end {
            if bytes[i as usize] == b'\n' {
                self.map
                    .linear(self.out.len(), file.id, file.spliced.original(i));
                self.out.push('\n');
            }
        }
    }

    /// Emits a comment in active text: one space, then the comment's newlines.
    fn copy_comment(&mut self, file: &SrcFile, raw: Raw) {
        self.map
            .linear(self.out.len(), file.id, file.spliced.original(raw.start));
        self.out.push(' ');
        self.copy_newlines(file, raw.start, raw.end);
    }

    /// Appends a token produced by a macro expansion, with a space where needed.
    pub(crate) fn emit_tok(&mut self, tok: Tok) {
        let length = self.st.interner.text(tok.sym).len();
        if !self.has_room(length + 1, tok.span) {
            return;
        }
        let text = self.st.interner.text(tok.sym);
        if let (Some(&prev), Some(&next)) = (self.out.as_bytes().last(), text.as_bytes().first()) {
            let after_space = matches!(prev, b' ' | b'\t' | b'\n' | b'\r');
            if !after_space && (tok.space_before || needs_space(prev, next)) {
                self.out.push(' ');
            }
        }
        self.map.fixed(self.out.len(), tok.span, tok.expansion);
        self.out.push_str(text);
        self.after_expansion = true;
    }

    /// Preprocesses one file: its text goes to the output, its directives take effect.
    pub(crate) fn process_file(&mut self, id: FileId) {
        let file = SrcFile {
            id,
            spliced: Spliced::new(&self.files.get(id).text),
        };
        if file.spliced.text.len() >= (u32::MAX / 2) as usize {
            self.diags.push(Diagnostic::error(
                Span::new(id, 0, 0),
                "file is too large to preprocess",
            ));
            return;
        }
        let text: &str = &file.spliced.text;
        let cond_base = self.conds.len();
        self.open_files.push(OpenFile {
            id,
            guard: None,
            seen_content: false,
            cond_base,
        });
        self.out.reserve(text.len() + text.len() / 4);
        let mut lex = Lexer::new(text);
        let mut copy_from: u32 = 0;
        'lines: loop {
            if self.truncated {
                break;
            }
            // At the start of a line: is it a directive?
            let line_start = lex.pos() as u32;
            let mut probe = lex;
            let first = probe.next_non_trivia();
            let active = self.active();
            if first.kind == RawKind::Punct
                && &text[first.start as usize..first.end as usize] == "#"
            {
                if active {
                    self.copy_source(&file, copy_from, line_start);
                }
                self.copy_newlines(&file, line_start, first.start);
                lex = probe;
                let hash = file.span(first.start, first.end);
                let toks = self.directive_tokens(&file, &mut lex);
                self.directive(&file, hash, toks);
                if let Some(open) = self.open_files.last_mut() {
                    open.seen_content = true;
                }
                copy_from = lex.pos() as u32;
                continue;
            }
            if !active {
                // Skipped text: keep only the newlines.
                loop {
                    let raw = lex.next_raw();
                    match raw.kind {
                        RawKind::Eof => break 'lines,
                        RawKind::Newline => {
                            self.copy_newlines(&file, raw.start, raw.end);
                            break;
                        }
                        RawKind::BlockComment => self.copy_newlines(&file, raw.start, raw.end),
                        RawKind::UnterminatedComment => self.unterminated_comment(&file, raw),
                        _ => {}
                    }
                }
                copy_from = lex.pos() as u32;
                continue;
            }
            // Active text: copy it, expanding macros.
            loop {
                let raw = lex.next_significant();
                match raw.kind {
                    RawKind::Eof => break 'lines,
                    RawKind::Newline => continue 'lines,
                    RawKind::Whitespace => {}
                    RawKind::LineComment => {
                        self.copy_source(&file, copy_from, raw.start);
                        copy_from = raw.end;
                    }
                    RawKind::BlockComment | RawKind::UnterminatedComment => {
                        if raw.kind == RawKind::UnterminatedComment {
                            self.unterminated_comment(&file, raw);
                        }
                        self.copy_source(&file, copy_from, raw.start);
                        self.copy_comment(&file, raw);
                        copy_from = raw.end;
                    }
                    RawKind::Ident => {
                        if let Some(open) = self.open_files.last_mut() {
                            open.seen_content = true;
                        }
                        let name = &text[raw.start as usize..raw.end as usize];
                        if !self.st.macros.may_name_macro(name) {
                            continue;
                        }
                        let Some(sym) = self.st.interner.lookup(name) else {
                            continue;
                        };
                        if self.st.macros.get(sym).is_none() {
                            continue;
                        }
                        self.copy_source(&file, copy_from, raw.start);
                        let tok = self.make_tok(&file, text, raw, false);
                        let mut src = Src {
                            file: &file,
                            lex: &mut lex,
                        };
                        if self.expand_from_source(tok, &mut src) {
                            copy_from = lex.pos() as u32;
                            if lex.at_line_start {
                                continue 'lines;
                            }
                        } else {
                            copy_from = raw.start;
                        }
                    }
                    _ => {
                        if let Some(open) = self.open_files.last_mut() {
                            open.seen_content = true;
                        }
                    }
                }
            }
        }
        if self.active() {
            self.copy_source(&file, copy_from, text.len() as u32);
        }
        for cond in self.conds.drain(cond_base..).collect::<Vec<_>>() {
            let message = format!("missing `#endif` for `#{}`", cond.name);
            self.diags.push(Diagnostic::error(cond.opening, message));
        }
        self.open_files.pop();
    }

    /// Reads the rest of a directive line as tokens; emits its newlines (the final one and those
    /// inside block comments).
    fn directive_tokens(&mut self, file: &SrcFile, lex: &mut Lexer<'_>) -> Vec<Tok> {
        let text = file.spliced.text.as_str();
        let mut toks = Vec::new();
        let mut space = false;
        loop {
            let raw = lex.next_raw();
            match raw.kind {
                RawKind::Eof => break,
                RawKind::Newline => {
                    self.copy_newlines(file, raw.start, raw.end);
                    break;
                }
                RawKind::Whitespace | RawKind::LineComment => space = true,
                RawKind::BlockComment => {
                    self.copy_newlines(file, raw.start, raw.end);
                    space = true;
                }
                RawKind::UnterminatedComment => {
                    self.unterminated_comment(file, raw);
                    space = true;
                }
                _ => {
                    let tok = self.make_tok(file, text, raw, space);
                    toks.push(tok);
                    space = false;
                }
            }
        }
        toks
    }
}

/// Whether two adjacent bytes from different tokens would merge into one token if not separated.
pub(crate) fn needs_space(prev: u8, next: u8) -> bool {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c >= 0x80;
    let joining_punct = |c: u8| {
        matches!(
            c,
            b'+' | b'-'
                | b'*'
                | b'/'
                | b'%'
                | b'<'
                | b'>'
                | b'='
                | b'!'
                | b'&'
                | b'|'
                | b'^'
                | b'#'
                | b':'
                | b'.'
                | b'?'
                | b'~'
        )
    };
    (word(prev) && word(next)) || (joining_punct(prev) && joining_punct(next))
}
