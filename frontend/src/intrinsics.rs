//! The HLSL intrinsics RPSL scripts can call on the CPU: their ids, generic signatures, and the
//! resolution of a call's argument types to concrete parameter types and a result type.
//!
//! Resolution ([`resolve_intrinsic`]) works like DXC's generic intrinsic templates:
//! * the argument count must match exactly;
//! * component-wise intrinsics take one shape for all arguments: scalars splat to the widest
//!   vector/matrix, vectors of different sizes truncate to the smallest (with the "implicit truncation
//!   of vector type" warning), a vector and a matrix do not mix;
//! * the component kind is the common kind of all arguments (as for binary operators), then fitted to
//!   the intrinsic's class: float-only intrinsics turn integers and `bool` into `float` (`half` and
//!   `double` stay), numeric intrinsics turn `bool` into `int`, integer intrinsics reject floats;
//!   literal kinds become `int` / `float`;
//! * the result follows the intrinsic (see [`Intrinsic`] variants' docs).
//!
//! Sema then converts each argument to the returned parameter type.

use std::fmt;

use crate::types::{common_kind, ConversionWarning, ScalarKind, Type, TypeTable};

mod special;
#[cfg(test)]
mod tests;

use special::{common_shape, resolve_special};

macro_rules! intrinsics {
    ($($(#[$doc:meta])* $variant:ident = $name:literal, $arity:literal, $class:ident;)*) => {
        /// An HLSL intrinsic; the VM matches on it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Intrinsic {
            $($(#[$doc])* $variant,)*
        }

        impl Intrinsic {
            /// Every intrinsic, in declaration order.
            pub const ALL: &'static [Intrinsic] = &[$(Intrinsic::$variant,)*];

            /// The HLSL name.
            pub fn name(self) -> &'static str {
                match self {
                    $(Intrinsic::$variant => $name,)*
                }
            }

            /// The intrinsic with this HLSL name (for a name with several arities, such as
            /// `asuint`, the first declared; [`resolve_intrinsic_by_name`] picks by arity).
            #[allow(unreachable_patterns, reason = "`asuint` is declared twice, with 1 and 3 arguments")]
            pub fn from_name(name: &str) -> Option<Intrinsic> {
                match name {
                    $($name => Some(Intrinsic::$variant),)*
                    _ => None,
                }
            }

            /// The number of arguments it takes.
            pub fn arity(self) -> usize {
                match self {
                    $(Intrinsic::$variant => $arity,)*
                }
            }

            fn class(self) -> Class {
                match self {
                    $(Intrinsic::$variant => Class::$class,)*
                }
            }
        }
    };
}

intrinsics! {
    /// `abs(x)`: numeric, component-wise, same type.
    Abs = "abs", 1, Numeric;
    /// `sign(x)`: numeric; the result is `int` of the same shape.
    Sign = "sign", 1, Numeric;
    /// `min(a, b)`: numeric, component-wise.
    Min = "min", 2, Numeric;
    /// `max(a, b)`: numeric, component-wise.
    Max = "max", 2, Numeric;
    /// `clamp(x, lo, hi)`: numeric, component-wise.
    Clamp = "clamp", 3, Numeric;
    /// `saturate(x)`: float, clamps to [0, 1].
    Saturate = "saturate", 1, Float;
    /// `floor(x)`.
    Floor = "floor", 1, Float;
    /// `ceil(x)`.
    Ceil = "ceil", 1, Float;
    /// `round(x)`: to nearest, halves to even (as DXIL `round_ne`).
    Round = "round", 1, Float;
    /// `trunc(x)`.
    Trunc = "trunc", 1, Float;
    /// `frac(x)`: `x - floor(x)`.
    Frac = "frac", 1, Float;
    /// `fmod(a, b)`: remainder with the sign of `a`.
    Fmod = "fmod", 2, Float;
    /// `sqrt(x)`.
    Sqrt = "sqrt", 1, Float;
    /// `rsqrt(x)`: `1 / sqrt(x)`.
    Rsqrt = "rsqrt", 1, Float;
    /// `rcp(x)`: `1 / x`.
    Rcp = "rcp", 1, Float;
    /// `pow(a, b)`.
    Pow = "pow", 2, Float;
    /// `exp(x)`.
    Exp = "exp", 1, Float;
    /// `exp2(x)`.
    Exp2 = "exp2", 1, Float;
    /// `log(x)`.
    Log = "log", 1, Float;
    /// `log2(x)`.
    Log2 = "log2", 1, Float;
    /// `sin(x)`.
    Sin = "sin", 1, Float;
    /// `cos(x)`.
    Cos = "cos", 1, Float;
    /// `tan(x)`.
    Tan = "tan", 1, Float;
    /// `asin(x)`.
    Asin = "asin", 1, Float;
    /// `acos(x)`.
    Acos = "acos", 1, Float;
    /// `atan(x)`.
    Atan = "atan", 1, Float;
    /// `atan2(y, x)`.
    Atan2 = "atan2", 2, Float;
    /// `sinh(x)`.
    Sinh = "sinh", 1, Float;
    /// `cosh(x)`.
    Cosh = "cosh", 1, Float;
    /// `tanh(x)`.
    Tanh = "tanh", 1, Float;
    /// `lerp(a, b, t)`: `a + (b - a) * t`.
    Lerp = "lerp", 3, Float;
    /// `mad(a, b, c)`: `a * b + c`, numeric (integer `mad` stays integer).
    Mad = "mad", 3, Numeric;
    /// `step(edge, x)`: `x >= edge ? 1 : 0`.
    Step = "step", 2, Float;
    /// `smoothstep(lo, hi, x)`.
    Smoothstep = "smoothstep", 3, Float;
    /// `dot(a, b)`: numeric scalars or vectors of one size; the result is the scalar kind.
    Dot = "dot", 2, DotLike;
    /// `cross(a, b)`: `float3` only.
    Cross = "cross", 2, Cross;
    /// `length(v)`: float scalar or vector; the result is the float scalar.
    Length = "length", 1, LengthLike;
    /// `distance(a, b)`: float scalars or vectors; the result is the float scalar.
    Distance = "distance", 2, LengthLike;
    /// `normalize(v)`: float vector, same type.
    Normalize = "normalize", 1, Float;
    /// `all(x)`: any numeric (bool included); the result is `bool`.
    All = "all", 1, Reduce;
    /// `any(x)`: any numeric (bool included); the result is `bool`.
    Any = "any", 1, Reduce;
    /// `countbits(x)`: integers; the result is `uint` of the same shape.
    Countbits = "countbits", 1, BitQuery;
    /// `firstbithigh(x)`: integers; the result is `uint` of the same shape. For signed input it finds
    /// the first bit that differs from the sign bit (as DXIL `FirstbitSHi`); `0xffffffff` if none.
    Firstbithigh = "firstbithigh", 1, BitQuery;
    /// `firstbitlow(x)`: integers; the result is `uint` of the same shape (`0xffffffff` for 0).
    Firstbitlow = "firstbitlow", 1, BitQuery;
    /// `reversebits(x)`: `uint` (other integers convert), same shape.
    Reversebits = "reversebits", 1, Reversebits;
    /// `asint(x)`: the bits of a 32-bit `float`/`uint`/`int` as `int` of the same shape.
    Asint = "asint", 1, BitCast;
    /// `asuint(x)`: the bits of a 32-bit value as `uint` of the same shape.
    Asuint = "asuint", 1, BitCast;
    /// `asfloat(x)`: the bits of a 32-bit value as `float` of the same shape.
    Asfloat = "asfloat", 1, BitCast;
    /// `isnan(x)`: float; the result is `bool` of the same shape.
    Isnan = "isnan", 1, FloatTest;
    /// `isinf(x)`: float; the result is `bool` of the same shape.
    Isinf = "isinf", 1, FloatTest;
    /// `isfinite(x)`: float; the result is `bool` of the same shape.
    Isfinite = "isfinite", 1, FloatTest;
    /// `degrees(x)`: radians to degrees, `x * (180 / pi)`.
    Degrees = "degrees", 1, Float;
    /// `radians(x)`: degrees to radians, `x * (pi / 180)`.
    Radians = "radians", 1, Float;
    /// `log10(x)`.
    Log10 = "log10", 1, Float;
    /// `mul(a, b)`: scalar, vector and matrix products (see [`resolve_intrinsic`]).
    Mul = "mul", 2, Mul;
    /// `transpose(m)`: any matrix; `floatRxC` gives `floatCxR`.
    Transpose = "transpose", 1, Transpose;
    /// `determinant(m)`: a square float matrix; the result is the float scalar.
    Determinant = "determinant", 1, Determinant;
    /// `dst(a, b)`: the distance vector `(1, a.y * b.y, a.z, b.w)` of two `float4`s.
    Dst = "dst", 2, Dst;
    /// `lit(n_dot_l, n_dot_h, m)`: float scalars; the result is the lighting `float4`.
    Lit = "lit", 3, Lit;
    /// `faceforward(n, i, ng)`: `dot(i, ng) < 0 ? n : -n`, float.
    Faceforward = "faceforward", 3, Float;
    /// `reflect(i, n)`: `i - 2 * dot(i, n) * n`, float.
    Reflect = "reflect", 2, Float;
    /// `refract(i, n, eta)`: float vectors `i`, `n` and a float scalar `eta`.
    Refract = "refract", 3, Refract;
    /// `fma(a, b, c)`: `a * b + c` with one rounding; `double` only, as in HLSL.
    Fma = "fma", 3, Fma;
    /// `ldexp(x, e)`: `x * exp2(e)`, float.
    Ldexp = "ldexp", 2, Float;
    /// `f16tof32(x)`: the half in the low 16 bits of a `uint` as `float`, same shape.
    F16tof32 = "f16tof32", 1, F16tof32;
    /// `f32tof16(x)`: a `float` rounded to half, its bits in the low 16 bits of a `uint`.
    F32tof16 = "f32tof16", 1, F32tof16;
    /// `asdouble(lo, hi)`: two `uint` (or `uint2`) halves as `double` (or `double2`).
    Asdouble = "asdouble", 2, Asdouble;
    /// `msad4(reference, source, accum)`: masked sums of absolute byte differences (`uint4`).
    Msad4 = "msad4", 3, Msad4;
    /// `modf(x, out ip)`: the fraction of `x` with its sign; `ip` gets the integer part.
    Modf = "modf", 2, OutFloat;
    /// `frexp(x, out e)`: the mantissa of `x` in [0.5, 1) with its sign; `e` gets the exponent.
    Frexp = "frexp", 2, OutFloat;
    /// `sincos(x, out s, out c)`: `s = sin(x)`, `c = cos(x)`; returns nothing.
    Sincos = "sincos", 3, OutFloat;
    /// `select(cond, a, b)` (HLSL 2021): per component `cond ? a : b`, both sides evaluated.
    Select = "select", 3, Select;
    /// `and(a, b)` (HLSL 2021): per component logical and, both sides evaluated; `bool` result.
    And = "and", 2, Logical;
    /// `or(a, b)` (HLSL 2021): per component logical or, both sides evaluated; `bool` result.
    Or = "or", 2, Logical;
    /// `D3DCOLORtoUBYTE4(c)`: `int4(c.zyxw * 255.001953)`, a `float4` color to bytes.
    D3dcolortoubyte4 = "D3DCOLORtoUBYTE4", 1, ColorToBytes;
    /// `asuint(d, out lo, out hi)`: the low and high 32 bits of a `double` (same shape).
    AsuintDouble = "asuint", 3, SplitDouble;
}

/// Signature families.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Numeric,
    Float,
    DotLike,
    Cross,
    LengthLike,
    Reduce,
    BitQuery,
    Reversebits,
    BitCast,
    FloatTest,
    Mul,
    Transpose,
    Determinant,
    Dst,
    Lit,
    Refract,
    Fma,
    F16tof32,
    F32tof16,
    Asdouble,
    Msad4,
    OutFloat,
    Select,
    Logical,
    ColorToBytes,
    SplitDouble,
}

impl Intrinsic {
    /// The names of the `out` parameters, by argument position (`None` for `in` ones).
    ///
    /// ```
    /// use rpsl_frontend::intrinsics::Intrinsic;
    /// assert_eq!(Intrinsic::Sincos.out_param(2), Some("c"));
    /// assert_eq!(Intrinsic::Modf.out_param(0), None);
    /// ```
    pub fn out_param(self, index: usize) -> Option<&'static str> {
        match (self, index) {
            (Intrinsic::Modf, 1) => Some("ip"),
            (Intrinsic::Frexp, 1) => Some("exp"),
            (Intrinsic::Sincos, 1) => Some("s"),
            (Intrinsic::Sincos, 2) => Some("c"),
            (Intrinsic::AsuintDouble, 1) => Some("lowbits"),
            (Intrinsic::AsuintDouble, 2) => Some("highbits"),
            _ => None,
        }
    }
}

impl fmt::Display for Intrinsic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A resolved intrinsic call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntrinsicCall {
    /// Which intrinsic.
    pub intrinsic: Intrinsic,
    /// The type each argument converts to.
    pub params: Vec<Type>,
    /// The result type.
    pub result: Type,
    /// A warning to report at the call (argument vector truncation).
    pub warning: Option<ConversionWarning>,
}

/// Why an intrinsic call does not type-check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IntrinsicError {
    /// Wrong number of arguments.
    ArgCount {
        /// The intrinsic.
        intrinsic: Intrinsic,
        /// Arguments given.
        given: usize,
    },
    /// An argument of a kind the intrinsic does not take; `expected` is "a numeric", "an integer",
    /// "a scalar or vector", "a 32-bit" or "a `float3`".
    Argument {
        /// The intrinsic.
        intrinsic: Intrinsic,
        /// What it expects, as an article and adjective.
        expected: &'static str,
        /// The offending argument type.
        found: Type,
    },
    /// `mul` operands whose inner dimensions differ (`float3` by `float4x4`).
    Dimensions {
        /// The left operand.
        first: Type,
        /// The right operand.
        second: Type,
        /// The left operand's inner dimension (vector size or matrix columns).
        left: u8,
        /// The right operand's inner dimension (vector size or matrix rows).
        right: u8,
    },
    /// Argument shapes that do not combine (a vector with a matrix).
    Shapes {
        /// The intrinsic.
        intrinsic: Intrinsic,
        /// One shape.
        first: Type,
        /// The other.
        second: Type,
    },
}

impl IntrinsicError {
    /// The message, with struct names from `table`:
    /// * "`clamp` takes 3 arguments, 2 given"
    /// * "`countbits` expects an integer argument, found `float`"
    /// * "`min` cannot combine arguments of type `float4x4` and `float3`"
    pub fn message(&self, table: &TypeTable) -> String {
        match self {
            IntrinsicError::ArgCount { intrinsic, given } => {
                let n = intrinsic.arity();
                let plural = if n == 1 { "" } else { "s" };
                format!("`{intrinsic}` takes {n} argument{plural}, {given} given")
            }
            IntrinsicError::Argument {
                intrinsic,
                expected,
                found,
            } => {
                format!(
                    "`{intrinsic}` expects {expected} argument, found `{}`",
                    found.display(table)
                )
            }
            IntrinsicError::Dimensions {
                first,
                second,
                left,
                right,
            } => format!(
                "`mul` cannot multiply `{}` by `{}`: the inner dimensions {left} and {right} differ",
                first.display(table),
                second.display(table)
            ),
            IntrinsicError::Shapes {
                intrinsic,
                first,
                second,
            } => format!(
                "`{intrinsic}` cannot combine arguments of type `{}` and `{}`",
                first.display(table),
                second.display(table)
            ),
        }
    }
}

/// Resolves a call of `name` if it names an intrinsic: `None` when it does not.
pub fn resolve_intrinsic_by_name(
    name: &str,
    args: &[Type],
) -> Option<Result<IntrinsicCall, IntrinsicError>> {
    let intrinsic = match Intrinsic::from_name(name)? {
        Intrinsic::Asuint if args.len() == 3 => Intrinsic::AsuintDouble,
        other => other,
    };
    Some(resolve_intrinsic(intrinsic, args))
}

/// Resolves a call of `intrinsic` with arguments of these types.
///
/// ```
/// use rpsl_frontend::intrinsics::{resolve_intrinsic, Intrinsic};
/// use rpsl_frontend::types::Type;
/// let call = resolve_intrinsic(Intrinsic::Min, &[Type::FLOAT, Type::LITERAL_INT]).unwrap();
/// assert_eq!(call.params, [Type::FLOAT, Type::FLOAT]);
/// assert_eq!(call.result, Type::FLOAT);
/// ```
pub fn resolve_intrinsic(
    intrinsic: Intrinsic,
    args: &[Type],
) -> Result<IntrinsicCall, IntrinsicError> {
    if args.len() != intrinsic.arity() {
        return Err(IntrinsicError::ArgCount {
            intrinsic,
            given: args.len(),
        });
    }
    let class = intrinsic.class();
    let arg_error = |expected: &'static str, found: &Type| IntrinsicError::Argument {
        intrinsic,
        expected,
        found: found.clone(),
    };
    if args.contains(&Type::Error) {
        return Ok(IntrinsicCall {
            intrinsic,
            params: args.to_vec(),
            result: Type::Error,
            warning: None,
        });
    }
    for arg in args {
        if !arg.is_numeric() {
            return Err(arg_error("a numeric", arg));
        }
    }
    let kind = args
        .iter()
        .filter_map(Type::component_kind)
        .reduce(common_kind)
        .unwrap_or(ScalarKind::Int);
    if let Some(call) = resolve_special(intrinsic, args, kind)? {
        return Ok(call);
    }
    // One shape for all arguments.
    let (shape, warning) = common_shape(intrinsic, args)?;
    let same = |k: ScalarKind| shape.with_kind(k);
    let call = |param: Type, result: Type| IntrinsicCall {
        intrinsic,
        params: vec![param; args.len()],
        result,
        warning,
    };
    Ok(match class {
        Class::Numeric => {
            let k = numeric_kind(kind);
            let result_kind = if intrinsic == Intrinsic::Sign {
                ScalarKind::Int
            } else {
                k
            };
            call(same(k), same(result_kind))
        }
        Class::Float => {
            let k = float_kind(kind);
            call(same(k), same(k))
        }
        Class::DotLike => {
            if let Some(matrix) = args.iter().find(|a| matches!(a, Type::Matrix(..))) {
                return Err(arg_error("a scalar or vector", matrix));
            }
            let k = numeric_kind(kind);
            call(same(k), Type::Scalar(k))
        }
        Class::LengthLike => {
            if let Some(matrix) = args.iter().find(|a| matches!(a, Type::Matrix(..))) {
                return Err(arg_error("a scalar or vector", matrix));
            }
            let k = float_kind(kind);
            call(same(k), Type::Scalar(k))
        }
        Class::Cross => {
            for arg in args {
                let ok = matches!(arg, Type::Vector(_, n) if *n >= 3);
                if !ok {
                    return Err(arg_error("a `float3`", arg));
                }
            }
            let f3 = Type::Vector(ScalarKind::Float, 3);
            let truncates = args.iter().any(|a| matches!(a, Type::Vector(_, 4)));
            IntrinsicCall {
                intrinsic,
                params: vec![f3.clone(); 2],
                result: f3,
                warning: truncates.then_some(ConversionWarning::ImplicitTruncation),
            }
        }
        Class::Reduce => {
            let k = kind.concrete();
            call(same(k), Type::BOOL)
        }
        Class::BitQuery | Class::Reversebits => {
            if kind.is_float() || kind == ScalarKind::Bool {
                let culprit = args
                    .iter()
                    .find(|a| !a.component_kind().is_some_and(ScalarKind::is_integer));
                return Err(arg_error("an integer", culprit.unwrap_or(&args[0])));
            }
            let k = if class == Class::Reversebits {
                ScalarKind::Uint
            } else {
                kind.concrete()
            };
            call(same(k), same(ScalarKind::Uint))
        }
        Class::BitCast => {
            let k = match kind {
                ScalarKind::LiteralInt => ScalarKind::Uint,
                ScalarKind::LiteralFloat => ScalarKind::Float,
                k @ (ScalarKind::Int | ScalarKind::Uint | ScalarKind::Float | ScalarKind::Half) => {
                    k
                }
                _ => return Err(arg_error("a 32-bit", &args[0])),
            };
            let result = match intrinsic {
                Intrinsic::Asint => ScalarKind::Int,
                Intrinsic::Asuint => ScalarKind::Uint,
                _ => ScalarKind::Float,
            };
            call(same(k), same(result))
        }
        Class::FloatTest => {
            let k = float_kind(kind);
            call(same(k), same(ScalarKind::Bool))
        }
        Class::Mul
        | Class::Transpose
        | Class::Determinant
        | Class::Dst
        | Class::Lit
        | Class::Refract
        | Class::Fma
        | Class::F16tof32
        | Class::F32tof16
        | Class::Asdouble
        | Class::Msad4
        | Class::OutFloat
        | Class::Select
        | Class::Logical
        | Class::ColorToBytes
        | Class::SplitDouble => unreachable!("resolved by `resolve_special`"),
    })
}

/// The kind float-only intrinsics compute in: `half`/`float`/`double` stay, others become `float`.
fn float_kind(kind: ScalarKind) -> ScalarKind {
    if kind.is_float() {
        kind.concrete()
    } else {
        ScalarKind::Float
    }
}

/// The kind numeric intrinsics compute in: `bool` becomes `int`, literals `int` / `float`.
fn numeric_kind(kind: ScalarKind) -> ScalarKind {
    if kind == ScalarKind::Bool {
        ScalarKind::Int
    } else {
        kind.concrete()
    }
}

/// Whether a type is a scalar (an enum or a 1-component vector counts).
fn is_scalar_like(ty: &Type) -> bool {
    matches!(ty, Type::Scalar(_) | Type::Enum(_) | Type::Vector(_, 1))
}
