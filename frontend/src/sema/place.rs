//! Assignment targets (places): a local and a path of fields, view fields, indices and
//! swizzles, with the checks that make an expression assignable (not `const`, not a global, no
//! repeated swizzle components).

use super::expr::Member;
use super::scope::Resolved;
use super::Checker;
use crate::ast;
use crate::diagnostic::Diagnostic;
use crate::hir::{Place, Projection};
use crate::types::Type;

impl Checker<'_> {
    /// Resolves an assignment target; reports non-assignable expressions.
    pub fn check_place(&mut self, expr: &ast::Expr) -> Option<Place> {
        let span = expr.span;
        match &expr.kind {
            ast::ExprKind::Name(ident) => match self.lookup(&ident.name) {
                Some(Resolved::Local(id)) => {
                    let local = &self.fcx.locals[id.index()];
                    if local.is_const {
                        let msg =
                            format!("cannot assign to `{}`: it is declared `const`", ident.name);
                        self.report(
                            Diagnostic::error(span, msg)
                                .with_secondary(local.span, "declared here"),
                        );
                        return None;
                    }
                    Some(Place {
                        local: id,
                        path: Vec::new(),
                        ty: local.ty.clone(),
                        span,
                    })
                }
                Some(Resolved::Global(_)) => {
                    self.error(
                        span,
                        format!("cannot assign to global constant `{}`", ident.name),
                    );
                    None
                }
                Some(Resolved::Enumerator(..)) => {
                    self.error(
                        span,
                        format!("cannot assign to enumerator `{}`", ident.name),
                    );
                    None
                }
                Some(_) => {
                    self.error(span, format!("cannot assign to `{}`", ident.name));
                    None
                }
                None => {
                    self.unknown_name(&ident.name, ident.span);
                    None
                }
            },
            ast::ExprKind::Member { base, member } => {
                let mut place = self.check_place(base)?;
                match self.member_access(&place.ty, &member.name, member.span)? {
                    Member::Field(index, ty) => {
                        place.path.push(Projection::Field(index));
                        place.ty = ty;
                    }
                    Member::ViewField(offset, ty) => {
                        place.path.push(Projection::ViewField(offset));
                        place.ty = ty;
                    }
                    Member::Swizzle(components, ty) => {
                        // Matrix members select lanes up to 15.
                        let mut seen = [false; 16];
                        for &c in &components {
                            if std::mem::replace(&mut seen[c as usize & 15], true) {
                                let name = &member.name;
                                let what = if matches!(place.ty, Type::Matrix(..)) {
                                    "matrix member"
                                } else {
                                    "swizzle"
                                };
                                self.error(member.span, format!("{what} `{name}` repeats a component and cannot be assigned"));
                                return None;
                            }
                        }
                        place.path.push(Projection::Swizzle(components));
                        place.ty = ty;
                    }
                }
                place.span = span;
                Some(place)
            }
            ast::ExprKind::Index { base, index } => {
                let mut place = self.check_place(base)?;
                let (len, elem) = self.index_info(&place.ty, base.span)?;
                let index = self.check_index_value(index, len, &place.ty);
                place.path.push(Projection::Index { index, len });
                place.ty = elem;
                place.span = span;
                Some(place)
            }
            _ => {
                // Check it anyway, for its own errors.
                let checked = self.check_expr(expr);
                if checked.ty != Type::Error {
                    self.error(span, "cannot assign to this expression");
                }
                None
            }
        }
    }
}
