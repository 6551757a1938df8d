//! Function bodies and statements: locals and scopes, control flow (`if`, loops, `switch`,
//! `break`/`continue`/`return` placement), `[subgraph]` blocks, the all-paths-return analysis and
//! the recursion check.

use std::collections::HashMap;

use super::{Checker, FnCtx, SigId, Target};
use crate::ast;
use crate::diagnostic::Diagnostic;
use crate::hir::{
    self, Block, ConstValue, ExprKind, FuncId, FunctionKind, Stmt, StmtKind, SubgraphFlags,
};
use crate::source::Span;
use crate::types::{ScalarKind, Type};

/// Statement attributes that HLSL accepts as hints and RPSL ignores.
const IGNORED_ATTRIBUTES: &[&str] = &[
    "unroll",
    "loop",
    "branch",
    "flatten",
    "fastopt",
    "allow_uav_condition",
    "call",
    "forcecase",
];

impl Checker<'_> {
    /// Checks one function body and stores the resulting [`hir::Function`].
    pub fn check_function_body(&mut self, sig_id: SigId, function: &ast::Function) {
        let sig = self.sigs[sig_id.0 as usize].clone();
        let Target::Function(func) = sig.target else {
            return;
        };
        let kind = if function.is_export {
            FunctionKind::Entry
        } else if sig.is_node {
            FunctionKind::NodeDefinition
        } else {
            FunctionKind::Helper
        };
        if kind == FunctionKind::Entry && sig.ret != Type::Void && sig.ret != Type::Error {
            let shown = self.show(&sig.ret);
            self.error(
                function.return_type.span,
                format!(
                    "entry point `{}` must return `void`, found `{shown}`",
                    sig.name
                ),
            );
        }
        let mut subgraph = None;
        for attr in &function.attributes {
            if attr.name.name == "subgraph" {
                subgraph = Some(self.subgraph_flags(attr));
            } else if !sig.is_node {
                self.error(
                    attr.name.span,
                    format!("unknown attribute `{}`", attr.name.name),
                );
            }
        }
        self.fcx = FnCtx {
            ret: sig.ret.clone(),
            name: sig.name.clone(),
            func: Some(func),
            ..FnCtx::default()
        };
        self.push_scope();
        let mut params = Vec::with_capacity(function.params.len());
        for (ast_param, param) in function.params.iter().zip(&sig.params) {
            let access = if kind == FunctionKind::Helper {
                if let Some(attr) = ast_param.attributes.first() {
                    self.error(
                        attr.span,
                        "access attributes are only allowed on node and entry point parameters",
                    );
                }
                None
            } else {
                self.param_access(ast_param, &param.ty)
            };
            let local = self.declare_local(
                &param.name,
                param.ty.clone(),
                ast_param.ty.is_const,
                ast_param.name.span,
            );
            params.push(hir::Param {
                local,
                name: param.name.clone(),
                ty: param.ty.clone(),
                direction: param.direction,
                access,
                span: ast_param.span,
            });
        }
        let body = match &function.body {
            Some(block) => self.check_block_stmts(&block.stmts),
            None => Block::default(),
        };
        self.pop_scope();
        if sig.ret != Type::Void && sig.ret != Type::Error && !block_returns(&body) {
            self.error(
                function.name.span,
                format!(
                    "function `{}` does not return a value on every path",
                    sig.name
                ),
            );
        }
        let fcx = std::mem::take(&mut self.fcx);
        self.functions[func.index()] = Some(hir::Function {
            name: sig.name,
            kind,
            params,
            ret: sig.ret,
            locals: fcx.locals,
            body,
            subgraph,
            is_prelude: self.is_prelude,
            span: function.span,
            name_span: function.name.span,
        });
    }

    fn subgraph_flags(&mut self, attr: &ast::Attribute) -> SubgraphFlags {
        let mut flags = SubgraphFlags::default();
        for arg in &attr.args {
            match &arg.kind {
                ast::ExprKind::Name(ident) if ident.name == "atomic" => flags.atomic = true,
                ast::ExprKind::Name(ident) if ident.name == "sequential" => flags.sequential = true,
                _ => self.error(
                    arg.span,
                    "`subgraph` arguments must be `atomic` or `sequential`",
                ),
            }
        }
        flags
    }

    /// Checks statements in a new scope.
    fn check_block_stmts(&mut self, stmts: &[ast::Stmt]) -> Block {
        self.push_scope();
        let mut block = Block::default();
        for stmt in stmts {
            self.check_stmt(stmt, &mut block.stmts);
        }
        self.pop_scope();
        block
    }

    /// Checks a statement that forms its own scope (an `if` branch, a loop body).
    fn check_scoped(&mut self, stmt: &ast::Stmt) -> Block {
        match &stmt.kind {
            ast::StmtKind::Block(block) if stmt.attributes.is_empty() => {
                self.check_block_stmts(&block.stmts)
            }
            _ => self.check_block_stmts(std::slice::from_ref(stmt)),
        }
    }

    fn check_stmt(&mut self, stmt: &ast::Stmt, out: &mut Vec<Stmt>) {
        let span = stmt.span;
        let mut subgraph = None;
        for attr in &stmt.attributes {
            let name = attr.name.name.as_str();
            if name == "subgraph" {
                if matches!(stmt.kind, ast::StmtKind::Block(_)) {
                    subgraph = Some(self.subgraph_flags(attr));
                } else {
                    self.error(
                        attr.name.span,
                        "`subgraph` can only be applied to a block or a function",
                    );
                }
            } else if !IGNORED_ATTRIBUTES.contains(&name) {
                self.error(attr.name.span, format!("unknown attribute `{name}`"));
            }
        }
        let kind = match &stmt.kind {
            ast::StmtKind::Decl(decl) => {
                self.check_local_decl(decl, out);
                return;
            }
            ast::StmtKind::Expr(expr) => StmtKind::Expr(self.check_expr(expr)),
            ast::StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let cond = self.check_condition(cond);
                let then_block = self.check_scoped(then_branch);
                let else_block = else_branch.as_ref().map(|e| self.check_scoped(e));
                StmtKind::If {
                    cond,
                    then_block,
                    else_block,
                }
            }
            ast::StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                self.push_scope();
                let mut stmts = Vec::new();
                match init.as_deref() {
                    Some(ast::ForInit::Decl(decl)) => self.check_local_decl(decl, &mut stmts),
                    Some(ast::ForInit::Expr(expr)) => {
                        let expr = self.check_expr(expr);
                        stmts.push(Stmt {
                            span: expr.span,
                            kind: StmtKind::Expr(expr),
                        });
                    }
                    None => {}
                }
                let cond = cond.as_ref().map(|c| self.check_condition(c));
                let step = step.as_ref().map(|s| self.check_expr(s));
                let body = self.check_loop_body(body);
                self.pop_scope();
                stmts.push(Stmt {
                    span,
                    kind: StmtKind::Loop {
                        cond: always_true(cond),
                        step,
                        body,
                        test_first: true,
                    },
                });
                StmtKind::Block(Block { stmts })
            }
            ast::StmtKind::While { cond, body } => {
                let cond = self.check_condition(cond);
                let body = self.check_loop_body(body);
                StmtKind::Loop {
                    cond: always_true(Some(cond)),
                    step: None,
                    body,
                    test_first: true,
                }
            }
            ast::StmtKind::DoWhile { body, cond } => {
                let body = self.check_loop_body(body);
                let cond = self.check_condition(cond);
                StmtKind::Loop {
                    cond: always_true(Some(cond)),
                    step: None,
                    body,
                    test_first: false,
                }
            }
            ast::StmtKind::Switch { scrutinee, cases } => self.check_switch(scrutinee, cases),
            ast::StmtKind::Break => {
                if self.fcx.breakables == 0 {
                    self.error(span, "`break` outside of a loop or switch");
                }
                StmtKind::Break
            }
            ast::StmtKind::Continue => {
                if self.fcx.loops == 0 {
                    self.error(span, "`continue` outside of a loop");
                }
                StmtKind::Continue
            }
            ast::StmtKind::Return(value) => self.check_return(value.as_ref(), span),
            ast::StmtKind::Block(block) => {
                let body = self.check_block_stmts(&block.stmts);
                match subgraph {
                    Some(flags) => StmtKind::Subgraph { flags, body },
                    None => StmtKind::Block(body),
                }
            }
            ast::StmtKind::Empty => return,
        };
        out.push(Stmt { kind, span });
    }

    fn check_loop_body(&mut self, body: &ast::Stmt) -> Block {
        self.fcx.loops += 1;
        self.fcx.breakables += 1;
        let block = self.check_scoped(body);
        self.fcx.loops -= 1;
        self.fcx.breakables -= 1;
        block
    }

    fn check_local_decl(&mut self, decl: &ast::VarDecl, out: &mut Vec<Stmt>) {
        let base = self.resolve_type(&decl.ty);
        if base == Type::Void {
            self.error(decl.ty.span, "variables cannot have type `void`");
        }
        let is_const = decl.ty.is_const;
        for declarator in &decl.declarators {
            let unsized_ok = matches!(
                declarator.init.as_ref().map(|e| &e.kind),
                Some(ast::ExprKind::InitList(_))
            );
            let mut ty = self.apply_array_dims(base.clone(), &declarator.array_dims, unsized_ok);
            let init = declarator
                .init
                .as_ref()
                .map(|init| self.check_initializer(init, &mut ty));
            if is_const && init.is_none() {
                self.error(
                    declarator.name.span,
                    format!(
                        "`{}` is declared `const` but has no initializer",
                        declarator.name.name
                    ),
                );
            }
            let local =
                self.declare_local(&declarator.name.name, ty, is_const, declarator.name.span);
            if is_const {
                if let Some(value) = init.as_ref().and_then(|e| e.as_const()) {
                    self.fcx.const_values.insert(local, value.clone());
                }
            }
            out.push(Stmt {
                kind: StmtKind::Local { local, init },
                span: declarator.span,
            });
        }
    }

    fn check_return(&mut self, value: Option<&ast::Expr>, span: Span) -> StmtKind {
        let ret = self.fcx.ret.clone();
        match value {
            Some(value) if ret == Type::Void => {
                let checked = self.check_expr(value);
                if checked.ty != Type::Error {
                    let name = &self.fcx.name;
                    self.error(
                        value.span,
                        format!("`return` with a value in function `{name}` returning `void`"),
                    );
                }
                StmtKind::Return(None)
            }
            Some(value) => StmtKind::Return(Some(self.check_expr_as(value, &ret))),
            None if ret != Type::Void && ret != Type::Error => {
                let shown = self.show(&ret);
                let name = self.fcx.name.clone();
                self.error(
                    span,
                    format!("`return` without a value in function `{name}` returning `{shown}`"),
                );
                StmtKind::Return(None)
            }
            None => StmtKind::Return(None),
        }
    }

    fn check_switch(&mut self, scrutinee: &ast::Expr, cases: &[ast::SwitchCase]) -> StmtKind {
        let value = self.check_expr(scrutinee);
        let value_ty = match value.ty.component_kind() {
            _ if value.ty == Type::Error => Type::Error,
            Some(kind)
                if value.ty.is_scalar() && (kind.is_integer() || kind == ScalarKind::Bool) =>
            {
                if matches!(kind, ScalarKind::Uint | ScalarKind::Uint64) {
                    value.ty.concrete()
                } else {
                    Type::Scalar(if kind == ScalarKind::Int64 {
                        ScalarKind::Int64
                    } else {
                        ScalarKind::Int
                    })
                }
            }
            _ => {
                let shown = self.show(&value.ty);
                self.error(
                    value.span,
                    format!("switch value must be an integer, found `{shown}`"),
                );
                Type::Error
            }
        };
        let value = self.convert_to(value, &value_ty);
        let mut seen: HashMap<i64, Span> = HashMap::new();
        let mut default_span: Option<Span> = None;
        let mut hir_cases = Vec::with_capacity(cases.len());
        self.fcx.breakables += 1;
        self.push_scope();
        for case in cases {
            let label = match &case.label {
                ast::CaseLabel::Default => {
                    if let Some(previous) = default_span {
                        self.report(
                            Diagnostic::error(case.span, "multiple `default` labels in one switch")
                                .with_secondary(previous, "previous `default` here"),
                        );
                    }
                    default_span = Some(case.span);
                    None
                }
                ast::CaseLabel::Case(expr) => {
                    let label = self.const_int(expr, "case label").map(|v| {
                        let converted = crate::sema::fold_conversion(
                            &ConstValue::Int(v),
                            &Type::Scalar(ScalarKind::Int64),
                            &value_ty,
                        );
                        converted.and_then(|c| c.as_i64()).unwrap_or(v)
                    });
                    if let Some(v) = label {
                        if let Some(previous) = seen.insert(v, expr.span) {
                            self.report(
                                Diagnostic::error(expr.span, format!("duplicate case label `{v}`"))
                                    .with_secondary(previous, "previous case here"),
                            );
                        }
                    }
                    label
                }
            };
            let mut body = Block::default();
            for stmt in &case.body {
                self.check_stmt(stmt, &mut body.stmts);
            }
            hir_cases.push(hir::SwitchCase {
                label,
                body,
                span: case.span,
            });
        }
        self.pop_scope();
        self.fcx.breakables -= 1;
        StmtKind::Switch {
            value,
            cases: hir_cases,
        }
    }

    /// Reports every call cycle among functions once, at a call in the cycle.
    pub fn check_recursion(&mut self) {
        let n = self.functions.len();
        let mut edges: Vec<Vec<(FuncId, Span)>> = vec![Vec::new(); n];
        for &(from, to, span) in &self.call_edges {
            edges[from.index()].push((to, span));
        }
        // 0 = unvisited, 1 = on the stack, 2 = done.
        let mut state = vec![0u8; n];
        let mut reported = vec![false; n];
        for start in 0..n {
            if state[start] != 0 {
                continue;
            }
            let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
            state[start] = 1;
            while let Some(&mut (node, ref mut next)) = stack.last_mut() {
                if *next < edges[node].len() {
                    let (callee, span) = edges[node][*next];
                    *next += 1;
                    let callee = callee.index();
                    match state[callee] {
                        0 => {
                            state[callee] = 1;
                            stack.push((callee, 0));
                        }
                        1 => {
                            let from = stack.iter().position(|&(f, _)| f == callee).unwrap_or(0);
                            let cycle: Vec<usize> = stack[from..].iter().map(|&(f, _)| f).collect();
                            if cycle.iter().all(|&f| !reported[f]) {
                                for &f in &cycle {
                                    reported[f] = true;
                                }
                                let mut names: Vec<String> = cycle
                                    .iter()
                                    .map(|&f| format!("`{}`", self.function_name(f)))
                                    .collect();
                                names.push(format!("`{}`", self.function_name(callee)));
                                self.error(
                                    span,
                                    format!("recursion is not supported: {}", names.join(" -> ")),
                                );
                            }
                        }
                        _ => {}
                    }
                } else {
                    state[node] = 2;
                    stack.pop();
                }
            }
        }
    }

    fn function_name(&self, index: usize) -> String {
        self.functions[index]
            .as_ref()
            .map(|f| f.name.clone())
            .unwrap_or_default()
    }
}

/// A loop condition that is the constant `true` is no condition.
fn always_true(cond: Option<hir::Expr>) -> Option<hir::Expr> {
    cond.filter(|c| !matches!(c.kind, ExprKind::Const(ConstValue::Bool(true))))
}

/// Whether every path through the block ends in `return` (or an endless loop).
pub(crate) fn block_returns(block: &Block) -> bool {
    block.stmts.iter().any(stmt_returns)
}

fn stmt_returns(stmt: &Stmt) -> bool {
    match &stmt.kind {
        StmtKind::Return(_) => true,
        StmtKind::If {
            then_block,
            else_block: Some(else_block),
            ..
        } => block_returns(then_block) && block_returns(else_block),
        StmtKind::Block(block) | StmtKind::Subgraph { body: block, .. } => block_returns(block),
        StmtKind::Loop {
            cond: None, body, ..
        } => !breaks_out(body),
        StmtKind::Switch { cases, .. } => {
            let has_default = cases.iter().any(|c| c.label.is_none());
            has_default
                && !cases.iter().any(|c| breaks_out(&c.body))
                && cases.last().is_some_and(|c| block_returns(&c.body))
        }
        _ => false,
    }
}

/// Whether a `break` in the block leaves the enclosing loop or switch (nested loops and switches
/// catch their own).
fn breaks_out(block: &Block) -> bool {
    block.stmts.iter().any(|stmt| match &stmt.kind {
        StmtKind::Break => true,
        StmtKind::If {
            then_block,
            else_block,
            ..
        } => breaks_out(then_block) || else_block.as_ref().is_some_and(breaks_out),
        StmtKind::Block(block) | StmtKind::Subgraph { body: block, .. } => breaks_out(block),
        _ => false,
    })
}
