//! Macro definitions: the token type shared by the expander, the string interner, the macro table
//! and the parsing of `#define` lines.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;

use super::map::ExpansionId;
use crate::diagnostic::Diagnostic;
use crate::source::Span;

/// An interned token text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Sym(pub u32);

/// Identifies one macro definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct MacroId(pub u32);

/// A small fast hasher for short identifier keys (FNV-1a folded by 8-byte words).
#[derive(Default)]
pub(crate) struct WordHasher(u64);

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut hash = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
            hash = (hash.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
        for &b in chunks.remainder() {
            hash = (hash.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
        self.0 = hash;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<WordHasher>>;

/// Interns token texts so tokens are small `Copy` values.
#[derive(Clone, Debug, Default)]
pub(crate) struct Interner {
    ids: FastMap<Rc<str>, Sym>,
    texts: Vec<Rc<str>>,
}

impl Interner {
    /// The symbol of `text`, interning it if new.
    pub(crate) fn intern(&mut self, text: &str) -> Sym {
        if let Some(&sym) = self.ids.get(text) {
            return sym;
        }
        let sym = Sym(self.texts.len() as u32);
        let rc: Rc<str> = Rc::from(text);
        self.texts.push(rc.clone());
        self.ids.insert(rc, sym);
        sym
    }

    /// The symbol of `text` if it was interned.
    pub(crate) fn lookup(&self, text: &str) -> Option<Sym> {
        self.ids.get(text).copied()
    }

    /// The text of a symbol.
    pub(crate) fn text(&self, sym: Sym) -> &str {
        self.texts.get(sym.0 as usize).map_or("", |t| t)
    }
}

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Ident,
    Number,
    Str,
    Char,
    Punct,
    Other,
}

/// One preprocessing token as the expander sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tok {
    pub kind: Kind,
    pub sym: Sym,
    /// Where the token maps back to (a macro body token: the invocation).
    pub span: Span,
    /// The expansion that produced the token, if any.
    pub expansion: Option<ExpansionId>,
    /// Whether whitespace preceded the token.
    pub space_before: bool,
    /// Set on an identifier met while its macro was being expanded: it is never expanded again.
    pub painted: bool,
}

impl Tok {
    /// Whether this is the punctuator `p`.
    pub(crate) fn is_punct(&self, interner: &Interner, p: &str) -> bool {
        self.kind == Kind::Punct && interner.text(self.sym) == p
    }
}

/// One `#define`d macro.
#[derive(Debug)]
pub(crate) struct MacroDef {
    pub name: Sym,
    /// `None` for an object-like macro.
    pub params: Option<Vec<Sym>>,
    /// Whether the last parameter is `...` (`__VA_ARGS__`).
    pub variadic: bool,
    pub body: Vec<Tok>,
    /// For each body token, the parameter it names, if any.
    pub body_params: Vec<Option<u32>>,
    /// The macro name in the `#define`.
    pub span: Span,
    /// Whether the body uses `#` or `##` (else substitution takes a fast path).
    pub has_operators: bool,
}

impl MacroDef {
    /// Number of parameters including the variadic one.
    pub(crate) fn n_params(&self) -> usize {
        self.params.as_ref().map_or(0, Vec::len)
    }

    /// Whether two definitions are the same (same parameters, same body tokens and spacing).
    pub(crate) fn same_as(&self, other: &MacroDef) -> bool {
        self.params == other.params
            && self.variadic == other.variadic
            && self.body.len() == other.body.len()
            && self
                .body
                .iter()
                .zip(&other.body)
                .enumerate()
                .all(|(i, (a, b))| a.sym == b.sym && (i == 0 || a.space_before == b.space_before))
    }
}

/// All macros: definitions by id, and the current definition of each name.
#[derive(Clone, Debug, Default)]
pub(crate) struct MacroTable {
    pub defs: Vec<Rc<MacroDef>>,
    /// Whether each definition is being expanded right now.
    pub active: Vec<bool>,
    by_sym: Vec<Option<MacroId>>,
    /// A quick filter: bit `len % 64` of entry `first byte` is set when some macro name (ever
    /// defined) has that first byte and length.
    name_filter: Vec<u64>,
}

impl MacroTable {
    /// The current definition of `sym`.
    pub(crate) fn get(&self, sym: Sym) -> Option<MacroId> {
        self.by_sym.get(sym.0 as usize).copied().flatten()
    }

    /// False when no macro has this name (true means: look it up).
    pub(crate) fn may_name_macro(&self, name: &str) -> bool {
        let Some(&first) = name.as_bytes().first() else {
            return false;
        };
        self.name_filter
            .get(first as usize)
            .is_some_and(|bits| bits & (1 << (name.len() % 64)) != 0)
    }

    /// The definition with this id.
    pub(crate) fn def(&self, id: MacroId) -> &Rc<MacroDef> {
        &self.defs[id.0 as usize]
    }

    /// Makes `def` the current definition of its name.
    pub(crate) fn define(&mut self, def: MacroDef, name: &str) -> MacroId {
        if self.name_filter.is_empty() {
            self.name_filter = vec![0; 256];
        }
        if let Some(&first) = name.as_bytes().first() {
            self.name_filter[first as usize] |= 1 << (name.len() % 64);
        }
        let id = MacroId(self.defs.len() as u32);
        let slot = def.name.0 as usize;
        if self.by_sym.len() <= slot {
            self.by_sym.resize(slot + 1, None);
        }
        self.by_sym[slot] = Some(id);
        self.defs.push(Rc::new(def));
        self.active.push(false);
        id
    }

    /// Removes the current definition of `sym`.
    pub(crate) fn undefine(&mut self, sym: Sym) {
        if let Some(slot) = self.by_sym.get_mut(sym.0 as usize) {
            *slot = None;
        }
    }
}

/// Parses the tokens of a `#define` line after the directive name. `directive` is the span of
/// `#define`, used when the name is missing.
pub(crate) fn parse_define(
    interner: &mut Interner,
    directive: Span,
    toks: &[Tok],
) -> Result<MacroDef, Box<Diagnostic>> {
    let Some(name) = toks.first() else {
        return Err(Box::new(Diagnostic::error(
            directive,
            "missing macro name in `#define`",
        )));
    };
    check_macro_name(interner, name)?;
    let mut rest = &toks[1..];
    let mut params = None;
    let mut variadic = false;
    if let Some(open) = rest
        .first()
        .filter(|t| !t.space_before && t.is_punct(interner, "("))
    {
        let (list, is_variadic, used) = parse_params(interner, *open, &rest[1..])?;
        params = Some(list);
        variadic = is_variadic;
        rest = &rest[1 + used..];
    }
    let mut body: Vec<Tok> = rest.to_vec();
    if let Some(first) = body.first_mut() {
        first.space_before = false;
    }
    let va_args = interner.intern("__VA_ARGS__");
    let body_params: Vec<Option<u32>> = body
        .iter()
        .map(|t| {
            let list = params.as_ref()?;
            if t.kind != Kind::Ident {
                return None;
            }
            if variadic && t.sym == va_args {
                return Some(list.len() as u32 - 1);
            }
            list.iter()
                .position(|&p| p == t.sym && p != va_args)
                .map(|i| i as u32)
        })
        .collect();
    let paste_at_end = [body.first(), body.last()]
        .into_iter()
        .flatten()
        .find(|t| t.is_punct(interner, "##"));
    if let Some(tok) = paste_at_end {
        return Err(Box::new(Diagnostic::error(
            tok.span,
            "`##` cannot appear at either end of a macro body",
        )));
    }
    if params.is_some() {
        for (i, tok) in body.iter().enumerate() {
            if tok.is_punct(interner, "#") && body_params.get(i + 1).copied().flatten().is_none() {
                return Err(Box::new(Diagnostic::error(
                    tok.span,
                    "`#` must be followed by a macro parameter",
                )));
            }
        }
    }
    let has_operators = body
        .iter()
        .any(|t| t.is_punct(interner, "##") || t.is_punct(interner, "#"));
    Ok(MacroDef {
        name: name.sym,
        params,
        variadic,
        body,
        body_params,
        span: name.span,
        has_operators,
    })
}

/// Checks that `tok` can name a macro (in `#define`, `#undef`, `#ifdef`, `defined`).
pub(crate) fn check_macro_name(interner: &Interner, tok: &Tok) -> Result<(), Box<Diagnostic>> {
    if tok.kind != Kind::Ident {
        return Err(Box::new(Diagnostic::error(
            tok.span,
            "macro name must be an identifier",
        )));
    }
    if interner.text(tok.sym) == "defined" {
        return Err(Box::new(Diagnostic::error(
            tok.span,
            "`defined` cannot be used as a macro name",
        )));
    }
    Ok(())
}

/// Parses a parameter list after its `(`; returns the names (with `__VA_ARGS__` last for `...`),
/// whether it is variadic, and how many tokens were used including the `)`.
fn parse_params(
    interner: &mut Interner,
    open: Tok,
    toks: &[Tok],
) -> Result<(Vec<Sym>, bool, usize), Box<Diagnostic>> {
    let mut names: Vec<Sym> = Vec::new();
    let mut i = 0;
    if toks.first().is_some_and(|t| t.is_punct(interner, ")")) {
        return Ok((names, false, 1));
    }
    let end_span = |i: usize| toks.get(i.wrapping_sub(1)).map_or(open.span, |t| t.span);
    loop {
        let Some(tok) = toks.get(i) else {
            return Err(Box::new(Diagnostic::error(
                end_span(i),
                "expected macro parameter name",
            )));
        };
        if tok.is_punct(interner, "...") {
            names.push(interner.intern("__VA_ARGS__"));
            return match toks.get(i + 1) {
                Some(close) if close.is_punct(interner, ")") => Ok((names, true, i + 2)),
                Some(other) => Err(Box::new(Diagnostic::error(
                    other.span,
                    "expected `)` after `...` in macro parameter list",
                ))),
                None => Err(Box::new(Diagnostic::error(
                    tok.span,
                    "expected `)` after `...` in macro parameter list",
                ))),
            };
        }
        if tok.kind != Kind::Ident {
            return Err(Box::new(Diagnostic::error(
                tok.span,
                "expected macro parameter name",
            )));
        }
        if names.contains(&tok.sym) {
            let text = interner.text(tok.sym).to_string();
            return Err(Box::new(Diagnostic::error(
                tok.span,
                format!("duplicate macro parameter `{text}`"),
            )));
        }
        names.push(tok.sym);
        i += 1;
        match toks.get(i) {
            Some(t) if t.is_punct(interner, ")") => return Ok((names, false, i + 1)),
            Some(t) if t.is_punct(interner, ",") => i += 1,
            Some(t) => {
                return Err(Box::new(Diagnostic::error(
                    t.span,
                    "expected `,` or `)` in macro parameter list",
                )))
            }
            None => {
                return Err(Box::new(Diagnostic::error(
                    end_span(i),
                    "expected `,` or `)` in macro parameter list",
                )))
            }
        }
    }
}
