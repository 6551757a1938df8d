//! Constant folding: conversions, unary and binary operators, constructors and swizzles on
//! [`ConstValue`]s, with HLSL's wrap-around integer arithmetic and `f32` rounding.
//!
//! Sema folds as it builds expressions, so a constant expression (array size, enumerator value,
//! case label, `static const` initializer) arrives as an [`ExprKind::Const`].

use crate::hir::{BinaryOp, ConstValue, Expr, ExprKind, UnaryOp};
use crate::types::{ScalarKind, Type};

/// Normalizes a scalar value to the representation of `kind` (wrapping, rounding to `f32`).
fn scalar_to(value: &ConstValue, kind: ScalarKind) -> Option<ConstValue> {
    use ScalarKind::*;
    let as_f64 = |v: &ConstValue| match *v {
        ConstValue::Bool(b) => Some(b as u8 as f64),
        ConstValue::Int(i) => Some(i as f64),
        ConstValue::Uint(u) => Some(u as f64),
        ConstValue::Float(f) => Some(f),
        _ => None,
    };
    let as_bits = |v: &ConstValue| match *v {
        ConstValue::Bool(b) => Some(b as u64),
        ConstValue::Int(i) => Some(i as u64),
        ConstValue::Uint(u) => Some(u),
        // Float to integer truncates toward zero and saturates (HLSL leaves overflow undefined).
        ConstValue::Float(f) => Some(if f < 0.0 { (f as i64) as u64 } else { f as u64 }),
        _ => None,
    };
    Some(match kind {
        Bool => ConstValue::Bool(match *value {
            ConstValue::Float(f) => f != 0.0,
            _ => as_bits(value)? != 0,
        }),
        Int => ConstValue::Int(match *value {
            ConstValue::Float(f) => f as i32 as i64,
            _ => as_bits(value)? as i32 as i64,
        }),
        LiteralInt | Int64 => ConstValue::Int(match *value {
            ConstValue::Float(f) => f as i64,
            _ => as_bits(value)? as i64,
        }),
        Uint => ConstValue::Uint(match *value {
            ConstValue::Float(f) if f < 0.0 => f as i32 as u32 as u64,
            ConstValue::Float(f) => f as u32 as u64,
            _ => as_bits(value)? as u32 as u64,
        }),
        Uint64 => ConstValue::Uint(match *value {
            ConstValue::Float(f) if f < 0.0 => f as i64 as u64,
            ConstValue::Float(f) => f as u64,
            _ => as_bits(value)?,
        }),
        Half | Float => ConstValue::Float(match *value {
            ConstValue::Uint(u) => u as f32 as f64,
            _ => as_f64(value)? as f32 as f64,
        }),
        LiteralFloat | Double => ConstValue::Float(as_f64(value)?),
    })
}

fn components(value: &ConstValue) -> Vec<ConstValue> {
    match value {
        ConstValue::Composite(parts) => parts.iter().flat_map(components).collect(),
        other => vec![other.clone()],
    }
}

/// Converts a constant of type `from` to type `to`; `None` when the conversion cannot be folded.
///
/// ```
/// use rpsl_frontend::hir::ConstValue;
/// use rpsl_frontend::sema::fold_conversion;
/// use rpsl_frontend::types::{ScalarKind, Type};
/// let v = fold_conversion(&ConstValue::Int(-1), &Type::LITERAL_INT, &Type::UINT);
/// assert_eq!(v, Some(ConstValue::Uint(0xffff_ffff)));
/// let v = fold_conversion(&ConstValue::Float(0.5), &Type::FLOAT, &Type::Vector(ScalarKind::Float, 2));
/// assert_eq!(v, Some(ConstValue::Composite(vec![ConstValue::Float(0.5), ConstValue::Float(0.5)])));
/// // A one-component vector stays a composite.
/// let v = fold_conversion(&ConstValue::Int(2), &Type::LITERAL_INT, &Type::Vector(ScalarKind::Float, 1));
/// assert_eq!(v, Some(ConstValue::Composite(vec![ConstValue::Float(2.0)])));
/// ```
pub fn fold_conversion(value: &ConstValue, from: &Type, to: &Type) -> Option<ConstValue> {
    match to {
        Type::Texture | Type::Buffer => {
            return (*value == ConstValue::NullView).then_some(ConstValue::NullView)
        }
        Type::Error => return None,
        _ => {}
    }
    if from == to {
        return Some(value.clone());
    }
    let kind = to.component_kind()?;
    from.component_kind()?;
    let count = to.component_count()? as usize;
    if to.is_scalar() && !matches!(value, ConstValue::Composite(_)) {
        // A scalar to a scalar (the common case): no component lists.
        return scalar_to(value, kind);
    }
    let source = components(value);
    let parts: Vec<ConstValue> = if source.len() == 1 {
        let one = scalar_to(&source[0], kind)?;
        vec![one; count]
    } else if source.len() >= count {
        source[..count]
            .iter()
            .map(|v| scalar_to(v, kind))
            .collect::<Option<_>>()?
    } else {
        return None;
    };
    Some(if to.is_scalar() {
        parts.into_iter().next()?
    } else {
        ConstValue::Composite(parts)
    })
}

/// Builds a vector or matrix constant from parts already of the target's component kind.
pub fn fold_construct(parts: &[&ConstValue], to: &Type) -> Option<ConstValue> {
    let kind = to.component_kind()?;
    let values: Vec<ConstValue> = parts
        .iter()
        .flat_map(|p| components(p))
        .map(|v| scalar_to(&v, kind))
        .collect::<Option<_>>()?;
    if values.len() != to.component_count()? as usize {
        return None;
    }
    Some(if to.is_scalar() {
        values.into_iter().next()?
    } else {
        ConstValue::Composite(values)
    })
}

/// Picks components of a scalar or vector constant.
pub fn fold_swizzle(value: &ConstValue, indices: &[u8]) -> Option<ConstValue> {
    let source = components(value);
    let picked: Vec<ConstValue> = indices
        .iter()
        .map(|&i| source.get(i as usize).cloned())
        .collect::<Option<_>>()?;
    Some(if picked.len() == 1 {
        picked.into_iter().next()?
    } else {
        ConstValue::Composite(picked)
    })
}

fn map1(value: &ConstValue, f: &dyn Fn(&ConstValue) -> Option<ConstValue>) -> Option<ConstValue> {
    match value {
        ConstValue::Composite(parts) => Some(ConstValue::Composite(
            parts.iter().map(f).collect::<Option<_>>()?,
        )),
        other => f(other),
    }
}

fn map2(
    a: &ConstValue,
    b: &ConstValue,
    f: &dyn Fn(&ConstValue, &ConstValue) -> Option<ConstValue>,
) -> Option<ConstValue> {
    match (a, b) {
        (ConstValue::Composite(x), ConstValue::Composite(y)) if x.len() == y.len() => {
            Some(ConstValue::Composite(
                x.iter()
                    .zip(y)
                    .map(|(p, q)| f(p, q))
                    .collect::<Option<_>>()?,
            ))
        }
        (ConstValue::Composite(_), _) | (_, ConstValue::Composite(_)) => None,
        (p, q) => f(p, q),
    }
}

/// Folds a unary operator on an operand of type `ty` (the result has the same kind, except `!`).
pub fn fold_unary(op: UnaryOp, value: &ConstValue, ty: &Type) -> Option<ConstValue> {
    let kind = ty.component_kind()?;
    map1(value, &|v| {
        let raw = match (op, v) {
            (UnaryOp::Neg, ConstValue::Int(i)) => ConstValue::Int(i.wrapping_neg()),
            (UnaryOp::Neg, ConstValue::Uint(u)) => ConstValue::Uint(u.wrapping_neg()),
            (UnaryOp::Neg, ConstValue::Float(f)) => ConstValue::Float(-f),
            (UnaryOp::BitNot, ConstValue::Int(i)) => ConstValue::Int(!i),
            (UnaryOp::BitNot, ConstValue::Uint(u)) => ConstValue::Uint(!u),
            (UnaryOp::Not, ConstValue::Bool(b)) => return Some(ConstValue::Bool(!b)),
            _ => return None,
        };
        scalar_to(&raw, kind)
    })
}

fn int_op(op: BinaryOp, a: i128, b: i128, bits: u32) -> Option<i128> {
    Some(match op {
        BinaryOp::Add => a + b,
        BinaryOp::Sub => a - b,
        BinaryOp::Mul => a.wrapping_mul(b),
        BinaryOp::Div => {
            if b == 0 {
                return None;
            }
            a / b
        }
        BinaryOp::Rem => {
            if b == 0 {
                return None;
            }
            a % b
        }
        BinaryOp::Shl => a << (b as u32 & (bits - 1)),
        BinaryOp::Shr => a >> (b as u32 & (bits - 1)),
        BinaryOp::BitAnd => a & b,
        BinaryOp::BitOr => a | b,
        BinaryOp::BitXor => a ^ b,
        _ => return None,
    })
}

/// Folds a binary operator on operands of type `operand_ty` (both already converted to it);
/// the result is of `result_ty`. Integer division by zero is not folded (it faults at run time).
pub fn fold_binary(
    op: BinaryOp,
    a: &ConstValue,
    b: &ConstValue,
    operand_ty: &Type,
    result_ty: &Type,
) -> Option<ConstValue> {
    let kind = operand_ty.component_kind()?;
    let result_kind = result_ty.component_kind()?;
    let bits = if kind.size() == 8 || kind == ScalarKind::LiteralInt {
        64
    } else {
        32
    };
    map2(a, b, &|x, y| {
        use std::cmp::Ordering;
        let ordering = match (x, y) {
            (ConstValue::Int(p), ConstValue::Int(q)) => p.partial_cmp(q),
            (ConstValue::Uint(p), ConstValue::Uint(q)) => p.partial_cmp(q),
            (ConstValue::Float(p), ConstValue::Float(q)) => p.partial_cmp(q),
            (ConstValue::Bool(p), ConstValue::Bool(q)) => p.partial_cmp(q),
            _ => None,
        };
        let compare = |f: fn(Ordering) -> bool| Some(ConstValue::Bool(ordering.is_some_and(f)));
        match op {
            BinaryOp::Lt => return compare(|o| o == Ordering::Less),
            BinaryOp::Le => return compare(|o| o != Ordering::Greater),
            BinaryOp::Gt => return compare(|o| o == Ordering::Greater),
            BinaryOp::Ge => return compare(|o| o != Ordering::Less),
            BinaryOp::Eq => return compare(|o| o == Ordering::Equal),
            BinaryOp::Ne => return Some(ConstValue::Bool(ordering != Some(Ordering::Equal))),
            BinaryOp::LogicalAnd | BinaryOp::LogicalOr => {
                let (ConstValue::Bool(p), ConstValue::Bool(q)) = (x, y) else {
                    return None;
                };
                return Some(ConstValue::Bool(if op == BinaryOp::LogicalAnd {
                    *p && *q
                } else {
                    *p || *q
                }));
            }
            _ => {}
        }
        let raw = match (x, y) {
            (ConstValue::Int(p), ConstValue::Int(q)) => {
                let shift_unsigned = false;
                let _ = shift_unsigned;
                ConstValue::Int(int_op(op, *p as i128, *q as i128, bits)? as i64)
            }
            (ConstValue::Uint(p), ConstValue::Uint(q)) => {
                let r = int_op(op, *p as i128, *q as i128, bits)?;
                ConstValue::Uint(r as u64)
            }
            (ConstValue::Float(p), ConstValue::Float(q)) => ConstValue::Float(match op {
                BinaryOp::Add => p + q,
                BinaryOp::Sub => p - q,
                BinaryOp::Mul => p * q,
                BinaryOp::Div => p / q,
                BinaryOp::Rem => p % q,
                _ => return None,
            }),
            _ => return None,
        };
        scalar_to(&raw, result_kind)
    })
}

/// Replaces an expression by a constant when all of its operands are constants.
pub fn try_fold(expr: Expr) -> Expr {
    let folded = match &expr.kind {
        ExprKind::Convert(inner) => inner
            .as_const()
            .and_then(|v| fold_conversion(v, &inner.ty, &expr.ty)),
        ExprKind::Unary { op, operand } => operand
            .as_const()
            .and_then(|v| fold_unary(*op, v, &operand.ty)),
        ExprKind::Binary { op, lhs, rhs } => match (lhs.as_const(), rhs.as_const()) {
            (Some(a), Some(b)) => fold_binary(*op, a, b, &lhs.ty, &expr.ty),
            _ => None,
        },
        ExprKind::LogicalAnd(lhs, rhs) | ExprKind::LogicalOr(lhs, rhs) => {
            let is_and = matches!(expr.kind, ExprKind::LogicalAnd(..));
            match (lhs.as_const(), rhs.as_const()) {
                (Some(ConstValue::Bool(a)), Some(ConstValue::Bool(b))) => {
                    Some(ConstValue::Bool(if is_and { *a && *b } else { *a || *b }))
                }
                _ => None,
            }
        }
        ExprKind::Conditional {
            cond,
            then_expr,
            else_expr,
        } => match cond.as_const() {
            Some(ConstValue::Bool(true)) => then_expr.as_const().cloned(),
            Some(ConstValue::Bool(false)) => else_expr.as_const().cloned(),
            _ => None,
        },
        ExprKind::Construct(parts) => {
            let values: Option<Vec<&ConstValue>> = parts.iter().map(Expr::as_const).collect();
            values.and_then(|values| fold_construct(&values, &expr.ty))
        }
        ExprKind::Aggregate(parts) => {
            let values: Option<Vec<ConstValue>> =
                parts.iter().map(|p| p.as_const().cloned()).collect();
            values.map(ConstValue::Composite)
        }
        ExprKind::Swizzle { base, components } => {
            base.as_const().and_then(|v| fold_swizzle(v, components))
        }
        ExprKind::Field { base, field } => match base.as_const() {
            Some(ConstValue::Composite(fields)) => fields.get(*field as usize).cloned(),
            _ => None,
        },
        ExprKind::Comma(_, _) => None,
        _ => None,
    };
    match folded {
        Some(value) => Expr {
            kind: ExprKind::Const(value),
            ty: expr.ty,
            span: expr.span,
        },
        None => expr,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_integer_wraparound() {
        let uint = Type::UINT;
        let v = fold_binary(
            BinaryOp::Sub,
            &ConstValue::Uint(0),
            &ConstValue::Uint(1),
            &uint,
            &uint,
        );
        assert_eq!(v, Some(ConstValue::Uint(0xffff_ffff)));
        let int = Type::INT;
        let v = fold_binary(
            BinaryOp::Shr,
            &ConstValue::Int(-16),
            &ConstValue::Int(2),
            &int,
            &int,
        );
        assert_eq!(v, Some(ConstValue::Int(-4)));
        let v = fold_binary(
            BinaryOp::Div,
            &ConstValue::Int(1),
            &ConstValue::Int(0),
            &int,
            &int,
        );
        assert_eq!(v, None);
        let v = fold_binary(
            BinaryOp::Lt,
            &ConstValue::Int(1),
            &ConstValue::Int(2),
            &int,
            &Type::BOOL,
        );
        assert_eq!(v, Some(ConstValue::Bool(true)));
    }

    #[test]
    fn folds_conversions() {
        assert_eq!(
            fold_conversion(&ConstValue::Float(2.7), &Type::FLOAT, &Type::INT),
            Some(ConstValue::Int(2))
        );
        assert_eq!(
            fold_conversion(&ConstValue::Int(3), &Type::INT, &Type::BOOL),
            Some(ConstValue::Bool(true))
        );
        assert_eq!(
            fold_conversion(&ConstValue::Float(0.1), &Type::LITERAL_FLOAT, &Type::FLOAT),
            Some(ConstValue::Float(0.1f32 as f64))
        );
    }
}
