//! The last step of checking: literal kinds (`1`, `1.0` typed as "literal int/float") that are
//! still in the module become `int` / `float`, so the lowering only sees concrete types.
//! Constants are re-normalized to their new type, and conversions that became no-ops disappear.

use super::consteval::fold_conversion;
use crate::hir::{Arg, Block, Expr, ExprKind, Module, Place, Projection, StmtKind};

/// Replaces every literal kind in the module's expressions, places and locals.
pub fn concretize(module: &mut Module) {
    for global in &mut module.globals {
        global.ty = global.ty.concrete();
        if let Some(init) = &mut global.init {
            expr(init);
        }
    }
    for function in &mut module.functions {
        for local in &mut function.locals {
            local.ty = local.ty.concrete();
        }
        block(&mut function.body);
    }
}

fn block(block: &mut Block) {
    for stmt in &mut block.stmts {
        match &mut stmt.kind {
            StmtKind::Expr(e) => expr(e),
            StmtKind::Local { init, .. } => {
                if let Some(e) = init {
                    expr(e);
                }
            }
            StmtKind::If {
                cond,
                then_block,
                else_block,
            } => {
                expr(cond);
                self::block(then_block);
                if let Some(b) = else_block {
                    self::block(b);
                }
            }
            StmtKind::Loop {
                cond, step, body, ..
            } => {
                if let Some(e) = cond {
                    expr(e);
                }
                if let Some(e) = step {
                    expr(e);
                }
                self::block(body);
            }
            StmtKind::Switch { value, cases } => {
                expr(value);
                for case in cases {
                    self::block(&mut case.body);
                }
            }
            StmtKind::Return(Some(e)) => expr(e),
            StmtKind::Block(b) | StmtKind::Subgraph { body: b, .. } => self::block(b),
            StmtKind::Return(None) | StmtKind::Break | StmtKind::Continue => {}
        }
    }
}

fn place(place: &mut Place) {
    place.ty = place.ty.concrete();
    for projection in &mut place.path {
        if let Projection::Index { index, .. } = projection {
            expr(index);
        }
    }
}

fn expr(e: &mut Expr) {
    match &mut e.kind {
        ExprKind::Const(_)
        | ExprKind::Local(_)
        | ExprKind::Global(_)
        | ExprKind::PlaceValue
        | ExprKind::Error => {}
        ExprKind::Field { base, .. }
        | ExprKind::ViewField { base, .. }
        | ExprKind::Swizzle { base, .. } => expr(base),
        ExprKind::Index { base, index, .. } => {
            expr(base);
            expr(index);
        }
        ExprKind::Unary { operand, .. } => expr(operand),
        ExprKind::Binary { lhs, rhs, .. }
        | ExprKind::LogicalAnd(lhs, rhs)
        | ExprKind::LogicalOr(lhs, rhs)
        | ExprKind::Comma(lhs, rhs) => {
            expr(lhs);
            expr(rhs);
        }
        ExprKind::Conditional {
            cond,
            then_expr,
            else_expr,
        }
        | ExprKind::Select {
            cond,
            then_expr,
            else_expr,
        } => {
            expr(cond);
            expr(then_expr);
            expr(else_expr);
        }
        ExprKind::Convert(inner) => expr(inner),
        ExprKind::Construct(parts) | ExprKind::Aggregate(parts) => parts.iter_mut().for_each(expr),
        ExprKind::Call { args, .. } => {
            for arg in args {
                match arg {
                    Arg::In(e) => expr(e),
                    Arg::Out(p) | Arg::InOut(p) => place(p),
                }
            }
        }
        ExprKind::Assign { place: p, value }
        | ExprKind::Update {
            place: p, value, ..
        } => {
            place(p);
            expr(value);
        }
    }
    if e.ty.has_literal_kind() {
        let concrete = e.ty.concrete();
        if let ExprKind::Const(value) = &e.kind {
            if let Some(normalized) = fold_conversion(value, &e.ty, &concrete) {
                e.kind = ExprKind::Const(normalized);
            }
        }
        e.ty = concrete;
    }
    // A conversion between types that are now equal is a no-op.
    if let ExprKind::Convert(inner) = &mut e.kind {
        if inner.ty == e.ty {
            let inner = std::mem::replace(&mut **inner, Expr::error(e.span));
            *e = Expr {
                span: e.span,
                ..inner
            };
        }
    }
}
