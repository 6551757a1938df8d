//! Implicit conversions with overload ranking, operator operand typing, and explicit casts, per HLSL.
//!
//! # Implicit conversions ([`conversion`])
//! A conversion has a component rank and a shape change:
//! * ranks, best first: [`ConversionRank::Exact`] (same kind; also a literal to its natural kind,
//!   `1` → `int`, `1.0` → `float`); [`ConversionRank::Literal`] (an unsuffixed literal to another numeric
//!   kind: `1` → `uint`/`float`/`int64_t`, `1.0` → `half`/`double`); [`ConversionRank::Promotion`]
//!   (widening without loss: `half`→`float`→`double`, `int`→`int64_t`, `uint`→`uint64_t`/`int64_t`,
//!   an enum → `int`); [`ConversionRank::Conversion`] (everything else between numeric kinds: sign changes,
//!   int↔float, to and from `bool`, narrowing, `int` → enum, enum → enum);
//! * shapes: [`ShapeChange::None`] (same shape, or a scalar ↔ 1-component vector, or a vector ↔ a
//!   1-row/1-column matrix of as many components); [`ShapeChange::Splat`] (scalar → vector or matrix);
//!   [`ShapeChange::Truncation`] (to fewer components: vector → scalar, `float4` → `float3`, matrix →
//!   smaller matrix) which warns "implicit truncation of vector type". A vector never widens to more
//!   components (`float2` → `float4` has no implicit conversion).
//! * Narrowing 64-bit kinds to 32-bit ones (`double` → `float`, `uint64_t` → `uint`) warns
//!   "conversion from larger type to smaller, possible loss of data".
//! * Non-numeric types convert only to themselves; `null` converts to `texture`, `buffer` and `node`; an array
//!   converts to an unsized array parameter of the same element type; the error type converts to and
//!   from everything without cost or warning.
//!
//! Overload resolution sums [`Conversion::cost`] or compares candidates argument by argument with
//! [`compare_candidates`] (C++ style: better when no argument is worse and one is better).
//!
//! # Operators ([`binary_operands`], [`unary_operand`])
//! * Operands must be numeric (scalars, vectors, matrices, enums; enums count as `int`).
//! * Shape: a scalar (or 1-component vector) combines with anything and is splatted; two vectors of
//!   different sizes truncate to the smaller, with the truncation warning; matrices likewise per
//!   dimension; a vector and a matrix do not mix.
//! * Common component kind: literal kinds yield to the other operand (a literal float with an integer
//!   gives `float`, a literal integer with `bool` gives `int`); otherwise the higher of
//!   `bool < int < uint < int64_t < uint64_t < half < float < double` (so `int` with `uint` is
//!   `uint`, `int` with `float` is `float`).
//! * Arithmetic (`+ - * /`) and `%`: the common kind, `bool` promoted to `int`; `%` is allowed on
//!   floats (fmod semantics, the sign of the dividend).
//! * Bitwise (`& | ^`): the common kind must be an integer (`bool` promotes to `int`); floats are an error.
//! * Shifts (`<< >>`): the result has the left operand's kind (`bool` → `int`) and the common shape; the
//!   right operand converts to that kind; floats are an error.
//! * Comparisons (`< <= > >= == !=`): operands convert to the common kind; the result is `bool` of the
//!   common shape.
//! * Logical (`&& ||`): operands convert to `bool` of the common shape; the result is `bool` of that shape.
//! * Unary `-`/`+`: numeric, `bool` → `int`; `~`: integers only; `!`: `bool` of the same shape;
//!   `++`/`--`: numeric non-`bool`, non-enum, result unchanged.

use std::cmp::Ordering;
use std::fmt;

use super::{ScalarKind, Type, TypeTable};

/// How good the component part of a conversion is, best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ConversionRank {
    /// Identical kinds, or a literal to its natural kind.
    Exact,
    /// An unsuffixed literal to another numeric kind.
    Literal,
    /// Lossless widening.
    Promotion,
    /// Any other numeric conversion.
    Conversion,
}

/// How the shape changes in a conversion, best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ShapeChange {
    /// The same number of components.
    None,
    /// A scalar replicated into a vector or matrix.
    Splat,
    /// Components dropped (warns).
    Truncation,
}

/// A warning an implicit conversion or an operator produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConversionWarning {
    /// "implicit truncation of vector type".
    ImplicitTruncation,
    /// "conversion from larger type to smaller, possible loss of data".
    PrecisionLoss,
}

impl fmt::Display for ConversionWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ConversionWarning::ImplicitTruncation => "implicit truncation of vector type",
            ConversionWarning::PrecisionLoss => {
                "conversion from larger type to smaller, possible loss of data"
            }
        })
    }
}

/// An allowed implicit conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Conversion {
    /// Component rank.
    pub rank: ConversionRank,
    /// Shape change.
    pub shape: ShapeChange,
    /// The warning to report at the converted expression, if any.
    pub warning: Option<ConversionWarning>,
}

impl Conversion {
    /// No conversion at all.
    pub const EXACT: Conversion = Conversion {
        rank: ConversionRank::Exact,
        shape: ShapeChange::None,
        warning: None,
    };

    /// A number for summing over arguments: 0 exact, literal 1, promotion 2, conversion 4, plus 8 for
    /// a splat and 16 for a truncation (a shape change is worse than any component change).
    pub fn cost(&self) -> u32 {
        let rank = match self.rank {
            ConversionRank::Exact => 0,
            ConversionRank::Literal => 1,
            ConversionRank::Promotion => 2,
            ConversionRank::Conversion => 4,
        };
        let shape = match self.shape {
            ShapeChange::None => 0,
            ShapeChange::Splat => 8,
            ShapeChange::Truncation => 16,
        };
        rank + shape
    }

    /// Whether nothing changes.
    pub fn is_exact(&self) -> bool {
        self.rank == ConversionRank::Exact && self.shape == ShapeChange::None
    }
}

/// Compares two overload candidates by their per-argument conversions: `Less` when `a` is better
/// (no argument worse, at least one better), `Greater` when `b` is, `Equal` when neither is
/// (ambiguous if both are the best so far). Lists of different lengths compare by total cost.
pub fn compare_candidates(a: &[Conversion], b: &[Conversion]) -> Ordering {
    if a.len() != b.len() {
        let sum = |list: &[Conversion]| list.iter().map(Conversion::cost).sum::<u32>();
        return sum(a).cmp(&sum(b));
    }
    let mut a_better = false;
    let mut b_better = false;
    for (x, y) in a.iter().zip(b) {
        match x.cost().cmp(&y.cost()) {
            Ordering::Less => a_better = true,
            Ordering::Greater => b_better = true,
            Ordering::Equal => {}
        }
    }
    match (a_better, b_better) {
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        _ => Ordering::Equal,
    }
}

/// The shape of a numeric value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    Scalar,
    Vector(u8),
    Matrix(u8, u8),
}

fn shape_of(ty: &Type) -> Option<Shape> {
    match ty {
        Type::Scalar(_) | Type::Enum(_) => Some(Shape::Scalar),
        Type::Vector(_, n) => Some(Shape::Vector(*n)),
        Type::Matrix(_, r, c) => Some(Shape::Matrix(*r, *c)),
        _ => None,
    }
}

fn with_shape(kind: ScalarKind, shape: Shape) -> Type {
    match shape {
        Shape::Scalar => Type::Scalar(kind),
        Shape::Vector(n) => Type::Vector(kind, n),
        Shape::Matrix(r, c) => Type::Matrix(kind, r, c),
    }
}

/// Treats a 1-component vector or 1x1 matrix as a scalar for shape rules.
fn normalize(shape: Shape) -> Shape {
    match shape {
        Shape::Vector(1) | Shape::Matrix(1, 1) => Shape::Scalar,
        other => other,
    }
}

fn shape_change(from: Shape, to: Shape) -> Option<ShapeChange> {
    use Shape::*;
    let (nf, nt) = (normalize(from), normalize(to));
    Some(match (nf, nt) {
        (a, b) if a == b => ShapeChange::None,
        (Scalar, _) => ShapeChange::Splat,
        (_, Scalar) => ShapeChange::Truncation,
        (Vector(a), Vector(b)) if b < a => ShapeChange::Truncation,
        (Matrix(r, c), Matrix(r2, c2)) if r2 <= r && c2 <= c => ShapeChange::Truncation,
        (Vector(n), Matrix(r, c)) | (Matrix(r, c), Vector(n))
            if (r == 1 || c == 1) && r * c == n =>
        {
            ShapeChange::None
        }
        _ => return None,
    })
}

fn kind_order(kind: ScalarKind) -> u8 {
    match kind {
        ScalarKind::Bool => 0,
        ScalarKind::Int | ScalarKind::LiteralInt => 1,
        ScalarKind::Uint => 2,
        ScalarKind::Int64 => 3,
        ScalarKind::Uint64 => 4,
        ScalarKind::Half => 5,
        ScalarKind::Float | ScalarKind::LiteralFloat => 6,
        ScalarKind::Double => 7,
    }
}

/// The component rank (and narrowing warning) of converting one kind to another.
pub fn kind_conversion(
    from: ScalarKind,
    to: ScalarKind,
) -> (ConversionRank, Option<ConversionWarning>) {
    use ScalarKind::*;
    let rank = match (from, to) {
        _ if from == to => ConversionRank::Exact,
        (LiteralInt, Int) | (LiteralFloat, Float) => ConversionRank::Exact,
        (_, LiteralInt | LiteralFloat) => ConversionRank::Conversion,
        (LiteralInt, Uint | Int64 | Uint64 | Half | Float | Double) => ConversionRank::Literal,
        (LiteralFloat, Half | Double) => ConversionRank::Literal,
        (Half, Float | Double) | (Float, Double) => ConversionRank::Promotion,
        (Int, Int64) | (Uint, Uint64 | Int64) => ConversionRank::Promotion,
        _ => ConversionRank::Conversion,
    };
    let narrowing = from.size() > to.size() && !from.is_literal() && to != Bool;
    (rank, narrowing.then_some(ConversionWarning::PrecisionLoss))
}

/// The implicit conversion from `from` to `to`, or `None` when there is none.
///
/// ```
/// use rpsl_frontend::types::{conversion, ConversionRank, ConversionWarning, ScalarKind, ShapeChange, Type};
/// let f4 = Type::Vector(ScalarKind::Float, 4);
/// let f3 = Type::Vector(ScalarKind::Float, 3);
/// assert!(conversion(&Type::FLOAT, &Type::FLOAT).unwrap().is_exact());
/// assert_eq!(conversion(&Type::LITERAL_INT, &Type::UINT).unwrap().rank, ConversionRank::Literal);
/// assert_eq!(conversion(&Type::FLOAT, &f4).unwrap().shape, ShapeChange::Splat);
/// assert_eq!(conversion(&f4, &f3).unwrap().warning, Some(ConversionWarning::ImplicitTruncation));
/// assert_eq!(conversion(&f3, &f4), None);
/// ```
pub fn conversion(from: &Type, to: &Type) -> Option<Conversion> {
    match (from, to) {
        (Type::Error, _) | (_, Type::Error) => return Some(Conversion::EXACT),
        (Type::Null, Type::Texture | Type::Buffer | Type::Node) => return Some(Conversion::EXACT),
        (Type::Array(from_elem, from_len), Type::Array(to_elem, to_len)) => {
            let same_len = to_len.is_none() || from_len == to_len;
            return (same_len && (from_elem == to_elem || from_elem.concrete() == **to_elem))
                .then_some(Conversion::EXACT);
        }
        _ => {}
    }
    let (Some(from_shape), Some(to_shape)) = (shape_of(from), shape_of(to)) else {
        return (from == to).then_some(Conversion::EXACT);
    };
    let shape = shape_change(from_shape, to_shape)?;
    let (from_kind, to_kind) = (from.component_kind()?, to.component_kind()?);
    let (mut rank, mut warning) = kind_conversion(from_kind, to_kind);
    match (from, to) {
        (Type::Enum(a), Type::Enum(b)) => {
            rank = if a == b {
                ConversionRank::Exact
            } else {
                ConversionRank::Conversion
            };
        }
        (Type::Enum(_), _) if to_kind == ScalarKind::Int => rank = ConversionRank::Promotion,
        (_, Type::Enum(_)) => rank = ConversionRank::Conversion,
        _ => {}
    }
    if shape == ShapeChange::Truncation {
        warning = Some(ConversionWarning::ImplicitTruncation);
    }
    Some(Conversion {
        rank,
        shape,
        warning,
    })
}

/// The common kind two numeric operands convert to (see the module doc).
pub fn common_kind(a: ScalarKind, b: ScalarKind) -> ScalarKind {
    use ScalarKind::*;
    match (a, b) {
        _ if a == b => a,
        (LiteralInt, Bool) | (Bool, LiteralInt) => Int,
        (LiteralInt, other) | (other, LiteralInt) => other,
        (LiteralFloat, other) | (other, LiteralFloat) => {
            if other.is_float() {
                other
            } else {
                Float
            }
        }
        _ => {
            if kind_order(a) >= kind_order(b) {
                a
            } else {
                b
            }
        }
    }
}

/// The classes of binary operators, which share typing rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOpClass {
    /// `+ - * /`.
    Arithmetic,
    /// `%` (floats allowed, fmod semantics).
    Remainder,
    /// `& | ^`.
    Bitwise,
    /// `<< >>`.
    Shift,
    /// `< <= > >= == !=`.
    Comparison,
    /// `&& ||`.
    Logical,
}

/// The classes of unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOpClass {
    /// `-x`.
    Negate,
    /// `+x`.
    Plus,
    /// `~x`.
    BitNot,
    /// `!x`.
    LogicalNot,
    /// `++x`, `x++`, `--x`, `x--`.
    IncDec,
}

/// The typing of a binary operation: what each operand converts to, and the result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BinaryTyping {
    /// The type the left operand converts to.
    pub lhs: Type,
    /// The type the right operand converts to.
    pub rhs: Type,
    /// The result type.
    pub result: Type,
    /// A warning to report at the operator (vector truncation).
    pub warning: Option<ConversionWarning>,
}

/// The typing of a unary operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnaryTyping {
    /// The type the operand converts to.
    pub operand: Type,
    /// The result type.
    pub result: Type,
}

/// Why an operator does not apply to its operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OperatorError {
    /// An operand is not numeric.
    NotNumeric(Type),
    /// An integer operator got a floating-point operand.
    IntegerRequired(Type),
    /// Shapes that do not combine (a vector with a matrix).
    ShapeMismatch(Type, Type),
    /// `++`/`--` on a `bool` or enum.
    NotIncrementable(Type),
}

impl OperatorError {
    /// The message, with the operator's spelling (`+`, `<<`) and type names from `table`:
    /// * "operator `+` cannot be applied to `texture`"
    /// * "operator `&` requires integer operands, found `float`"
    /// * "operator `+` cannot combine `float4x4` and `float3`"
    /// * "operator `++` cannot be applied to `bool`"
    pub fn message(&self, op: &str, table: &TypeTable) -> String {
        match self {
            OperatorError::NotNumeric(ty) | OperatorError::NotIncrementable(ty) => {
                format!(
                    "operator `{op}` cannot be applied to `{}`",
                    ty.display(table)
                )
            }
            OperatorError::IntegerRequired(ty) => {
                format!(
                    "operator `{op}` requires integer operands, found `{}`",
                    ty.display(table)
                )
            }
            OperatorError::ShapeMismatch(a, b) => {
                format!(
                    "operator `{op}` cannot combine `{}` and `{}`",
                    a.display(table),
                    b.display(table)
                )
            }
        }
    }
}

fn combine_shapes(
    lhs: &Type,
    rhs: &Type,
) -> Result<(Shape, Option<ConversionWarning>), OperatorError> {
    use Shape::*;
    let (a, b) = match (shape_of(lhs), shape_of(rhs)) {
        (Some(a), Some(b)) => (a, b),
        (None, _) => return Err(OperatorError::NotNumeric(lhs.clone())),
        (_, None) => return Err(OperatorError::NotNumeric(rhs.clone())),
    };
    let trunc = Some(ConversionWarning::ImplicitTruncation);
    Ok(match (normalize(a), normalize(b)) {
        (Scalar, Scalar) => (a.max_scalar(b), None),
        (Scalar, other) | (other, Scalar) => (other, None),
        (Vector(n), Vector(m)) => (Vector(n.min(m)), (n != m).then_some(trunc).flatten()),
        (Matrix(r, c), Matrix(r2, c2)) => (
            Matrix(r.min(r2), c.min(c2)),
            ((r, c) != (r2, c2)).then_some(trunc).flatten(),
        ),
        _ => return Err(OperatorError::ShapeMismatch(lhs.clone(), rhs.clone())),
    })
}

impl Shape {
    /// Of two scalar-like shapes, the one with more explicit structure (`float1` over `float`).
    fn max_scalar(self, other: Shape) -> Shape {
        if self == Shape::Scalar {
            other
        } else {
            self
        }
    }
}

/// Types a binary operation (see the module doc for the rules).
///
/// ```
/// use rpsl_frontend::types::{binary_operands, BinaryOpClass, ScalarKind, Type};
/// let t = binary_operands(BinaryOpClass::Arithmetic, &Type::INT, &Type::UINT).unwrap();
/// assert_eq!(t.result, Type::UINT);
/// let f4 = Type::Vector(ScalarKind::Float, 4);
/// let t = binary_operands(BinaryOpClass::Comparison, &f4, &Type::LITERAL_INT).unwrap();
/// assert_eq!(t.rhs, f4);
/// assert_eq!(t.result, Type::Vector(ScalarKind::Bool, 4));
/// ```
pub fn binary_operands(
    class: BinaryOpClass,
    lhs: &Type,
    rhs: &Type,
) -> Result<BinaryTyping, OperatorError> {
    if *lhs == Type::Error || *rhs == Type::Error {
        return Ok(BinaryTyping {
            lhs: lhs.clone(),
            rhs: rhs.clone(),
            result: Type::Error,
            warning: None,
        });
    }
    let (shape, warning) = combine_shapes(lhs, rhs)?;
    let (lk, rk) = (
        lhs.component_kind().unwrap_or(ScalarKind::Int),
        rhs.component_kind().unwrap_or(ScalarKind::Int),
    );
    let common = common_kind(lk, rk);
    let promote_bool = |k: ScalarKind| {
        if k == ScalarKind::Bool {
            ScalarKind::Int
        } else {
            k
        }
    };
    let (operand_kind, result_kind, rhs_kind) = match class {
        BinaryOpClass::Arithmetic | BinaryOpClass::Remainder => {
            let k = promote_bool(common);
            (k, k, k)
        }
        BinaryOpClass::Bitwise => {
            let k = promote_bool(common);
            if k.is_float() {
                let culprit = if lk.is_float() { lhs } else { rhs };
                return Err(OperatorError::IntegerRequired(culprit.clone()));
            }
            (k, k, k)
        }
        BinaryOpClass::Shift => {
            if lk.is_float() {
                return Err(OperatorError::IntegerRequired(lhs.clone()));
            }
            if rk.is_float() {
                return Err(OperatorError::IntegerRequired(rhs.clone()));
            }
            let mut k = promote_bool(lk);
            if k.is_literal() && !rk.is_literal() {
                k = k.concrete();
            }
            (k, k, k)
        }
        BinaryOpClass::Comparison => (common, ScalarKind::Bool, common),
        BinaryOpClass::Logical => (ScalarKind::Bool, ScalarKind::Bool, ScalarKind::Bool),
    };
    Ok(BinaryTyping {
        lhs: with_shape(operand_kind, shape),
        rhs: with_shape(rhs_kind, shape),
        result: with_shape(result_kind, shape),
        warning,
    })
}

/// Types a unary operation (see the module doc for the rules).
pub fn unary_operand(class: UnaryOpClass, ty: &Type) -> Result<UnaryTyping, OperatorError> {
    if *ty == Type::Error {
        return Ok(UnaryTyping {
            operand: Type::Error,
            result: Type::Error,
        });
    }
    let kind = ty
        .component_kind()
        .ok_or_else(|| OperatorError::NotNumeric(ty.clone()))?;
    let as_value = ty.with_kind(kind);
    let promoted = if kind == ScalarKind::Bool {
        ty.with_kind(ScalarKind::Int)
    } else {
        as_value.clone()
    };
    match class {
        UnaryOpClass::Negate | UnaryOpClass::Plus => Ok(UnaryTyping {
            operand: promoted.clone(),
            result: promoted,
        }),
        UnaryOpClass::BitNot => {
            if kind.is_float() {
                return Err(OperatorError::IntegerRequired(ty.clone()));
            }
            Ok(UnaryTyping {
                operand: promoted.clone(),
                result: promoted,
            })
        }
        UnaryOpClass::LogicalNot => {
            let b = ty.with_kind(ScalarKind::Bool);
            Ok(UnaryTyping {
                operand: b.clone(),
                result: b,
            })
        }
        UnaryOpClass::IncDec => {
            if kind == ScalarKind::Bool || matches!(ty, Type::Enum(_)) {
                return Err(OperatorError::NotIncrementable(ty.clone()));
            }
            Ok(UnaryTyping {
                operand: ty.clone(),
                result: ty.clone(),
            })
        }
    }
}

/// The type both branches of `c ? a : b` convert to: the common numeric type (keeping `bool`), or the
/// shared type of non-numeric branches (`null` joins `texture`/`buffer`). `None` when they do not join.
pub fn common_type(a: &Type, b: &Type) -> Option<Type> {
    match (a, b) {
        (Type::Error, _) | (_, Type::Error) => Some(Type::Error),
        (Type::Null, other @ (Type::Texture | Type::Buffer | Type::Node))
        | (other @ (Type::Texture | Type::Buffer | Type::Node), Type::Null) => Some(other.clone()),
        _ if a.is_numeric() && b.is_numeric() => {
            if a == b {
                return Some(a.clone());
            }
            let (shape, _) = combine_shapes(a, b).ok()?;
            Some(with_shape(
                common_kind(a.component_kind()?, b.component_kind()?),
                shape,
            ))
        }
        _ => (a == b).then(|| a.clone()),
    }
}

/// Whether a value of this type can be a condition (`if`, `while`, `?:`, `&&`): a numeric scalar or
/// 1-component vector.
pub fn is_condition_type(ty: &Type) -> bool {
    matches!(ty, Type::Error)
        || (ty.is_numeric() && shape_of(ty).map(normalize) == Some(Shape::Scalar))
}

/// Whether an explicit cast `(to)from` / `to(from)` is allowed: any implicit conversion; numeric to
/// numeric when the target has no more components than the source (truncation is silent) or the
/// source is a scalar (splat), or they have as many components; numeric scalars to and from enums.
pub fn explicit_cast_allowed(from: &Type, to: &Type) -> bool {
    if conversion(from, to).is_some() {
        return true;
    }
    match (from.component_count(), to.component_count()) {
        (Some(n), Some(m)) => n == 1 || m <= n,
        _ => false,
    }
}

/// "cannot convert from `X` to `Y`", with names from `table`.
pub fn cannot_convert_message(from: &Type, to: &Type, table: &TypeTable) -> String {
    format!(
        "cannot convert from `{}` to `{}`",
        from.display(table),
        to.display(table)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{parse_builtin_type_name, EnumId, StructId};

    fn ty(name: &str) -> Type {
        match name {
            "lit" => Type::LITERAL_INT,
            "litf" => Type::LITERAL_FLOAT,
            "enum" => Type::Enum(EnumId(0)),
            _ => parse_builtin_type_name(name).unwrap(),
        }
    }

    fn conv(
        from: &str,
        to: &str,
    ) -> Option<(ConversionRank, ShapeChange, Option<ConversionWarning>)> {
        conversion(&ty(from), &ty(to)).map(|c| (c.rank, c.shape, c.warning))
    }

    #[test]
    fn conversion_ranks() {
        use ConversionRank::*;
        use ConversionWarning::*;
        use ShapeChange::{None as Same, Splat, Truncation};
        type Expected = Option<(ConversionRank, ShapeChange, Option<ConversionWarning>)>;
        let cases: &[(&str, &str, Expected)] = &[
            ("float", "float", Some((Exact, Same, None))),
            ("lit", "int", Some((Exact, Same, None))),
            ("lit", "uint", Some((Literal, Same, None))),
            ("lit", "float", Some((Literal, Same, None))),
            ("lit", "uint64_t", Some((Literal, Same, None))),
            ("litf", "float", Some((Exact, Same, None))),
            ("litf", "double", Some((Literal, Same, None))),
            ("litf", "int", Some((Conversion, Same, None))),
            ("half", "float", Some((Promotion, Same, None))),
            ("float", "double", Some((Promotion, Same, None))),
            ("int", "int64_t", Some((Promotion, Same, None))),
            ("uint", "int64_t", Some((Promotion, Same, None))),
            ("enum", "int", Some((Promotion, Same, None))),
            ("enum", "uint", Some((Conversion, Same, None))),
            ("int", "enum", Some((Conversion, Same, None))),
            ("int", "uint", Some((Conversion, Same, None))),
            ("uint", "float", Some((Conversion, Same, None))),
            ("float", "int", Some((Conversion, Same, None))),
            ("bool", "float", Some((Conversion, Same, None))),
            ("float", "bool", Some((Conversion, Same, None))),
            (
                "double",
                "float",
                Some((Conversion, Same, Some(PrecisionLoss))),
            ),
            (
                "uint64_t",
                "uint",
                Some((Conversion, Same, Some(PrecisionLoss))),
            ),
            ("float", "float4", Some((Exact, Splat, None))),
            ("lit", "uint3", Some((Literal, Splat, None))),
            ("float", "float4x4", Some((Exact, Splat, None))),
            (
                "float4",
                "float3",
                Some((Exact, Truncation, Some(ImplicitTruncation))),
            ),
            (
                "float4",
                "float",
                Some((Exact, Truncation, Some(ImplicitTruncation))),
            ),
            (
                "int4",
                "float2",
                Some((Conversion, Truncation, Some(ImplicitTruncation))),
            ),
            (
                "float4x4",
                "float4x3",
                Some((Exact, Truncation, Some(ImplicitTruncation))),
            ),
            ("float1", "float", Some((Exact, Same, None))),
            ("float", "float1", Some((Exact, Same, None))),
            ("float1", "float3", Some((Exact, Splat, None))),
            ("float3", "float1x3", Some((Exact, Same, None))),
            ("float2", "float4", None),
            ("float4x3", "float4x4", None),
            ("float4", "float2x2", None),
            ("texture", "texture", Some((Exact, Same, None))),
            ("texture", "buffer", None),
            ("float", "texture", None),
            ("texture", "float", None),
            ("node", "node", Some((Exact, Same, None))),
        ];
        for (from, to, expected) in cases {
            assert_eq!(conv(from, to), *expected, "{from} -> {to}");
        }
        assert!(conversion(&Type::Null, &Type::Texture).unwrap().is_exact());
        assert!(conversion(&Type::Null, &Type::FLOAT).is_none());
        assert!(conversion(&Type::Null, &Type::Node).is_some());
        assert!(conversion(&Type::Error, &Type::Texture).is_some());
        assert!(
            conversion(&Type::Struct(StructId(0)), &Type::Struct(StructId(0)))
                .unwrap()
                .is_exact()
        );
        assert!(conversion(&Type::Struct(StructId(0)), &Type::Struct(StructId(1))).is_none());
        let int4 = ty("int4");
        assert!(conversion(
            &Type::array(int4.clone(), Some(3)),
            &Type::array(int4.clone(), None)
        )
        .is_some());
        assert!(conversion(
            &Type::array(int4.clone(), Some(3)),
            &Type::array(int4.clone(), Some(4))
        )
        .is_none());
        assert!(conversion(
            &Type::array(Type::UINT, Some(3)),
            &Type::array(Type::INT, Some(3))
        )
        .is_none());
    }

    #[test]
    fn candidate_comparison() {
        let c = |from: &str, to: &str| conversion(&ty(from), &ty(to)).unwrap();
        // clear(texture, float4) vs clear(texture, uint4) called with a float4.
        let a = [Conversion::EXACT, c("float4", "float4")];
        let b = [Conversion::EXACT, c("float4", "uint4")];
        assert_eq!(compare_candidates(&a, &b), Ordering::Less);
        // f(int, float) vs f(float, int) called with (int, int) is ambiguous.
        let a = [c("int", "int"), c("int", "float")];
        let b = [c("int", "float"), c("int", "int")];
        assert_eq!(compare_candidates(&a, &b), Ordering::Equal);
        // A literal prefers `int` to `float`.
        assert!(c("lit", "int").cost() < c("lit", "float").cost());
        // A splat is worse than any component conversion.
        assert!(c("float", "float2").cost() > c("float", "int").cost());
    }

    fn bin(
        class: BinaryOpClass,
        a: &str,
        b: &str,
    ) -> Result<(String, String, String, bool), String> {
        binary_operands(class, &ty(a), &ty(b))
            .map(|t| {
                (
                    t.lhs.to_string(),
                    t.rhs.to_string(),
                    t.result.to_string(),
                    t.warning.is_some(),
                )
            })
            .map_err(|e| e.message("op", &TypeTable::new()))
    }

    #[test]
    fn binary_operator_rules() {
        use BinaryOpClass::*;
        let ok = |l: &str, r: &str, res: &str, w: bool| {
            Ok((l.to_string(), r.to_string(), res.to_string(), w))
        };
        assert_eq!(
            bin(Arithmetic, "int", "uint"),
            ok("uint", "uint", "uint", false)
        );
        assert_eq!(
            bin(Arithmetic, "int", "float"),
            ok("float", "float", "float", false)
        );
        assert_eq!(
            bin(Arithmetic, "uint", "lit"),
            ok("uint", "uint", "uint", false)
        );
        assert_eq!(bin(Arithmetic, "lit", "lit").unwrap().2, "int");
        assert_eq!(
            binary_operands(Arithmetic, &Type::LITERAL_INT, &Type::LITERAL_INT)
                .unwrap()
                .result,
            Type::LITERAL_INT
        );
        assert_eq!(
            bin(Arithmetic, "int", "litf"),
            ok("float", "float", "float", false)
        );
        assert_eq!(
            bin(Arithmetic, "bool", "bool"),
            ok("int", "int", "int", false)
        );
        assert_eq!(
            bin(Arithmetic, "uint64_t", "lit"),
            ok("uint64_t", "uint64_t", "uint64_t", false)
        );
        assert_eq!(
            bin(Arithmetic, "float4", "float"),
            ok("float4", "float4", "float4", false)
        );
        assert_eq!(
            bin(Arithmetic, "lit", "uint2"),
            ok("uint2", "uint2", "uint2", false)
        );
        assert_eq!(
            bin(Arithmetic, "float4", "float3"),
            ok("float3", "float3", "float3", true)
        );
        assert_eq!(
            bin(Arithmetic, "float4x4", "float"),
            ok("float4x4", "float4x4", "float4x4", false)
        );
        assert_eq!(
            bin(Arithmetic, "enum", "lit"),
            ok("int", "int", "int", false)
        );
        assert_eq!(
            bin(Arithmetic, "float4x4", "float3"),
            Err("operator `op` cannot combine `float4x4` and `float3`".into())
        );
        assert_eq!(
            bin(Arithmetic, "texture", "int"),
            Err("operator `op` cannot be applied to `texture`".into())
        );
        assert_eq!(
            bin(Remainder, "float", "float"),
            ok("float", "float", "float", false)
        );
        assert_eq!(
            bin(Remainder, "uint", "lit"),
            ok("uint", "uint", "uint", false)
        );
        assert_eq!(bin(Bitwise, "int", "lit"), ok("int", "int", "int", false));
        assert_eq!(
            bin(Bitwise, "uint64_t", "uint"),
            ok("uint64_t", "uint64_t", "uint64_t", false)
        );
        assert_eq!(
            bin(Bitwise, "float", "int"),
            Err("operator `op` requires integer operands, found `float`".into())
        );
        assert_eq!(
            bin(Shift, "uint64_t", "lit"),
            ok("uint64_t", "uint64_t", "uint64_t", false)
        );
        assert_eq!(bin(Shift, "int", "uint"), ok("int", "int", "int", false));
        assert_eq!(bin(Shift, "lit", "uint"), ok("int", "int", "int", false));
        assert_eq!(
            bin(Shift, "int", "float"),
            Err("operator `op` requires integer operands, found `float`".into())
        );
        assert_eq!(
            bin(Comparison, "float4", "lit"),
            ok("float4", "float4", "bool4", false)
        );
        assert_eq!(
            bin(Comparison, "uint3", "lit"),
            ok("uint3", "uint3", "bool3", false)
        );
        assert_eq!(
            bin(Comparison, "int", "uint"),
            ok("uint", "uint", "bool", false)
        );
        assert_eq!(
            bin(Comparison, "bool", "lit"),
            ok("int", "int", "bool", false)
        );
        assert_eq!(
            bin(Comparison, "bool", "bool"),
            ok("bool", "bool", "bool", false)
        );
        assert_eq!(
            bin(Logical, "bool", "int"),
            ok("bool", "bool", "bool", false)
        );
        assert_eq!(
            bin(Logical, "float2", "bool2"),
            ok("bool2", "bool2", "bool2", false)
        );
        let err = binary_operands(Arithmetic, &Type::Error, &Type::Texture).unwrap();
        assert_eq!(err.result, Type::Error);
    }

    #[test]
    fn unary_operator_rules() {
        use UnaryOpClass::*;
        let un = |c, t: &str| {
            unary_operand(c, &ty(t))
                .map(|u| u.result.to_string())
                .map_err(|e| e.message("op", &TypeTable::new()))
        };
        assert_eq!(un(Negate, "int"), Ok("int".into()));
        assert_eq!(un(Negate, "bool"), Ok("int".into()));
        assert_eq!(un(Negate, "enum"), Ok("int".into()));
        assert_eq!(un(Negate, "float3"), Ok("float3".into()));
        assert_eq!(un(BitNot, "uint2"), Ok("uint2".into()));
        assert_eq!(
            un(BitNot, "float"),
            Err("operator `op` requires integer operands, found `float`".into())
        );
        assert_eq!(un(LogicalNot, "float"), Ok("bool".into()));
        assert_eq!(un(LogicalNot, "uint3"), Ok("bool3".into()));
        assert_eq!(un(IncDec, "uint"), Ok("uint".into()));
        assert_eq!(
            un(IncDec, "bool"),
            Err("operator `op` cannot be applied to `bool`".into())
        );
        assert_eq!(
            un(Negate, "buffer"),
            Err("operator `op` cannot be applied to `buffer`".into())
        );
    }

    #[test]
    fn joins_conditions_and_casts() {
        assert_eq!(common_type(&ty("float"), &ty("int")), Some(ty("float")));
        assert_eq!(common_type(&ty("bool"), &ty("bool")), Some(ty("bool")));
        assert_eq!(
            common_type(&ty("litf"), &ty("litf")),
            Some(Type::LITERAL_FLOAT)
        );
        assert_eq!(
            common_type(&Type::Texture, &Type::Null),
            Some(Type::Texture)
        );
        assert_eq!(common_type(&Type::Texture, &Type::Buffer), None);
        assert!(is_condition_type(&ty("int")));
        assert!(is_condition_type(&ty("float1")));
        assert!(!is_condition_type(&ty("bool2")));
        assert!(!is_condition_type(&Type::Texture));
        assert!(explicit_cast_allowed(&ty("float4"), &ty("float2")));
        assert!(explicit_cast_allowed(&ty("int"), &ty("enum")));
        assert!(explicit_cast_allowed(&ty("uint64_t"), &ty("uint")));
        assert!(explicit_cast_allowed(&ty("float"), &ty("float4")));
        assert!(explicit_cast_allowed(&ty("float4"), &ty("float2x2")));
        assert!(!explicit_cast_allowed(&ty("float2"), &ty("float4")));
        assert!(!explicit_cast_allowed(&Type::Texture, &ty("uint")));
        assert_eq!(
            cannot_convert_message(&ty("float4"), &Type::Texture, &TypeTable::new()),
            "cannot convert from `float4` to `texture`"
        );
    }
}
