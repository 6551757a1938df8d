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
                Some(resolved) => {
                    let name = &ident.name;
                    let why = match resolved {
                        Resolved::Global(_) => {
                            "it is a global, and globals are constants (`static const`)"
                        }
                        Resolved::Enumerator(..) => "it is an enumerator, a constant",
                        Resolved::Type(_) => "it is a type",
                        Resolved::Callables(_) => "it names a function or node",
                        Resolved::Local(_) => unreachable!("handled above"),
                    };
                    let message = format!("cannot assign to `{name}`: {why}");
                    let mut diag = Diagnostic::error(ident.span, message);
                    if let Some(declared) = self.global_span(name).filter(|s| s.file.0 != 0) {
                        diag = diag.with_secondary(declared, "declared here");
                    }
                    self.report(diag);
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
                    let why = not_a_place(&expr.kind);
                    self.report(
                        Diagnostic::error(span, format!("cannot assign to this expression: {why}"))
                            .with_help(
                                "assign to a variable, or to a field, element or swizzle of one",
                            ),
                    );
                }
                None
            }
        }
    }
}

/// Why an expression that is not a variable, member, element or swizzle cannot be assigned.
fn not_a_place(kind: &ast::ExprKind) -> &'static str {
    use ast::ExprKind as K;
    match kind {
        K::Int(_) | K::Float(_) | K::Bool(_) | K::Null => "a literal is a value, not a variable",
        K::Unary { .. } | K::Binary { .. } | K::Postfix { .. } => {
            "the result of an operator is a temporary value"
        }
        K::Ternary { .. } => "the result of `?:` is a temporary value",
        K::Assign { .. } => "the result of an assignment is a value, not a variable",
        K::Comma { .. } => "the result of `,` is a temporary value",
        K::Cast { .. } => "the result of a cast is a temporary value",
        K::Call { .. } | K::MethodCall { .. } => "a call returns a temporary value",
        K::Construct { .. } => "a constructed value is temporary",
        K::SizeofType(_) | K::SizeofExpr(_) => "`sizeof` is a constant",
        _ => "it is a value, not a variable",
    }
}
