//! Scopes: global symbols (types, enumerators, constants, callables), block scopes of locals,
//! name lookup with "did you mean" suggestions, and duplicate-definition errors.

use super::{suggest, Checker, SigId, Symbol};
use crate::diagnostic::Diagnostic;
use crate::hir::{self, LocalId};
use crate::source::Span;
use crate::types::Type;

/// What a plain name in an expression refers to.
#[derive(Clone, Debug)]
pub(crate) enum Resolved {
    Local(LocalId),
    Global(hir::GlobalId),
    Enumerator(crate::types::EnumId, i64),
    Type(Type),
    Callables(Vec<SigId>),
}

impl Checker<'_> {
    /// The span where the global name `name` (a constant, enumerator, type or callable) is
    /// defined.
    pub(super) fn global_span(&self, name: &str) -> Option<Span> {
        self.symbols
            .get(name)
            .and_then(|symbol| self.symbol_span(symbol))
    }

    /// The span where a global symbol was defined.
    fn symbol_span(&self, symbol: &Symbol) -> Option<Span> {
        match symbol {
            Symbol::Type(_, span) | Symbol::Enumerator(_, _, span) => Some(*span),
            Symbol::Global(id) => Some(self.globals[id.index()].span),
            Symbol::Callables(list) => list.first().map(|id| self.sigs[id.0 as usize].span),
        }
    }

    /// Defines a global name; reports a duplicate (and returns false) when the name is taken.
    pub fn define_global(&mut self, name: &str, span: Span, symbol: Symbol) -> bool {
        if let Some(existing) = self.symbols.get(name) {
            let previous = self.symbol_span(existing);
            let mut diag = Diagnostic::error(span, format!("`{name}` is already defined"));
            if let Some(previous) = previous {
                diag = diag.with_secondary(previous, "previous definition here");
            }
            self.report(diag);
            return false;
        }
        self.symbols.insert(name.to_string(), symbol);
        true
    }

    /// Adds a callable to the overload set of `name`; reports a clash with a non-callable.
    pub fn define_callable(&mut self, name: &str, span: Span, sig: SigId) {
        match self.symbols.get_mut(name) {
            Some(Symbol::Callables(list)) => list.push(sig),
            Some(_) => {
                self.define_global(name, span, Symbol::Callables(vec![sig]));
            }
            None => {
                self.symbols
                    .insert(name.to_string(), Symbol::Callables(vec![sig]));
            }
        }
    }

    /// Opens a block scope.
    pub fn push_scope(&mut self) {
        self.fcx.marks.push(self.fcx.scope.len());
    }

    /// Closes the innermost block scope.
    pub fn pop_scope(&mut self) {
        let mark = self.fcx.marks.pop().unwrap_or(0);
        self.fcx.scope.truncate(mark);
    }

    /// Declares a local in the innermost scope; a name already declared in the same scope is an
    /// error (shadowing an outer one is fine).
    pub fn declare_local(&mut self, name: &str, ty: Type, is_const: bool, span: Span) -> LocalId {
        let mark = self.fcx.marks.last().copied().unwrap_or(0);
        if let Some((_, previous)) = self.fcx.scope[mark..].iter().rev().find(|(n, _)| n == name) {
            let previous_span = self.fcx.locals[previous.index()].span;
            self.report(
                Diagnostic::error(span, format!("`{name}` is already defined"))
                    .with_secondary(previous_span, "previous definition here"),
            );
        }
        let id = LocalId(self.fcx.locals.len() as u32);
        self.fcx.locals.push(hir::Local {
            name: name.to_string(),
            ty,
            is_const,
            span,
        });
        self.fcx.scope.push((name.to_string(), id));
        id
    }

    /// Resolves a plain name: locals (innermost first), then globals.
    pub fn lookup(&self, name: &str) -> Option<Resolved> {
        if let Some((_, id)) = self.fcx.scope.iter().rev().find(|(n, _)| n == name) {
            return Some(Resolved::Local(*id));
        }
        Some(match self.symbols.get(name)? {
            Symbol::Type(ty, _) => Resolved::Type(ty.clone()),
            Symbol::Enumerator(id, value, _) => Resolved::Enumerator(*id, *value),
            Symbol::Global(id) => Resolved::Global(*id),
            Symbol::Callables(list) => Resolved::Callables(list.clone()),
        })
    }

    /// A "did you mean" help for an unknown value name (locals and non-type globals).
    pub fn suggest_value(&self, name: &str) -> Option<String> {
        let locals = self.fcx.scope.iter().map(|(n, _)| n.as_str());
        let globals = self
            .symbols
            .iter()
            .filter(|(_, s)| !matches!(s, Symbol::Type(..)))
            .map(|(n, _)| n.as_str());
        suggest::did_you_mean(name, locals.chain(globals))
    }

    /// A "did you mean" help for an unknown type name.
    pub fn suggest_type(&self, name: &str) -> Option<String> {
        const BUILTIN: [&str; 14] = [
            "bool", "int", "uint", "float", "double", "half", "float2", "float3", "float4",
            "uint2", "uint3", "uint4", "texture", "buffer",
        ];
        let user = self
            .symbols
            .iter()
            .filter(|(_, s)| matches!(s, Symbol::Type(..)))
            .map(|(n, _)| n.as_str());
        suggest::did_you_mean(name, user.chain(BUILTIN.iter().copied()))
    }

    /// Reports `unknown name `x`` with a suggestion.
    pub fn unknown_name(&mut self, name: &str, span: Span) {
        let mut diag = Diagnostic::error(span, format!("unknown name `{name}`"));
        if let Some(help) = self.suggest_value(name) {
            diag = diag.with_help(help);
        }
        self.report(diag);
    }
}
