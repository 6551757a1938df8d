//! Directive lines: conditionals (always tracked, even in skipped groups), and in taken groups
//! `#define`, `#undef`, `#include`, `#error`, `#warning`, `#pragma`, `#line`.

use std::path::{Path, PathBuf};

use super::driver::{Cond, CondState, Run, SrcFile};
use super::loader::{lexically_inside, normalize, LoadError, LoadRequest};
use super::macros::{check_macro_name, parse_define, Kind, Tok};
use crate::diagnostic::Diagnostic;
use crate::source::Span;

/// The directives the preprocessor knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Directive {
    If,
    Ifdef,
    Ifndef,
    Elif,
    Else,
    Endif,
    Define,
    Undef,
    Include,
    Error,
    Warning,
    Pragma,
    Line,
}

impl Directive {
    fn from_name(name: &str) -> Option<Directive> {
        Some(match name {
            "if" => Directive::If,
            "ifdef" => Directive::Ifdef,
            "ifndef" => Directive::Ifndef,
            "elif" => Directive::Elif,
            "else" => Directive::Else,
            "endif" => Directive::Endif,
            "define" => Directive::Define,
            "undef" => Directive::Undef,
            "include" => Directive::Include,
            "error" => Directive::Error,
            "warning" => Directive::Warning,
            "pragma" => Directive::Pragma,
            "line" => Directive::Line,
            _ => return None,
        })
    }
}

impl Run<'_> {
    /// Carries out one directive line: `hash` is the `#`, `toks` the rest of the line.
    pub(crate) fn directive(&mut self, file: &SrcFile, hash: Span, toks: Vec<Tok>) {
        let Some(&first) = toks.first() else { return };
        let directive_span = hash.to(first.span);
        let rest = &toks[1..];
        let known = match first.kind {
            Kind::Ident => Directive::from_name(self.st.interner.text(first.sym)),
            _ => None,
        };
        let active = self.active();
        match known {
            Some(Directive::If | Directive::Ifdef | Directive::Ifndef) => {
                let (name, directive) = match known {
                    Some(Directive::If) => ("if", Directive::If),
                    Some(Directive::Ifdef) => ("ifdef", Directive::Ifdef),
                    _ => ("ifndef", Directive::Ifndef),
                };
                let state = if !active {
                    CondState::Done
                } else {
                    let taken = match directive {
                        Directive::If => self.eval_condition("if", directive_span, rest),
                        _ => self.ifdef_condition(name, directive_span, rest),
                    };
                    if taken {
                        CondState::Taking
                    } else {
                        CondState::Searching
                    }
                };
                if directive == Directive::Ifndef && active {
                    self.note_guard(rest);
                }
                let parent_active = active;
                self.conds.push(Cond {
                    state,
                    seen_else: false,
                    opening: directive_span,
                    name,
                    parent_active,
                });
            }
            Some(Directive::Elif) => self.elif(directive_span, rest),
            Some(Directive::Else) => self.else_(directive_span, rest),
            Some(Directive::Endif) => {
                let Some(cond) = self.open_cond() else {
                    self.diags
                        .push(Diagnostic::error(directive_span, "`#endif` without `#if`"));
                    return;
                };
                if cond.parent_active {
                    self.extra_tokens_warning(rest, "`#endif`");
                }
                self.conds.pop();
            }
            _ if !active => {}
            Some(Directive::Define) => self.define(directive_span, rest),
            Some(Directive::Undef) => {
                if let Some(name) = self.macro_name_operand("undef", directive_span, rest) {
                    self.st.macros.undefine(name.sym);
                }
            }
            Some(Directive::Include) => self.include(file, directive_span, rest),
            Some(Directive::Error) => {
                let message = self.directive_message("#error", rest);
                self.diags.push(Diagnostic::error(directive_span, message));
            }
            Some(Directive::Warning) => {
                let message = self.directive_message("#warning", rest);
                self.diags
                    .push(Diagnostic::warning(directive_span, message));
            }
            Some(Directive::Pragma) => {
                if rest
                    .first()
                    .is_some_and(|t| self.st.interner.text(t.sym) == "once")
                {
                    let path = self.files.get(file.id).path.clone();
                    self.st.once.insert(normalize(&path));
                }
            }
            // `#line N "file"` and GNU line markers (`# 12 "file"`) are accepted and ignored.
            Some(Directive::Line) => {}
            None if first.kind == Kind::Number => {}
            None => {
                let text = self.st.interner.text(first.sym);
                let message = format!("unknown preprocessor directive `#{text}`");
                self.diags.push(Diagnostic::error(directive_span, message));
            }
        }
    }

    /// The innermost conditional opened in the current file.
    fn open_cond(&self) -> Option<Cond> {
        let base = self.open_files.last().map_or(0, |f| f.cond_base);
        if self.conds.len() > base {
            self.conds.last().copied()
        } else {
            None
        }
    }

    fn elif(&mut self, directive_span: Span, rest: &[Tok]) {
        let Some(cond) = self.open_cond() else {
            self.diags
                .push(Diagnostic::error(directive_span, "`#elif` without `#if`"));
            return;
        };
        let state = if cond.seen_else {
            let diag = Diagnostic::error(directive_span, "`#elif` after `#else`")
                .with_secondary(cond.opening, "the conditional starts here");
            self.diags.push(diag);
            CondState::Done
        } else {
            match cond.state {
                CondState::Taking | CondState::Done => CondState::Done,
                CondState::Searching => {
                    if self.eval_condition("elif", directive_span, rest) {
                        CondState::Taking
                    } else {
                        CondState::Searching
                    }
                }
            }
        };
        if let Some(top) = self.conds.last_mut() {
            top.state = state;
        }
    }

    fn else_(&mut self, directive_span: Span, rest: &[Tok]) {
        let Some(cond) = self.open_cond() else {
            self.diags
                .push(Diagnostic::error(directive_span, "`#else` without `#if`"));
            return;
        };
        let state = if cond.seen_else {
            let diag = Diagnostic::error(directive_span, "`#else` after `#else`")
                .with_secondary(cond.opening, "the conditional starts here");
            self.diags.push(diag);
            CondState::Done
        } else {
            if cond.parent_active {
                self.extra_tokens_warning(rest, "`#else`");
            }
            match cond.state {
                CondState::Searching => CondState::Taking,
                CondState::Taking | CondState::Done => CondState::Done,
            }
        };
        if let Some(top) = self.conds.last_mut() {
            top.state = state;
            top.seen_else = true;
        }
    }

    fn extra_tokens_warning(&mut self, rest: &[Tok], what: &str) {
        if let (Some(first), Some(last)) = (rest.first(), rest.last()) {
            let message = format!("extra tokens after {what}");
            self.diags
                .push(Diagnostic::warning(first.span.to(last.span), message));
        }
    }

    /// `#ifdef NAME` / `#ifndef NAME`: whether the group is taken.
    fn ifdef_condition(&mut self, name: &'static str, directive_span: Span, rest: &[Tok]) -> bool {
        let Some(tok) = self.macro_name_operand(name, directive_span, rest) else {
            return false;
        };
        let defined = self.st.macros.get(tok.sym).is_some();
        defined == (name == "ifdef")
    }

    /// The single macro name after `#ifdef`, `#ifndef` or `#undef`, or an error.
    fn macro_name_operand(
        &mut self,
        directive: &str,
        directive_span: Span,
        rest: &[Tok],
    ) -> Option<Tok> {
        let Some(&name) = rest.first() else {
            let message = format!("missing macro name in `#{directive}`");
            self.diags.push(Diagnostic::error(directive_span, message));
            return None;
        };
        if let Err(diag) = check_macro_name(&self.st.interner, &name) {
            self.diags.push(*diag);
            return None;
        }
        if let (Some(first), Some(last)) = (rest.get(1), rest.last()) {
            let message = format!("extra tokens after macro name in `#{directive}`");
            self.diags
                .push(Diagnostic::error(first.span.to(last.span), message));
        }
        Some(name)
    }

    /// Remembers `#ifndef X` as the include guard of the current file when nothing came before.
    fn note_guard(&mut self, rest: &[Tok]) {
        let Some(name) = rest.first().filter(|t| t.kind == Kind::Ident) else {
            return;
        };
        let at_file_level = self.conds.len() == self.open_files.last().map_or(0, |f| f.cond_base);
        if let Some(open) = self.open_files.last_mut() {
            if !open.seen_content && at_file_level {
                open.guard = Some(name.sym);
            }
        }
    }

    fn define(&mut self, directive_span: Span, rest: &[Tok]) {
        let def = match parse_define(&mut self.st.interner, directive_span, rest) {
            Ok(def) => def,
            Err(diag) => {
                self.diags.push(*diag);
                return;
            }
        };
        if let Some(old) = self.st.macros.get(def.name) {
            let old = self.st.macros.def(old);
            if !old.same_as(&def) {
                let message = format!("macro `{}` redefined", self.st.interner.text(def.name));
                let diag = Diagnostic::warning(def.span, message)
                    .with_secondary(old.span, "previous definition is here");
                self.diags.push(diag);
            }
        }
        let name = self.st.interner.text(def.name).to_string();
        self.st.macros.define(def, &name);
    }

    /// `#error` / `#warning` text: the directive followed by the line's tokens.
    fn directive_message(&self, directive: &str, rest: &[Tok]) -> String {
        let mut message = directive.to_string();
        for (k, tok) in rest.iter().enumerate() {
            if k == 0 || tok.space_before {
                message.push(' ');
            }
            message.push_str(self.st.interner.text(tok.sym));
        }
        message
    }

    fn include(&mut self, file: &SrcFile, directive_span: Span, rest: &[Tok]) {
        let mut toks = rest.to_vec();
        if toks.first().is_some_and(|t| t.kind == Kind::Ident) {
            toks = self.expand_list(toks);
        }
        let Some((name, name_span, used)) = self.include_name(&toks) else {
            let span = rest.first().map_or(directive_span, |t| t.span);
            self.diags.push(Diagnostic::error(
                span,
                "expected \"FILE\" or <FILE> after `#include`",
            ));
            return;
        };
        if let (Some(first), Some(last)) = (toks.get(used), toks.last()) {
            let span = if first.span.file == last.span.file {
                first.span.to(last.span)
            } else {
                first.span
            };
            self.diags.push(Diagnostic::warning(
                span,
                "extra tokens after `#include` file name",
            ));
        }
        if name.is_empty() {
            self.diags.push(Diagnostic::error(
                name_span,
                "empty file name in `#include`",
            ));
            return;
        }
        if self.truncated {
            return;
        }
        let max_depth = self.max_include_depth();
        if self.open_files.len() >= max_depth {
            let message = format!("`#include` nested too deeply (more than {max_depth} levels)");
            self.diags.push(Diagnostic::error(name_span, message));
            return;
        }
        let base = self
            .files
            .get(file.id)
            .path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let (path, loaded) = match self.find_include(&base, &name) {
            Ok(found) => found,
            Err(error) => {
                let diag = self.include_refusal(&name, name_span, error);
                self.diags.push(diag);
                return;
            }
        };
        if self.st.once.contains(&path) {
            return;
        }
        let id = match self.files.find(&path) {
            Some(id) => id,
            None => match loaded {
                Some(text) => self.files.add(path.clone(), text),
                None => match self.load_include(&path) {
                    Ok(text) => self.files.add(path.clone(), text),
                    Err(error) => {
                        let diag = self.include_refusal(&name, name_span, error);
                        self.diags.push(diag);
                        return;
                    }
                },
            },
        };
        if let Some(at) = self.open_files.iter().position(|f| f.id == id) {
            let guarded = self.open_files[at]
                .guard
                .is_some_and(|g| self.st.macros.get(g).is_some());
            if guarded {
                return;
            }
            let chain: Vec<String> = self.open_files[at..]
                .iter()
                .map(|f| f.id)
                .chain(std::iter::once(id))
                .map(|f| self.files.get(f).path.display().to_string())
                .collect();
            let shown = self.files.get(id).path.display().to_string();
            let message = format!("`#include` cycle: `{shown}` is already being included");
            let diag = Diagnostic::error(name_span, message)
                .with_note(format!("include chain: {}", chain.join(" -> ")));
            self.diags.push(diag);
            return;
        }
        if self.inclusions >= self.policy.limits.max_inclusions {
            if !self.inclusions_reported {
                self.inclusions_reported = true;
                let message = format!(
                    "too many `#include`s (more than {} in one script)",
                    self.policy.limits.max_inclusions
                );
                self.diags.push(Diagnostic::error(name_span, message));
            }
            return;
        }
        self.inclusions += 1;
        self.process_file(id);
        if !self.out.is_empty() && !self.out.ends_with('\n') {
            let end = self.files.get(id).text.len() as u32;
            self.map
                .fixed(self.out.len(), Span::new(id, end, end), None);
            self.out.push('\n');
        }
        self.after_expansion = false;
    }

    /// The path an include resolves to and, when it had to be read to find it, its text: the
    /// first candidate that exists among the including file's directory `base` and the include
    /// directories joined with `name`. A candidate outside every root is never read.
    fn find_include(
        &self,
        base: &Path,
        name: &str,
    ) -> Result<(PathBuf, Option<String>), LoadError> {
        let mut candidates = vec![normalize(&base.join(name))];
        for dir in &self.policy.include_dirs {
            let candidate = normalize(&dir.join(name));
            if !candidates.contains(&candidate) {
                candidates.push(candidate);
            }
        }
        let mut refused = None;
        for path in candidates {
            if !self.roots.iter().any(|root| lexically_inside(&path, root)) {
                refused.get_or_insert(LoadError::OutsideRoots);
                continue;
            }
            // A file read before (or skipped by `#pragma once`) is not read again.
            if self.files.find(&path).is_some() || self.st.once.contains(&path) {
                return Ok((path, None));
            }
            match self.load_include(&path) {
                Err(LoadError::NotFound) => {}
                Ok(text) => return Ok((path, Some(text))),
                Err(error) => return Err(error),
            }
        }
        Err(refused.unwrap_or(LoadError::NotFound))
    }

    /// Reads one include candidate through the loader, under the roots and the size limit.
    fn load_include(&self, path: &Path) -> Result<String, LoadError> {
        self.loader.load(&LoadRequest {
            path,
            roots: &self.roots,
            max_bytes: self.policy.limits.max_file_bytes,
        })
    }

    /// The error for an include that was not read: located at the file name, naming the rule.
    fn include_refusal(&self, name: &str, name_span: Span, error: LoadError) -> Diagnostic {
        let reason = error.reason(self.policy.limits.max_file_bytes);
        match error {
            LoadError::NotFound => {
                Diagnostic::error(name_span, format!("cannot find included file `{name}`"))
            }
            LoadError::Io(_) => Diagnostic::error(
                name_span,
                format!("cannot read included file `{name}`: {reason}"),
            ),
            LoadError::OutsideRoots => {
                let roots: Vec<String> = self
                    .roots
                    .iter()
                    .map(|root| {
                        if root.as_os_str().is_empty() {
                            "`.`".to_string()
                        } else {
                            format!("`{}`", root.display())
                        }
                    })
                    .collect();
                Diagnostic::error(name_span, format!("cannot include `{name}`: {reason}"))
                    .with_note(format!(
                        "includes resolve only inside {} (after `..` and symbolic links)",
                        roots.join(", ")
                    ))
            }
            LoadError::NotRegularFile(_) | LoadError::TooLarge => {
                Diagnostic::error(name_span, format!("cannot include `{name}`: {reason}"))
            }
        }
    }

    /// The file name of an `#include`: `"name"` or `<name>`, its span and the tokens it used.
    fn include_name(&self, toks: &[Tok]) -> Option<(String, Span, usize)> {
        let first = toks.first()?;
        let text = self.st.interner.text(first.sym);
        if first.kind == Kind::Str {
            let inner = text.strip_prefix('"')?.strip_suffix('"')?;
            return Some((inner.to_string(), first.span, 1));
        }
        if !first.is_punct(&self.st.interner, "<") {
            return None;
        }
        let mut name = String::new();
        for (k, tok) in toks.iter().enumerate().skip(1) {
            if tok.is_punct(&self.st.interner, ">") {
                let span = if tok.span.file == first.span.file {
                    first.span.to(tok.span)
                } else {
                    first.span
                };
                return Some((name, span, k + 1));
            }
            if tok.space_before && k > 1 {
                name.push(' ');
            }
            name.push_str(self.st.interner.text(tok.sym));
        }
        None
    }
}
