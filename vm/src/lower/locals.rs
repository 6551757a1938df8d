//! Which locals need memory: the scan that lets scalar, vector and matrix locals live in
//! registers (one per lane), which the JIT turns into SSA values.
//!
//! A local needs a frame slot when its type is not held in lanes (structs, arrays, views), when a
//! place indexes into it (`v[i] = ..`, `m[r].x = ..`), when it is passed as an `out`/`inout`
//! argument (the callee writes through its address), or when it is an `out`/`inout` parameter
//! (copied back to memory on return).

use super::lanes_of;
use rpsl_frontend::hir::{self, Arg, ExprKind, ParamDirection, Place, Projection, StmtKind};

/// For each local of `func`, whether it must live in frame memory.
pub(super) fn addressed_locals(func: &hir::Function) -> Vec<bool> {
    let mut addressed: Vec<bool> = func
        .locals
        .iter()
        .map(|l| lanes_of(&l.ty).is_none())
        .collect();
    for param in &func.params {
        if param.direction != ParamDirection::In {
            mark(&mut addressed, param.local.index());
        }
    }
    let mut scan = Scan { addressed };
    scan.block(&func.body);
    scan.addressed
}

fn mark(addressed: &mut [bool], index: usize) {
    if let Some(flag) = addressed.get_mut(index) {
        *flag = true;
    }
}

struct Scan {
    addressed: Vec<bool>,
}

impl Scan {
    fn block(&mut self, block: &hir::Block) {
        for stmt in &block.stmts {
            self.stmt(stmt);
        }
    }

    fn stmt(&mut self, stmt: &hir::Stmt) {
        match &stmt.kind {
            StmtKind::Expr(expr) => self.expr(expr),
            StmtKind::Local { init, .. } => {
                if let Some(init) = init {
                    self.expr(init);
                }
            }
            StmtKind::If {
                cond,
                then_block,
                else_block,
            } => {
                self.expr(cond);
                self.block(then_block);
                if let Some(else_block) = else_block {
                    self.block(else_block);
                }
            }
            StmtKind::Loop {
                cond, step, body, ..
            } => {
                if let Some(cond) = cond {
                    self.expr(cond);
                }
                if let Some(step) = step {
                    self.expr(step);
                }
                self.block(body);
            }
            StmtKind::Switch { value, cases } => {
                self.expr(value);
                for case in cases {
                    self.block(&case.body);
                }
            }
            StmtKind::Return(Some(expr)) => self.expr(expr),
            StmtKind::Block(body) | StmtKind::Subgraph { body, .. } => self.block(body),
            StmtKind::Return(None) | StmtKind::Break | StmtKind::Continue => {}
        }
    }

    fn place(&mut self, place: &Place, by_reference: bool) {
        let mut indexed = by_reference;
        for projection in &place.path {
            if let Projection::Index { index, .. } = projection {
                indexed = true;
                self.expr(index);
            }
        }
        if indexed {
            mark(&mut self.addressed, place.local.index());
        }
    }

    fn expr(&mut self, expr: &hir::Expr) {
        match &expr.kind {
            ExprKind::Const(_)
            | ExprKind::Local(_)
            | ExprKind::Global(_)
            | ExprKind::PlaceValue
            | ExprKind::Error => {}
            ExprKind::Field { base, .. }
            | ExprKind::ViewField { base, .. }
            | ExprKind::Swizzle { base, .. }
            | ExprKind::Unary { operand: base, .. }
            | ExprKind::Convert(base) => self.expr(base),
            ExprKind::Index { base, index, .. } => {
                self.expr(base);
                self.expr(index);
            }
            ExprKind::Binary { lhs, rhs, .. }
            | ExprKind::LogicalAnd(lhs, rhs)
            | ExprKind::LogicalOr(lhs, rhs)
            | ExprKind::Comma(lhs, rhs) => {
                self.expr(lhs);
                self.expr(rhs);
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
                self.expr(cond);
                self.expr(then_expr);
                self.expr(else_expr);
            }
            ExprKind::Construct(parts) | ExprKind::Aggregate(parts) => {
                parts.iter().for_each(|part| self.expr(part));
            }
            ExprKind::Call { args, .. } => {
                for arg in args {
                    match arg {
                        Arg::In(expr) => self.expr(expr),
                        Arg::Out(place) | Arg::InOut(place) => self.place(place, true),
                    }
                }
            }
            ExprKind::Assign { place, value } | ExprKind::Update { place, value, .. } => {
                self.place(place, false);
                self.expr(value);
            }
        }
    }
}
