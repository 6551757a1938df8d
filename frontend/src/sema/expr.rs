//! Expressions: literals, names, operators, conversions, casts, member access and swizzles,
//! indexing, `sizeof`, assignments and their places (lvalues).

use super::consteval::try_fold;
use super::scope::Resolved;
use super::{suggest, Checker};
use crate::ast;
use crate::diagnostic::Diagnostic;
use crate::hir::{BinaryOp, ConstValue, Expr, ExprKind, UnaryOp};
use crate::source::Span;
use crate::types::{self, BinaryOpClass, ScalarKind, Type, UnaryOpClass};

impl Checker<'_> {
    /// Checks an expression with no expected type.
    pub fn check_expr(&mut self, expr: &ast::Expr) -> Expr {
        let span = expr.span;
        match &expr.kind {
            ast::ExprKind::Int(lit) => int_literal(lit, span),
            ast::ExprKind::Float(lit) => {
                let kind = match lit.suffix {
                    ast::FloatSuffix::None => ScalarKind::LiteralFloat,
                    ast::FloatSuffix::F => ScalarKind::Float,
                    ast::FloatSuffix::H => ScalarKind::Half,
                    ast::FloatSuffix::L => ScalarKind::Double,
                };
                let value = if kind == ScalarKind::Float || kind == ScalarKind::Half {
                    lit.value as f32 as f64
                } else {
                    lit.value
                };
                Expr::new(
                    ExprKind::Const(ConstValue::Float(value)),
                    Type::Scalar(kind),
                    span,
                )
            }
            ast::ExprKind::Bool(b) => {
                Expr::new(ExprKind::Const(ConstValue::Bool(*b)), Type::BOOL, span)
            }
            ast::ExprKind::Null => {
                Expr::new(ExprKind::Const(ConstValue::NullView), Type::Null, span)
            }
            ast::ExprKind::Name(ident) => self.check_name(ident),
            ast::ExprKind::Unary { op, operand } => self.check_unary(*op, operand, span),
            ast::ExprKind::Postfix { op, operand } => {
                let delta = if *op == ast::PostfixOp::PostInc {
                    BinaryOp::Add
                } else {
                    BinaryOp::Sub
                };
                self.check_increment(operand, delta, true, op.as_str(), span)
            }
            ast::ExprKind::Binary { op, lhs, rhs } => self.check_binary(*op, lhs, rhs, span),
            ast::ExprKind::Ternary {
                cond,
                then_expr,
                else_expr,
            } => self.check_ternary(cond, then_expr, else_expr, span),
            ast::ExprKind::Assign { op, target, value } => {
                self.check_assign(*op, target, value, span)
            }
            ast::ExprKind::Comma { lhs, rhs } => {
                let lhs = self.check_expr(lhs);
                let rhs = self.check_expr(rhs);
                let ty = rhs.ty.clone();
                Expr::new(ExprKind::Comma(Box::new(lhs), Box::new(rhs)), ty, span)
            }
            ast::ExprKind::Cast { ty, operand } => {
                let target = self.resolve_type(ty);
                let operand = self.check_expr(operand);
                self.cast(operand, &target, span)
            }
            ast::ExprKind::Call { callee, args } => self.check_call(callee, args, false, span),
            ast::ExprKind::AsyncCall { callee, args } => self.check_call(callee, args, true, span),
            ast::ExprKind::Construct { ty, args } => {
                let target = self.resolve_type(ty);
                self.check_construct(&target, args, span)
            }
            ast::ExprKind::MethodCall {
                receiver,
                method,
                args,
            } => self.check_method_call(receiver, method, args, span),
            ast::ExprKind::Member { base, member } => {
                let base = self.check_expr(base);
                self.check_member(base, member, span)
            }
            ast::ExprKind::Index { base, index } => {
                let base = self.check_expr(base);
                self.check_index(base, index, span)
            }
            ast::ExprKind::SizeofType(ty) => {
                // `sizeof(x)` with a variable `x` parses as a type name.
                if let ast::TypeRefKind::Named(ident) = &ty.kind {
                    if matches!(
                        self.lookup(&ident.name),
                        Some(Resolved::Local(_) | Resolved::Global(_))
                    ) {
                        let value = self.check_name(ident);
                        return self.sizeof(&value.ty, span);
                    }
                }
                let target = self.resolve_type(ty);
                self.sizeof(&target, span)
            }
            ast::ExprKind::SizeofExpr(operand) => {
                let value = self.check_expr(operand);
                self.sizeof(&value.ty, span)
            }
            ast::ExprKind::InitList(_) => {
                self.error(span, "an initializer list can only initialize a variable");
                Expr::error(span)
            }
        }
    }

    /// Checks an expression that must have type `ty` (initializer lists resolve against it).
    pub fn check_expr_as(&mut self, expr: &ast::Expr, ty: &Type) -> Expr {
        if let ast::ExprKind::InitList(items) = &expr.kind {
            return self.check_init_list(items, ty, expr.span);
        }
        let checked = self.check_expr(expr);
        self.coerce(checked, ty)
    }

    /// Checks a condition (`if`, loops, `&&`): a scalar converted to `bool`.
    pub fn check_condition(&mut self, expr: &ast::Expr) -> Expr {
        let checked = self.check_expr(expr);
        self.condition(checked)
    }

    /// Converts a checked condition to a scalar `bool`, reporting non-scalars.
    pub fn condition(&mut self, checked: Expr) -> Expr {
        if !types::is_condition_type(&checked.ty) {
            let msg = if checked.ty.is_numeric() {
                format!(
                    "condition must be a scalar, found `{}`",
                    self.show(&checked.ty)
                )
            } else {
                types::cannot_convert_message(&checked.ty, &Type::BOOL, &self.types)
            };
            self.error(checked.span, msg);
            return Expr::new(ExprKind::Error, Type::BOOL, checked.span);
        }
        self.convert_to(checked, &Type::BOOL)
    }

    /// Inserts an explicit conversion node (folded for constants); no checks.
    pub fn convert_to(&mut self, expr: Expr, to: &Type) -> Expr {
        if expr.ty == *to || *to == Type::Error {
            return expr;
        }
        if expr.ty == Type::Error {
            return Expr {
                ty: to.clone(),
                ..expr
            };
        }
        // Arrays passed to unsized array parameters keep their own (sized) type.
        if matches!((&expr.ty, to), (Type::Array(..), Type::Array(_, None))) {
            return expr;
        }
        let span = expr.span;
        try_fold(Expr::new(
            ExprKind::Convert(Box::new(expr)),
            to.clone(),
            span,
        ))
    }

    /// Applies the implicit conversion to `to`, with its warnings; reports when there is none.
    pub fn coerce(&mut self, expr: Expr, to: &Type) -> Expr {
        if expr.ty == *to {
            return expr;
        }
        match types::conversion(&expr.ty, to) {
            Some(conversion) => {
                if let Some(warning) = conversion.warning {
                    let silent = warning == types::ConversionWarning::PrecisionLoss
                        && expr.as_const().is_some();
                    if !silent {
                        self.warning(expr.span, warning.to_string());
                    }
                }
                self.convert_to(expr, to)
            }
            None => {
                let message = types::cannot_convert_message(&expr.ty, to, &self.types);
                self.error(expr.span, message);
                Expr::new(ExprKind::Error, to.clone(), expr.span)
            }
        }
    }

    /// An explicit cast `(T)x` / `T(x)`.
    pub fn cast(&mut self, operand: Expr, target: &Type, span: Span) -> Expr {
        if operand.ty == Type::Error || *target == Type::Error {
            return Expr::new(ExprKind::Error, target.clone(), span);
        }
        if !types::explicit_cast_allowed(&operand.ty, target) {
            let (from, to) = (self.show(&operand.ty), self.show(target));
            self.error(span, format!("cannot cast from `{from}` to `{to}`"));
            return Expr::new(ExprKind::Error, target.clone(), span);
        }
        let converted = self.convert_to(operand, target);
        Expr { span, ..converted }
    }

    fn check_name(&mut self, ident: &ast::Ident) -> Expr {
        let span = ident.span;
        match self.lookup(&ident.name) {
            Some(Resolved::Local(id)) => {
                let ty = self.fcx.locals[id.index()].ty.clone();
                match self.fcx.const_values.get(&id) {
                    Some(value) => Expr::new(ExprKind::Const(value.clone()), ty, span),
                    None => Expr::new(ExprKind::Local(id), ty, span),
                }
            }
            Some(Resolved::Global(id)) => {
                let global = &self.globals[id.index()];
                let ty = global.ty.clone();
                match &global.value {
                    Some(value) => Expr::new(ExprKind::Const(value.clone()), ty, span),
                    None => Expr::new(ExprKind::Global(id), ty, span),
                }
            }
            Some(Resolved::Enumerator(id, value)) => Expr::new(
                ExprKind::Const(ConstValue::Int(value)),
                Type::Enum(id),
                span,
            ),
            Some(Resolved::Type(_)) => {
                self.error(span, format!("`{}` is a type, not a value", ident.name));
                Expr::error(span)
            }
            Some(Resolved::Callables(_)) => {
                self.error(
                    span,
                    format!(
                        "`{}` is a function; call it with `{}(..)`",
                        ident.name, ident.name
                    ),
                );
                Expr::error(span)
            }
            None => {
                self.unknown_name(&ident.name, span);
                Expr::error(span)
            }
        }
    }

    fn operator_error(&mut self, err: types::OperatorError, op: &str, span: Span) -> Expr {
        let message = err.message(op, &self.types);
        self.error(span, message);
        Expr::error(span)
    }

    fn check_unary(&mut self, op: ast::UnaryOp, operand: &ast::Expr, span: Span) -> Expr {
        let (class, hir_op) = match op {
            ast::UnaryOp::PreInc => {
                return self.check_increment(operand, BinaryOp::Add, false, op.as_str(), span)
            }
            ast::UnaryOp::PreDec => {
                return self.check_increment(operand, BinaryOp::Sub, false, op.as_str(), span)
            }
            ast::UnaryOp::Neg => (UnaryOpClass::Negate, Some(UnaryOp::Neg)),
            ast::UnaryOp::Plus => (UnaryOpClass::Plus, None),
            ast::UnaryOp::Not => (UnaryOpClass::LogicalNot, Some(UnaryOp::Not)),
            ast::UnaryOp::BitNot => (UnaryOpClass::BitNot, Some(UnaryOp::BitNot)),
        };
        let operand = self.check_expr(operand);
        let typing = match types::unary_operand(class, &operand.ty) {
            Ok(typing) => typing,
            Err(err) => return self.operator_error(err, op.as_str(), span),
        };
        let operand = self.convert_to(operand, &typing.operand);
        match hir_op {
            None => Expr { span, ..operand },
            Some(hir_op) => try_fold(Expr::new(
                ExprKind::Unary {
                    op: hir_op,
                    operand: Box::new(operand),
                },
                typing.result,
                span,
            )),
        }
    }

    /// `++x`, `--x`, `x++`, `x--` as an [`ExprKind::Update`].
    fn check_increment(
        &mut self,
        operand: &ast::Expr,
        op: BinaryOp,
        returns_old: bool,
        spelled: &str,
        span: Span,
    ) -> Expr {
        let Some(place) = self.check_place(operand) else {
            return Expr::error(span);
        };
        if let Err(err) = types::unary_operand(UnaryOpClass::IncDec, &place.ty) {
            return self.operator_error(err, spelled, span);
        }
        let ty = place.ty.clone();
        let old = Expr::new(ExprKind::PlaceValue, ty.clone(), span);
        let one = self.convert_to(
            Expr::new(ExprKind::Const(ConstValue::Int(1)), Type::LITERAL_INT, span),
            &ty,
        );
        let value = Expr::new(
            ExprKind::Binary {
                op,
                lhs: Box::new(old),
                rhs: Box::new(one),
            },
            ty.clone(),
            span,
        );
        Expr::new(
            ExprKind::Update {
                place: Box::new(place),
                value: Box::new(value),
                returns_old,
            },
            ty,
            span,
        )
    }

    fn check_binary(
        &mut self,
        op: ast::BinaryOp,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
    ) -> Expr {
        let lhs = self.check_expr(lhs);
        let rhs = self.check_expr(rhs);
        self.binary(op, lhs, rhs, span)
    }

    /// Types and builds a binary operation on checked operands.
    pub fn binary(&mut self, op: ast::BinaryOp, lhs: Expr, rhs: Expr, span: Span) -> Expr {
        let (class, hir_op) = binary_class(op);
        // Views and node handles compare with `==` / `!=` (against each other or `null`).
        let non_numeric =
            |t: &Type| matches!(t, Type::Texture | Type::Buffer | Type::Null | Type::Node);
        if class == BinaryOpClass::Comparison && (non_numeric(&lhs.ty) || non_numeric(&rhs.ty)) {
            if matches!(hir_op, BinaryOp::Eq | BinaryOp::Ne) {
                if let Some(common) =
                    types::common_type(&lhs.ty, &rhs.ty).filter(|t| non_numeric(t))
                {
                    let common = if common == Type::Null {
                        Type::Texture
                    } else {
                        common
                    };
                    let lhs = self.convert_to(lhs, &common);
                    let rhs = self.convert_to(rhs, &common);
                    let kind = ExprKind::Binary {
                        op: hir_op,
                        lhs: Box::new(lhs),
                        rhs: Box::new(rhs),
                    };
                    return Expr::new(kind, Type::BOOL, span);
                }
            }
            let message = if non_numeric(&lhs.ty) && non_numeric(&rhs.ty) && lhs.ty != rhs.ty {
                format!(
                    "operator `{}` cannot compare `{}` and `{}`",
                    op.as_str(),
                    self.show(&lhs.ty),
                    self.show(&rhs.ty)
                )
            } else {
                let culprit = if non_numeric(&lhs.ty) {
                    &lhs.ty
                } else {
                    &rhs.ty
                };
                format!(
                    "operator `{}` cannot be applied to `{}`",
                    op.as_str(),
                    self.show(culprit)
                )
            };
            self.error(span, message);
            return Expr::error(span);
        }
        let typing = match types::binary_operands(class, &lhs.ty, &rhs.ty) {
            Ok(typing) => typing,
            Err(err) => return self.operator_error(err, op.as_str(), span),
        };
        if let Some(warning) = typing.warning {
            self.warning(span, warning.to_string());
        }
        let lhs = self.convert_to(lhs, &typing.lhs);
        let rhs = self.convert_to(rhs, &typing.rhs);
        let kind = match hir_op {
            BinaryOp::LogicalAnd if typing.result.is_scalar() => {
                ExprKind::LogicalAnd(Box::new(lhs), Box::new(rhs))
            }
            BinaryOp::LogicalOr if typing.result.is_scalar() => {
                ExprKind::LogicalOr(Box::new(lhs), Box::new(rhs))
            }
            _ => ExprKind::Binary {
                op: hir_op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
        };
        try_fold(Expr::new(kind, typing.result, span))
    }

    fn check_ternary(
        &mut self,
        cond: &ast::Expr,
        then_expr: &ast::Expr,
        else_expr: &ast::Expr,
        span: Span,
    ) -> Expr {
        let cond = self.check_expr(cond);
        let then_expr = self.check_expr(then_expr);
        let else_expr = self.check_expr(else_expr);
        let Some(common) = types::common_type(&then_expr.ty, &else_expr.ty) else {
            let (a, b) = (self.show(&then_expr.ty), self.show(&else_expr.ty));
            self.error(
                span,
                format!("branches of `?:` have incompatible types `{a}` and `{b}`"),
            );
            return Expr::error(span);
        };
        let common = if common == Type::Null {
            Type::Texture
        } else {
            common
        };
        let vector_cond = matches!(cond.ty, Type::Vector(_, n) if n > 1);
        if vector_cond {
            // Component-wise select: the condition's shape decides the result's shape.
            let Type::Vector(_, n) = cond.ty else {
                unreachable!("checked above")
            };
            let kind = common.component_kind().unwrap_or(ScalarKind::Float);
            let result = Type::Vector(kind, n);
            let cond = self.coerce(cond, &Type::Vector(ScalarKind::Bool, n));
            let then_expr = self.coerce(then_expr, &result);
            let else_expr = self.coerce(else_expr, &result);
            let kind = ExprKind::Select {
                cond: Box::new(cond),
                then_expr: Box::new(then_expr),
                else_expr: Box::new(else_expr),
            };
            return Expr::new(kind, result, span);
        }
        let cond = self.condition(cond);
        let then_expr = self.convert_to(then_expr, &common);
        let else_expr = self.convert_to(else_expr, &common);
        let kind = ExprKind::Conditional {
            cond: Box::new(cond),
            then_expr: Box::new(then_expr),
            else_expr: Box::new(else_expr),
        };
        try_fold(Expr::new(kind, common, span))
    }

    fn check_assign(
        &mut self,
        op: ast::AssignOp,
        target: &ast::Expr,
        value: &ast::Expr,
        span: Span,
    ) -> Expr {
        let Some(place) = self.check_place(target) else {
            // Still check the value for its own errors.
            if !matches!(value.kind, ast::ExprKind::InitList(_)) {
                self.check_expr(value);
            }
            return Expr::error(span);
        };
        let ty = place.ty.clone();
        match op.binary_op() {
            None => {
                let value = self.check_expr_as(value, &ty);
                Expr::new(
                    ExprKind::Assign {
                        place: Box::new(place),
                        value: Box::new(value),
                    },
                    ty,
                    span,
                )
            }
            Some(bin) => {
                let rhs = self.check_expr(value);
                let old = Expr::new(ExprKind::PlaceValue, ty.clone(), target.span);
                let combined = self.binary(bin, old, rhs, span);
                let value = self.coerce(combined, &ty);
                Expr::new(
                    ExprKind::Update {
                        place: Box::new(place),
                        value: Box::new(value),
                        returns_old: false,
                    },
                    ty,
                    span,
                )
            }
        }
    }

    fn sizeof(&mut self, ty: &Type, span: Span) -> Expr {
        match self.types.size_of(ty) {
            Some(size) if !matches!(ty, Type::Array(_, None)) => Expr::new(
                ExprKind::Const(ConstValue::Uint(size as u64)),
                Type::UINT,
                span,
            ),
            _ => {
                if *ty != Type::Error {
                    self.error(span, format!("cannot take the size of `{}`", self.show(ty)));
                }
                Expr::new(ExprKind::Error, Type::UINT, span)
            }
        }
    }

    /// `base.member`: a struct field, a view field, or a swizzle.
    pub fn check_member(&mut self, base: Expr, member: &ast::Ident, span: Span) -> Expr {
        let name = member.name.as_str();
        match self.member_access(&base.ty, name, member.span) {
            Some(Member::Field(index, ty)) => try_fold(Expr::new(
                ExprKind::Field {
                    base: Box::new(base),
                    field: index,
                },
                ty,
                span,
            )),
            Some(Member::ViewField(offset, ty)) => Expr::new(
                ExprKind::ViewField {
                    base: Box::new(base),
                    offset,
                },
                ty,
                span,
            ),
            Some(Member::Swizzle(components, ty)) => try_fold(Expr::new(
                ExprKind::Swizzle {
                    base: Box::new(base),
                    components,
                },
                ty,
                span,
            )),
            None => Expr::error(span),
        }
    }

    /// Resolves `.name` on a value of type `ty`, reporting errors (returns `None` after one).
    pub(crate) fn member_access(&mut self, ty: &Type, name: &str, span: Span) -> Option<Member> {
        match ty {
            Type::Error => None,
            Type::Struct(id) => {
                let def = self.types.struct_def(*id)?;
                if let Some(index) = def.fields.iter().position(|f| f.name == name) {
                    return Some(Member::Field(index as u32, def.fields[index].ty.clone()));
                }
                let help = suggest::did_you_mean(name, def.fields.iter().map(|f| f.name.as_str()));
                self.no_field(ty, name, span, help);
                None
            }
            Type::Texture | Type::Buffer => {
                let layout: &[types::ViewField] = if *ty == Type::Texture {
                    &types::TEXTURE_LAYOUT
                } else {
                    &types::BUFFER_LAYOUT
                };
                if let Some(field) = layout.iter().find(|f| f.name == name) {
                    return Some(Member::ViewField(field.offset, Type::Scalar(field.kind)));
                }
                // rpsl.h's `texture.SubresourceRange` is the prelude struct `SubResourceRange`
                // (four `uint`s at byte 16).
                if *ty == Type::Texture && name == "SubresourceRange" {
                    if let Some(id) = self.types.struct_by_name("SubResourceRange") {
                        return Some(Member::ViewField(16, Type::Struct(id)));
                    }
                }
                let help = if crate::builtins::view_method(ty, name).is_some() {
                    Some(format!("`{name}` is a method: call it with `{name}(..)`"))
                } else {
                    let methods = crate::builtins::method_names(ty);
                    suggest::did_you_mean(name, layout.iter().map(|f| f.name).chain(methods))
                };
                self.no_field(ty, name, span, help);
                None
            }
            Type::Scalar(_) | Type::Vector(..) | Type::Enum(_) => {
                let dim = match ty {
                    Type::Vector(_, n) => *n,
                    _ => 1,
                };
                let value_ty = if let Type::Enum(_) = ty {
                    Type::INT
                } else {
                    ty.clone()
                };
                match (types::swizzle_indices(name, dim), value_ty.swizzle(name)) {
                    (Some(indices), Some(result)) => Some(Member::Swizzle(indices, result)),
                    _ => {
                        self.error(
                            span,
                            format!("invalid swizzle `{name}` on `{}`", self.show(ty)),
                        );
                        None
                    }
                }
            }
            Type::Matrix(kind, rows, cols) => {
                match types::matrix_member_indices(name, *rows, *cols) {
                    Ok(indices) => {
                        let result = Type::scalar_or_vector(
                            *kind,
                            if indices.len() == 1 {
                                0
                            } else {
                                indices.len() as u8
                            },
                        );
                        Some(Member::Swizzle(indices, result))
                    }
                    Err(error) => {
                        let shown = self.show(ty);
                        let message = match error {
                            types::MatrixMemberError::Syntax => {
                                format!("invalid matrix member `{name}` on `{shown}`")
                            }
                            types::MatrixMemberError::MixedStyles => format!(
                                "matrix member `{name}` mixes zero-based `_mRC` and one-based `_RC` forms"
                            ),
                            types::MatrixMemberError::OutOfRange => {
                                format!("matrix member `{name}` is out of range for `{shown}`")
                            }
                            types::MatrixMemberError::TooMany => format!(
                                "matrix member `{name}` selects more than 4 components"
                            ),
                        };
                        let diag = Diagnostic::error(span, message).with_help(
                            "matrix members are `_m00`..`_m33` (zero-based) or `_11`..`_44` (one-based), up to 4 joined like `_m00_m11`",
                        );
                        self.report(diag);
                        None
                    }
                }
            }
            _ => {
                self.no_field(ty, name, span, None);
                None
            }
        }
    }

    fn no_field(&mut self, ty: &Type, name: &str, span: Span, help: Option<String>) {
        let mut diag = Diagnostic::error(span, format!("no field `{name}` on `{}`", self.show(ty)));
        if let Some(help) = help {
            diag = diag.with_help(help);
        }
        self.report(diag);
    }

    /// The element count of an indexable type, and the element type; reports otherwise.
    pub(crate) fn index_info(&mut self, ty: &Type, span: Span) -> Option<(u32, Type)> {
        let len = match ty {
            Type::Error => return None,
            Type::Array(_, len) => len.unwrap_or(0),
            Type::Vector(_, n) => *n as u32,
            Type::Matrix(_, rows, _) => *rows as u32,
            _ => {
                self.error(
                    span,
                    format!("cannot index a value of type `{}`", self.show(ty)),
                );
                return None;
            }
        };
        Some((len, ty.index_result()?))
    }

    pub(crate) fn check_index_value(
        &mut self,
        index: &ast::Expr,
        len: u32,
        base_ty: &Type,
    ) -> Expr {
        let checked = self.check_expr(index);
        if checked.ty != Type::Error
            && !checked
                .ty
                .component_kind()
                .is_some_and(|k| k.is_integer() || k == ScalarKind::Bool)
        {
            self.error(
                index.span,
                format!(
                    "array index must be an integer, found `{}`",
                    self.show(&checked.ty)
                ),
            );
            return Expr::new(ExprKind::Error, Type::UINT, index.span);
        }
        // A signed index stays `int`, so that a negative one is reported as negative (here and
        // by the VM's bounds check); every other index is `uint`.
        let signed = checked
            .ty
            .component_kind()
            .is_some_and(|k| k.is_signed_integer());
        let index_ty = if signed { Type::INT } else { Type::UINT };
        let index_expr = self.coerce(checked, &index_ty);
        let constant = match index_expr.as_const() {
            Some(ConstValue::Uint(i)) => Some(*i as i128),
            Some(ConstValue::Int(i)) => Some(*i as i128),
            _ => None,
        };
        if let Some(i) = constant {
            if len > 0 && (i < 0 || i >= len as i128) {
                let shown = self.show(base_ty);
                self.error(
                    index.span,
                    format!("index {i} is out of bounds for `{shown}`"),
                );
            }
        }
        index_expr
    }

    fn check_index(&mut self, base: Expr, index: &ast::Expr, span: Span) -> Expr {
        let Some((len, elem)) = self.index_info(&base.ty, base.span) else {
            self.check_expr(index);
            return Expr::error(span);
        };
        let index = self.check_index_value(index, len, &base.ty);
        Expr::new(
            ExprKind::Index {
                base: Box::new(base),
                index: Box::new(index),
                len,
            },
            elem,
            span,
        )
    }
}

/// A resolved `.name`.
pub(crate) enum Member {
    Field(u32, Type),
    ViewField(u32, Type),
    Swizzle(Vec<u8>, Type),
}

fn binary_class(op: ast::BinaryOp) -> (BinaryOpClass, BinaryOp) {
    use ast::BinaryOp as A;
    match op {
        A::Mul => (BinaryOpClass::Arithmetic, BinaryOp::Mul),
        A::Div => (BinaryOpClass::Arithmetic, BinaryOp::Div),
        A::Add => (BinaryOpClass::Arithmetic, BinaryOp::Add),
        A::Sub => (BinaryOpClass::Arithmetic, BinaryOp::Sub),
        A::Rem => (BinaryOpClass::Remainder, BinaryOp::Rem),
        A::Shl => (BinaryOpClass::Shift, BinaryOp::Shl),
        A::Shr => (BinaryOpClass::Shift, BinaryOp::Shr),
        A::Lt => (BinaryOpClass::Comparison, BinaryOp::Lt),
        A::Gt => (BinaryOpClass::Comparison, BinaryOp::Gt),
        A::Le => (BinaryOpClass::Comparison, BinaryOp::Le),
        A::Ge => (BinaryOpClass::Comparison, BinaryOp::Ge),
        A::Eq => (BinaryOpClass::Comparison, BinaryOp::Eq),
        A::Ne => (BinaryOpClass::Comparison, BinaryOp::Ne),
        A::BitAnd => (BinaryOpClass::Bitwise, BinaryOp::BitAnd),
        A::BitXor => (BinaryOpClass::Bitwise, BinaryOp::BitXor),
        A::BitOr => (BinaryOpClass::Bitwise, BinaryOp::BitOr),
        A::LogicalAnd => (BinaryOpClass::Logical, BinaryOp::LogicalAnd),
        A::LogicalOr => (BinaryOpClass::Logical, BinaryOp::LogicalOr),
    }
}

/// The type and value of an integer literal: unsuffixed literals have the literal kind; `u` gives
/// `uint` (`uint64_t` when it does not fit), `l`/`ll` give the 64-bit kinds.
fn int_literal(lit: &ast::IntLiteral, span: Span) -> Expr {
    let wide = lit.long != ast::LongSuffix::None;
    let (ty, value) = if lit.is_unsigned {
        let ty = if wide || lit.value > u32::MAX as u64 {
            Type::UINT64
        } else {
            Type::UINT
        };
        (ty, ConstValue::Uint(lit.value))
    } else if wide {
        (
            Type::Scalar(ScalarKind::Int64),
            ConstValue::Int(lit.value as i64),
        )
    } else {
        (Type::LITERAL_INT, ConstValue::Int(lit.value as i64))
    };
    Expr::new(ExprKind::Const(value), ty, span)
}

/// Whether a checked expression is free of side effects (so it may be evaluated more than once).
pub(crate) fn is_pure(expr: &Expr) -> bool {
    match &expr.kind {
        ExprKind::Const(_) | ExprKind::Local(_) | ExprKind::Global(_) | ExprKind::Error => true,
        ExprKind::Field { base, .. }
        | ExprKind::ViewField { base, .. }
        | ExprKind::Swizzle { base, .. } => is_pure(base),
        ExprKind::Index { base, index, .. } => is_pure(base) && is_pure(index),
        ExprKind::Convert(inner) | ExprKind::Unary { operand: inner, .. } => is_pure(inner),
        ExprKind::Binary { lhs, rhs, .. } => is_pure(lhs) && is_pure(rhs),
        _ => false,
    }
}
