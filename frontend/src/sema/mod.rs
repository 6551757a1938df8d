//! Semantic analysis: name resolution, type checking, overloads, constant folding, flattening.
//!
//! [`check`] takes the parsed prelude and script (in that order) and produces a [`hir::Module`]
//! plus diagnostics. It never stops at the first error: a failed expression gets the error type,
//! which converts to everything silently, so one mistake is reported once.
//!
//! The work is split by idea:
//! - `scope`: global symbols, local scopes, name lookup with suggestions;
//! - `decls`: structs, enums, typedefs, globals, function and node signatures (pass 1);
//! - `consteval`: folding of constant expressions (array sizes, enumerators, case labels);
//! - `expr`: expressions, operators, conversions, member access, initializer lists;
//! - `calls`: calls, overload resolution, constructors, intrinsics, view methods;
//! - `stmt`: statements, control flow checks, return analysis, recursion;
//! - `place`: assignment targets;
//! - `init`: initializer lists;
//! - `nodes`: node declarations (queue, access attributes, semantics, flattened slots).

pub mod suggest;

mod calls;
mod concrete;
mod consteval;
mod decls;
mod expr;
mod init;
mod nodes;
mod place;
mod scope;
mod stmt;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_bounds;

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::OnceLock;

use crate::ast;
use crate::builtins::Builtin;
use crate::diagnostic::Diagnostic;
use crate::hir::{self, FuncId, GlobalId, NodeId, ParamDirection};
use crate::preprocess::WordHasher;
use crate::source::Span;
use crate::types::{EnumId, Type, TypeTable};

pub use consteval::fold_conversion;

/// One parsed translation unit handed to [`check`].
#[derive(Clone, Copy, Debug)]
pub struct SourceUnit<'a> {
    /// The parsed items.
    pub module: &'a ast::Module,
    /// Whether this is the prelude (its declarations are built-ins).
    pub is_prelude: bool,
}

/// Checks the units together (declarations of earlier units are visible in later ones) and
/// returns the resolved module. Diagnostics are appended to `diagnostics`; the module is only
/// meaningful when no error was reported.
pub fn check(units: &[SourceUnit<'_>], diagnostics: &mut Vec<Diagnostic>) -> hir::Module {
    let mut checker = Checker::new(diagnostics);
    let mut bodies = Vec::new();
    for unit in units {
        checker.is_prelude = unit.is_prelude;
        for item in &unit.module.items {
            if let Some(pending) = checker.declare_item(item) {
                bodies.push((pending, unit.is_prelude));
            }
        }
    }
    check_bodies(checker, bodies)
}

/// Checks `script` after `prelude`, exactly as [`check`] does with the two units, but declares
/// the prelude only once per process: the checker's state after the prelude's declarations is
/// kept and cloned for every script (cloning costs a fraction of declaring).
///
/// The cache holds the first prelude module passed in; any other `prelude` is checked from
/// scratch, so the result never depends on which module the cache holds.
pub fn check_after_prelude(
    prelude: &'static ast::Module,
    script: &ast::Module,
    diagnostics: &mut Vec<Diagnostic>,
) -> hir::Module {
    static PRELUDE_STATE: OnceLock<PreludeState> = OnceLock::new();
    let state = PRELUDE_STATE.get_or_init(|| PreludeState::declare(prelude));
    if !std::ptr::eq(state.module, prelude) {
        let units = [
            SourceUnit {
                module: prelude,
                is_prelude: true,
            },
            SourceUnit {
                module: script,
                is_prelude: false,
            },
        ];
        return check(&units, diagnostics);
    }
    diagnostics.extend(state.diagnostics.iter().cloned());
    let mut checker = Checker::new(diagnostics);
    state.declared.clone().restore_into(&mut checker);
    let mut bodies: Vec<(PendingBody<'_>, bool)> = state
        .bodies
        .iter()
        .map(|&pending| (pending, true))
        .collect();
    checker.is_prelude = false;
    for item in &script.items {
        if let Some(pending) = checker.declare_item(item) {
            bodies.push((pending, false));
        }
    }
    check_bodies(checker, bodies)
}

/// The checker's state after declaring a prelude's items.
struct PreludeState {
    /// The prelude module this state was computed from.
    module: &'static ast::Module,
    /// The declarations.
    declared: Declared,
    /// The diagnostics the declarations reported.
    diagnostics: Vec<Diagnostic>,
    /// The prelude's function bodies, checked with every script.
    bodies: Vec<PendingBody<'static>>,
}

impl PreludeState {
    fn declare(module: &'static ast::Module) -> PreludeState {
        let mut diagnostics = Vec::new();
        let mut checker = Checker::new(&mut diagnostics);
        checker.is_prelude = true;
        let mut bodies = Vec::new();
        for item in &module.items {
            if let Some(pending) = checker.declare_item(item) {
                bodies.push(pending);
            }
        }
        let declared = Declared::take_from(&mut checker);
        PreludeState {
            module,
            declared,
            diagnostics,
            bodies,
        }
    }
}

/// Everything a [`Checker`] holds besides its diagnostics sink and prelude flag.
#[derive(Clone)]
struct Declared {
    types: TypeTable,
    symbols: SymbolMap,
    sigs: Vec<Signature>,
    globals: Vec<hir::Global>,
    functions: Vec<Option<hir::Function>>,
    nodes: Vec<hir::NodeDecl>,
    entries: Vec<FuncId>,
    call_edges: Vec<(FuncId, FuncId, Span)>,
    fcx: FnCtx,
}

impl Declared {
    fn take_from(checker: &mut Checker<'_>) -> Declared {
        Declared {
            types: std::mem::take(&mut checker.types),
            symbols: std::mem::take(&mut checker.symbols),
            sigs: std::mem::take(&mut checker.sigs),
            globals: std::mem::take(&mut checker.globals),
            functions: std::mem::take(&mut checker.functions),
            nodes: std::mem::take(&mut checker.nodes),
            entries: std::mem::take(&mut checker.entries),
            call_edges: std::mem::take(&mut checker.call_edges),
            fcx: std::mem::take(&mut checker.fcx),
        }
    }

    fn restore_into(self, checker: &mut Checker<'_>) {
        checker.types = self.types;
        checker.symbols = self.symbols;
        checker.sigs = self.sigs;
        checker.globals = self.globals;
        checker.functions = self.functions;
        checker.nodes = self.nodes;
        checker.entries = self.entries;
        checker.call_edges = self.call_edges;
        checker.fcx = self.fcx;
    }
}

/// Checks the pending bodies (after all declarations), recursion, and builds the module.
fn check_bodies(mut checker: Checker<'_>, bodies: Vec<(PendingBody<'_>, bool)>) -> hir::Module {
    for ((sig, function), is_prelude) in bodies {
        checker.is_prelude = is_prelude;
        checker.check_function_body(sig, function);
    }
    checker.check_recursion();
    let mut module = checker.finish();
    concrete::concretize(&mut module);
    module
}

/// What a callable name refers to.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Target {
    /// A function with a body.
    Function(FuncId),
    /// A node declaration without a body.
    Node(NodeId),
    /// A prelude declaration implemented by the host.
    Builtin(Builtin),
    /// A declaration without a body that nothing implements (an error when called).
    Undefined,
}

/// One parameter of a callable signature.
#[derive(Clone, Debug)]
pub(crate) struct SigParam {
    pub name: String,
    pub ty: Type,
    pub direction: ParamDirection,
    /// The default value (already converted to `ty`).
    pub default: Option<hir::Expr>,
}

/// A callable's signature: user functions, node declarations, prelude built-ins.
#[derive(Clone, Debug)]
pub(crate) struct Signature {
    pub name: String,
    pub params: Vec<SigParam>,
    pub ret: Type,
    pub target: Target,
    pub span: Span,
    /// Whether this is a node (declaration or definition): `async` applies.
    pub is_node: bool,
}

impl Signature {
    /// Parameters without a default value: the fewest arguments a call may give.
    pub(crate) fn required_params(&self) -> usize {
        self.params
            .iter()
            .take_while(|p| p.default.is_none())
            .count()
    }

    /// Whether a call with `count` arguments fits the parameter list.
    pub(crate) fn accepts_arg_count(&self, count: usize) -> bool {
        (self.required_params()..=self.params.len()).contains(&count)
    }
}

/// The global names, hashed with a fast non-cryptographic hash (names come from the program, and
/// a lookup happens for every name use).
pub(crate) type SymbolMap = HashMap<String, Symbol, BuildHasherDefault<WordHasher>>;

/// Identifies a [`Signature`] in [`Checker::sigs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct SigId(pub u32);

/// A global name.
#[derive(Clone, Debug)]
pub(crate) enum Symbol {
    /// A struct, enum or typedef.
    Type(Type, Span),
    /// An enumerator.
    Enumerator(EnumId, i64, Span),
    /// A global constant.
    Global(GlobalId),
    /// Functions and nodes sharing the name.
    Callables(Vec<SigId>),
}

/// A function definition waiting for its body to be checked.
pub(crate) type PendingBody<'a> = (SigId, &'a ast::Function);

/// The per-function state of body checking.
#[derive(Clone, Debug)]
pub(crate) struct FnCtx {
    /// Locals declared so far (parameters first).
    pub locals: Vec<hir::Local>,
    /// Visible locals, innermost last.
    pub scope: Vec<(String, hir::LocalId)>,
    /// Start of each open block in `scope`.
    pub marks: Vec<usize>,
    /// The function's result type.
    pub ret: Type,
    /// The function's name.
    pub name: String,
    /// The function being checked (None for global initializers).
    pub func: Option<FuncId>,
    /// Open loops.
    pub loops: u32,
    /// Open loops and switches.
    pub breakables: u32,
    /// Values of `const` locals initialized with constant expressions (reads fold to them).
    pub const_values: HashMap<hir::LocalId, hir::ConstValue>,
}

impl Default for FnCtx {
    fn default() -> FnCtx {
        FnCtx {
            locals: Vec::new(),
            scope: Vec::new(),
            marks: Vec::new(),
            ret: Type::Void,
            name: String::new(),
            func: None,
            loops: 0,
            breakables: 0,
            const_values: HashMap::new(),
        }
    }
}

/// The state of one `check` run.
pub(crate) struct Checker<'d> {
    pub types: TypeTable,
    pub symbols: SymbolMap,
    pub sigs: Vec<Signature>,
    pub globals: Vec<hir::Global>,
    pub functions: Vec<Option<hir::Function>>,
    pub nodes: Vec<hir::NodeDecl>,
    pub entries: Vec<FuncId>,
    pub diags: &'d mut Vec<Diagnostic>,
    /// Calls between functions, for the recursion check: (caller, callee, call site).
    pub call_edges: Vec<(FuncId, FuncId, Span)>,
    pub fcx: FnCtx,
    pub is_prelude: bool,
}

impl<'d> Checker<'d> {
    fn new(diags: &'d mut Vec<Diagnostic>) -> Checker<'d> {
        Checker {
            types: TypeTable::new(),
            symbols: SymbolMap::default(),
            sigs: Vec::new(),
            globals: Vec::new(),
            functions: Vec::new(),
            nodes: Vec::new(),
            entries: Vec::new(),
            diags,
            call_edges: Vec::new(),
            fcx: FnCtx::default(),
            is_prelude: false,
        }
    }

    /// Reports an error.
    pub fn error(&mut self, span: Span, message: impl Into<String>) {
        self.diags.push(Diagnostic::error(span, message));
    }

    /// Reports a warning.
    pub fn warning(&mut self, span: Span, message: impl Into<String>) {
        self.diags.push(Diagnostic::warning(span, message));
    }

    /// Reports a prepared diagnostic.
    pub fn report(&mut self, diagnostic: Diagnostic) {
        self.diags.push(diagnostic);
    }

    /// A type as HLSL spells it, with struct and enum names.
    pub fn show(&self, ty: &Type) -> String {
        ty.display(&self.types).to_string()
    }

    fn finish(self) -> hir::Module {
        let functions = self
            .functions
            .into_iter()
            .enumerate()
            .map(|(i, f)| {
                f.unwrap_or_else(|| hir::Function {
                    name: format!("<unchecked {i}>"),
                    kind: hir::FunctionKind::Helper,
                    params: Vec::new(),
                    ret: Type::Void,
                    locals: Vec::new(),
                    body: hir::Block::default(),
                    subgraph: None,
                    is_prelude: false,
                    span: Span::new(crate::source::FileId(0), 0, 0),
                    name_span: Span::new(crate::source::FileId(0), 0, 0),
                })
            })
            .collect();
        hir::Module {
            types: self.types,
            globals: self.globals,
            functions,
            nodes: self.nodes,
            entries: self.entries,
        }
    }
}
