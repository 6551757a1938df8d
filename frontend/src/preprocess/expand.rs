//! Macro expansion: a stack of token contexts (one per macro being expanded), argument collection
//! and pre-expansion, substitution with `#` and `##`, and rescanning. A macro is disabled while its
//! context is on the stack; an identifier met while its macro is disabled is "painted" and never
//! expanded again (so `#define x x+1` stops after one step).

use std::rc::Rc;

use super::driver::{Run, Src, LIMITS};
use super::lexer::{Lexer, RawKind};
use super::macros::{Kind, MacroDef, MacroId, Tok};
use super::map::{Expansion, ExpansionId};
use crate::diagnostic::Diagnostic;
use crate::source::Span;

/// Tokens still to be rescanned; `macro_id` is disabled until the context is popped.
#[derive(Debug)]
pub(crate) struct Context {
    pub toks: Vec<Tok>,
    pub pos: usize,
    pub macro_id: Option<MacroId>,
}

impl Run<'_> {
    /// Expands the macro named by `name` (just read from the source), rescanning its output
    /// together with the source text that follows as far as needed, and emits the result. Returns
    /// false (consuming nothing) when `name` is a function-like macro not followed by `(`.
    pub(crate) fn expand_from_source(&mut self, name: Tok, src: &mut Src<'_, '_>) -> bool {
        let barrier = self.ctx.len();
        if !self.try_expand(name, barrier, Some(src)) {
            return false;
        }
        while let Some(tok) = self.ctx_next(barrier) {
            if self.expandable(&tok) && self.try_expand(tok, barrier, Some(src)) {
                continue;
            }
            self.emit_tok(tok);
        }
        true
    }

    /// Fully macro-expands a token list on its own (a macro argument, a `#if` line).
    pub(crate) fn expand_list(&mut self, toks: Vec<Tok>) -> Vec<Tok> {
        if !toks.iter().any(|t| self.expandable(t)) {
            return toks;
        }
        let barrier = self.ctx.len();
        self.ctx.push(Context {
            toks,
            pos: 0,
            macro_id: None,
        });
        let mut out = Vec::new();
        while let Some(tok) = self.ctx_next(barrier) {
            if self.expandable(&tok) && self.try_expand(tok, barrier, None) {
                continue;
            }
            out.push(tok);
        }
        out
    }

    /// Whether `tok` names a macro that may be expanded here.
    fn expandable(&self, tok: &Tok) -> bool {
        tok.kind == Kind::Ident
            && !tok.painted
            && self
                .st
                .macros
                .get(tok.sym)
                .is_some_and(|m| !self.st.macros.active[m.0 as usize])
    }

    /// Paints `tok` if it names a macro that is being expanded.
    fn paint(&self, mut tok: Tok) -> Tok {
        if tok.kind == Kind::Ident && !tok.painted {
            if let Some(m) = self.st.macros.get(tok.sym) {
                tok.painted = self.st.macros.active[m.0 as usize];
            }
        }
        tok
    }

    /// The next token from the contexts above `barrier`, popping (and re-enabling) finished ones.
    fn ctx_next(&mut self, barrier: usize) -> Option<Tok> {
        while self.ctx.len() > barrier {
            let top = self.ctx.last_mut()?;
            if let Some(&tok) = top.toks.get(top.pos) {
                top.pos += 1;
                return Some(self.paint(tok));
            }
            if let Some(done) = self.ctx.pop() {
                if let Some(m) = done.macro_id {
                    self.st.macros.active[m.0 as usize] = false;
                }
            }
        }
        None
    }

    /// The next token from the source text for a macro's arguments; `None` at the end of the file
    /// or at a directive line (which is left unread).
    fn src_next(&mut self, src: &mut Src<'_, '_>) -> Option<Tok> {
        let mut space = false;
        loop {
            let before = *src.lex;
            let raw = src.lex.next_raw();
            match raw.kind {
                RawKind::Eof => return None,
                RawKind::Newline
                | RawKind::Whitespace
                | RawKind::LineComment
                | RawKind::BlockComment => space = true,
                RawKind::UnterminatedComment => {
                    self.unterminated_comment(src.file, raw);
                    space = true;
                }
                _ => {
                    let text = src.lex.text();
                    if before.at_line_start && &text[raw.start as usize..raw.end as usize] == "#" {
                        *src.lex = before;
                        return None;
                    }
                    let tok = self.make_tok(src.file, text, raw, space);
                    return Some(self.paint(tok));
                }
            }
        }
    }

    fn next_any(&mut self, barrier: usize, src: Option<&mut Src<'_, '_>>) -> Option<Tok> {
        match self.ctx_next(barrier) {
            Some(tok) => Some(tok),
            None => src.and_then(|s| self.src_next(s)),
        }
    }

    /// Whether the next token (in the contexts, else in the source) is `(`; reads nothing.
    fn next_is_lparen(&self, barrier: usize, src: Option<&mut Src<'_, '_>>) -> bool {
        let interner = &self.st.interner;
        for ctx in self.ctx[barrier.min(self.ctx.len())..].iter().rev() {
            if let Some(tok) = ctx.toks.get(ctx.pos) {
                return tok.is_punct(interner, "(");
            }
        }
        let Some(src) = src else { return false };
        let mut probe = *src.lex;
        loop {
            let raw = probe.next_raw();
            match raw.kind {
                RawKind::Newline => {}
                kind if kind.is_trivia() => {}
                RawKind::Punct => {
                    let text = &probe.text()[raw.start as usize..raw.end as usize];
                    return text == "(";
                }
                _ => return false,
            }
        }
    }

    /// Expands `name` if it is an expandable macro invocation: pushes a context with the
    /// substituted body and returns true. Returns false, consuming nothing, when `name` is a
    /// function-like macro without arguments. After an error the invocation is consumed and
    /// produces nothing (true is returned).
    pub(crate) fn try_expand(
        &mut self,
        name: Tok,
        barrier: usize,
        mut src: Option<&mut Src<'_, '_>>,
    ) -> bool {
        let Some(mid) = self.st.macros.get(name.sym) else {
            return false;
        };
        if name.painted || self.st.macros.active[mid.0 as usize] || self.tokens_left == 0 {
            return false;
        }
        let def = Rc::clone(self.st.macros.def(mid));
        let (args, invocation) = if def.params.is_some() {
            if !self.next_is_lparen(barrier, src.as_deref_mut()) {
                return false;
            }
            let _open = self.next_any(barrier, src.as_deref_mut());
            match self.collect_args(&def, name, barrier, src) {
                Some(found) => found,
                None => return true,
            }
        } else {
            (Vec::new(), name.span)
        };
        let expansion = self.map.add_expansion(Expansion {
            macro_name: self.st.interner.text(def.name).to_string(),
            definition: def.span,
            invocation,
            parent: name.expansion,
        });
        let toks = self.substitute(&def, &args, invocation, expansion);
        if toks.len() + 1 > self.tokens_left {
            self.tokens_left = 0;
            if !self.budget_reported {
                self.budget_reported = true;
                let message = format!(
                    "macro expansion is too large (more than {} tokens)",
                    LIMITS.expansion_tokens
                );
                self.diags.push(Diagnostic::error(invocation, message));
            }
            return true;
        }
        self.tokens_left -= toks.len() + 1;
        self.st.macros.active[mid.0 as usize] = true;
        self.ctx.push(Context {
            toks,
            pos: 0,
            macro_id: Some(mid),
        });
        true
    }

    /// Reads the arguments after the `(`; returns them with the span of the whole invocation.
    fn collect_args(
        &mut self,
        def: &MacroDef,
        name: Tok,
        barrier: usize,
        mut src: Option<&mut Src<'_, '_>>,
    ) -> Option<(Vec<Vec<Tok>>, Span)> {
        let n_params = def.n_params();
        let mut args: Vec<Vec<Tok>> = vec![Vec::new()];
        let mut depth = 0usize;
        let close = loop {
            let Some(tok) = self.next_any(barrier, src.as_deref_mut()) else {
                let macro_name = self.st.interner.text(name.sym);
                let message = format!("unterminated argument list invoking macro `{macro_name}`");
                self.diags.push(Diagnostic::error(name.span, message));
                return None;
            };
            if tok.kind == Kind::Punct {
                match self.st.interner.text(tok.sym) {
                    "(" => depth += 1,
                    ")" if depth == 0 => break tok,
                    ")" => depth -= 1,
                    "," if depth == 0 && !(def.variadic && args.len() == n_params) => {
                        args.push(Vec::new());
                        continue;
                    }
                    _ => {}
                }
            }
            if let Some(arg) = args.last_mut() {
                arg.push(tok);
            }
        };
        let invocation = if close.span.file == name.span.file && close.span.end >= name.span.start {
            name.span.to(close.span)
        } else {
            name.span
        };
        if n_params == 0 && args.len() == 1 && args[0].is_empty() {
            args.clear();
        }
        if def.variadic && args.len() + 1 == n_params {
            args.push(Vec::new());
        }
        if args.len() != n_params {
            let macro_name = self.st.interner.text(name.sym);
            let expected = if def.variadic { n_params - 1 } else { n_params };
            let at_least = if def.variadic { "at least " } else { "" };
            let plural = if expected == 1 { "" } else { "s" };
            let given = if args.len() == 1 {
                "1 was".to_string()
            } else {
                format!("{} were", args.len())
            };
            let message = format!("macro `{macro_name}` takes {at_least}{expected} argument{plural} but {given} given");
            self.diags.push(Diagnostic::error(invocation, message));
            return None;
        }
        Some((args, invocation))
    }

    /// The body of `def` with its parameters replaced, ready for rescanning.
    fn substitute(
        &mut self,
        def: &MacroDef,
        args: &[Vec<Tok>],
        invocation: Span,
        exp: ExpansionId,
    ) -> Vec<Tok> {
        let body = &def.body;
        let function_like = def.params.is_some();
        let mut expanded: Vec<Option<Vec<Tok>>> = vec![None; args.len()];
        let mut out: Vec<Tok> = Vec::with_capacity(body.len());
        let from_body = |tok: Tok| Tok {
            span: invocation,
            expansion: Some(exp),
            painted: false,
            ..tok
        };
        let from_arg = |tok: Tok| Tok {
            expansion: tok.expansion.or(Some(exp)),
            ..tok
        };
        if !def.has_operators {
            for (&tok, &param) in body.iter().zip(&def.body_params) {
                if out.len() > self.tokens_left {
                    break;
                }
                let Some(p) = param.map(|p| p as usize) else {
                    out.push(from_body(tok));
                    continue;
                };
                if expanded[p].is_none() {
                    expanded[p] = Some(self.expand_arg(args.get(p).map_or(&[], |a| a)));
                }
                let start = out.len();
                out.extend(expanded[p].iter().flatten().map(|&t| from_arg(t)));
                if let Some(first) = out.get_mut(start) {
                    first.space_before = tok.space_before;
                }
            }
            return out;
        }
        // Whether the last operand pushed was an empty argument (a placemarker for `##`).
        let mut placemarker = false;
        let mut i = 0;
        while i < body.len() && out.len() <= self.tokens_left {
            let tok = body[i];
            let param = def.body_params[i].map(|p| p as usize);
            let next_is_paste = body
                .get(i + 1)
                .is_some_and(|t| t.is_punct(&self.st.interner, "##"));
            if function_like && tok.is_punct(&self.st.interner, "#") {
                let p = def.body_params.get(i + 1).copied().flatten().unwrap_or(0) as usize;
                let string =
                    self.stringify(args.get(p).map_or(&[][..], |a| a), tok, invocation, exp);
                out.push(string);
                placemarker = false;
                i += 2;
                continue;
            }
            if tok.is_punct(&self.st.interner, "##") {
                i += 1;
                let Some(&rhs_tok) = body.get(i) else { break };
                let mut rhs: Vec<Tok> = match def.body_params[i] {
                    Some(p) => args
                        .get(p as usize)
                        .map_or(Vec::new(), |a| a.iter().map(|&t| from_arg(t)).collect()),
                    None if function_like && rhs_tok.is_punct(&self.st.interner, "#") => {
                        i += 1;
                        let p = def.body_params.get(i).copied().flatten().unwrap_or(0) as usize;
                        vec![self.stringify(
                            args.get(p).map_or(&[][..], |a| a),
                            rhs_tok,
                            invocation,
                            exp,
                        )]
                    }
                    None => vec![from_body(rhs_tok)],
                };
                i += 1;
                if rhs.is_empty() {
                    continue;
                }
                if placemarker || out.is_empty() {
                    placemarker = false;
                    out.append(&mut rhs);
                    continue;
                }
                if let Some(lhs) = out.pop() {
                    let pasted = self.paste(lhs, rhs[0], invocation, exp);
                    out.extend(pasted);
                    out.extend_from_slice(&rhs[1..]);
                }
                continue;
            }
            if let Some(p) = param {
                let arg: &[Tok] = args.get(p).map_or(&[], |a| a);
                placemarker = arg.is_empty();
                let start = out.len();
                if next_is_paste {
                    out.extend(arg.iter().map(|&t| from_arg(t)));
                } else {
                    if expanded[p].is_none() {
                        expanded[p] = Some(self.expand_arg(arg));
                    }
                    out.extend(expanded[p].iter().flatten().map(|&t| from_arg(t)));
                }
                if let Some(first) = out.get_mut(start) {
                    first.space_before = tok.space_before;
                }
                i += 1;
                continue;
            }
            out.push(from_body(tok));
            placemarker = false;
            i += 1;
        }
        out
    }

    /// Pre-expands one macro argument (with a nesting limit).
    fn expand_arg(&mut self, arg: &[Tok]) -> Vec<Tok> {
        if self.arg_depth >= LIMITS.argument_depth {
            if !self.arg_depth_reported {
                self.arg_depth_reported = true;
                let span = arg
                    .first()
                    .map_or(Span::new(crate::source::FileId(0), 0, 0), |t| t.span);
                let message = format!(
                    "macro arguments are nested too deeply (more than {})",
                    LIMITS.argument_depth
                );
                self.diags.push(Diagnostic::error(span, message));
            }
            return arg.to_vec();
        }
        self.arg_depth += 1;
        let out = self.expand_list(arg.to_vec());
        self.arg_depth -= 1;
        out
    }

    /// `#param`: the argument's spelling as a string literal.
    fn stringify(&mut self, arg: &[Tok], hash: Tok, invocation: Span, exp: ExpansionId) -> Tok {
        let mut text = String::from("\"");
        for (k, tok) in arg.iter().enumerate() {
            if k > 0 && tok.space_before {
                text.push(' ');
            }
            let spelling = self.st.interner.text(tok.sym);
            if matches!(tok.kind, Kind::Str | Kind::Char) {
                for c in spelling.chars() {
                    if c == '"' || c == '\\' {
                        text.push('\\');
                    }
                    text.push(c);
                }
            } else {
                text.push_str(spelling);
            }
        }
        text.push('"');
        let sym = self.st.interner.intern(&text);
        Tok {
            kind: Kind::Str,
            sym,
            span: invocation,
            expansion: Some(exp),
            space_before: hash.space_before,
            painted: false,
        }
    }

    /// `lhs ## rhs`: one token from both spellings, or both tokens and an error.
    fn paste(&mut self, lhs: Tok, rhs: Tok, invocation: Span, exp: ExpansionId) -> Vec<Tok> {
        let text = format!(
            "{}{}",
            self.st.interner.text(lhs.sym),
            self.st.interner.text(rhs.sym)
        );
        let mut lexer = Lexer::new(&text);
        let raw = lexer.next_raw();
        let single =
            raw.end as usize == text.len() && !raw.kind.is_trivia() && raw.kind != RawKind::Newline;
        if !single {
            let message = format!(
                "pasting `{}` and `{}` does not give a valid token",
                self.st.interner.text(lhs.sym),
                self.st.interner.text(rhs.sym)
            );
            self.diags.push(Diagnostic::error(invocation, message));
            return vec![lhs, rhs];
        }
        let kind = match raw.kind {
            RawKind::Ident => Kind::Ident,
            RawKind::Number => Kind::Number,
            RawKind::Str => Kind::Str,
            RawKind::Char => Kind::Char,
            RawKind::Punct => Kind::Punct,
            _ => Kind::Other,
        };
        let sym = self.st.interner.intern(&text);
        vec![Tok {
            kind,
            sym,
            span: lhs.span,
            expansion: Some(exp),
            space_before: lhs.space_before,
            painted: false,
        }]
    }
}
