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

/// The intrinsics whose arguments do not all take one shape: `None` for the others.
fn resolve_special(
    intrinsic: Intrinsic,
    args: &[Type],
    kind: ScalarKind,
) -> Result<Option<IntrinsicCall>, IntrinsicError> {
    let arg_error = |expected: &'static str, found: &Type| IntrinsicError::Argument {
        intrinsic,
        expected,
        found: found.clone(),
    };
    let call = |params: Vec<Type>, result: Type| {
        Ok(Some(IntrinsicCall {
            intrinsic,
            params,
            result,
            warning: None,
        }))
    };
    let integer_culprit = || {
        args.iter()
            .find(|a| !a.component_kind().is_some_and(ScalarKind::is_integer))
            .unwrap_or(&args[0])
    };
    match intrinsic.class() {
        Class::Mul => resolve_mul(args, numeric_kind(kind)).map(Some),
        Class::Transpose => match &args[0] {
            Type::Matrix(_, rows, cols) => {
                let k = kind.concrete();
                call(
                    vec![Type::Matrix(k, *rows, *cols)],
                    Type::Matrix(k, *cols, *rows),
                )
            }
            other => Err(arg_error("a matrix", other)),
        },
        Class::Determinant => match &args[0] {
            Type::Matrix(_, rows, cols) if rows == cols => {
                let k = float_kind(kind);
                call(vec![Type::Matrix(k, *rows, *cols)], Type::Scalar(k))
            }
            other => Err(arg_error("a square matrix", other)),
        },
        Class::Dst => {
            if let Some(bad) = args
                .iter()
                .find(|a| !is_scalar_like(a) && !matches!(a, Type::Vector(_, 4)))
            {
                return Err(arg_error("a `float4`", bad));
            }
            let f4 = Type::Vector(float_kind(kind), 4);
            call(vec![f4.clone(); 2], f4)
        }
        Class::Lit => {
            if let Some(bad) = args.iter().find(|a| !is_scalar_like(a)) {
                return Err(arg_error("a scalar", bad));
            }
            let k = float_kind(kind);
            call(vec![Type::Scalar(k); 3], Type::Vector(k, 4))
        }
        Class::Refract => {
            if !is_scalar_like(&args[2]) {
                return Err(arg_error("a scalar", &args[2]));
            }
            let (shape, warning) = common_shape(intrinsic, &args[..2])?;
            let k = float_kind(kind);
            let vector = shape.with_kind(k);
            Ok(Some(IntrinsicCall {
                intrinsic,
                params: vec![vector.clone(), vector.clone(), Type::Scalar(k)],
                result: vector,
                warning,
            }))
        }
        Class::Fma => {
            let all_literal = args
                .iter()
                .all(|a| a.component_kind().is_some_and(ScalarKind::is_literal));
            if kind != ScalarKind::Double && !all_literal {
                let culprit = args
                    .iter()
                    .find(|a| a.component_kind() != Some(ScalarKind::Double))
                    .unwrap_or(&args[0]);
                return Err(arg_error("a `double`", culprit));
            }
            let (shape, warning) = common_shape(intrinsic, args)?;
            let double = shape.with_kind(ScalarKind::Double);
            Ok(Some(IntrinsicCall {
                intrinsic,
                params: vec![double.clone(); 3],
                result: double,
                warning,
            }))
        }
        Class::F16tof32 => {
            if !kind.is_integer() {
                return Err(arg_error("an integer", integer_culprit()));
            }
            let shape = &args[0];
            call(
                vec![shape.with_kind(ScalarKind::Uint)],
                shape.with_kind(ScalarKind::Float),
            )
        }
        Class::F32tof16 => {
            let shape = &args[0];
            call(
                vec![shape.with_kind(ScalarKind::Float)],
                shape.with_kind(ScalarKind::Uint),
            )
        }
        Class::Asdouble => {
            if !kind.is_integer() {
                return Err(arg_error("an integer", integer_culprit()));
            }
            let (shape, warning) = common_shape(intrinsic, args)?;
            if let Some(bad) = args
                .iter()
                .find(|a| matches!(a, Type::Matrix(..) | Type::Vector(_, 3..)))
            {
                return Err(arg_error("a `uint` or `uint2`", bad));
            }
            Ok(Some(IntrinsicCall {
                intrinsic,
                params: vec![shape.with_kind(ScalarKind::Uint); 2],
                result: shape.with_kind(ScalarKind::Double),
                warning,
            }))
        }
        Class::Msad4 => {
            if !kind.is_integer() {
                return Err(arg_error("an integer", integer_culprit()));
            }
            let expected = [(1, "a `uint`"), (2, "a `uint2`"), (4, "a `uint4`")];
            for (arg, (width, what)) in args.iter().zip(expected) {
                let fits = match arg {
                    Type::Vector(_, n) => *n == width || *n == 1,
                    Type::Matrix(..) => false,
                    _ => true,
                };
                if !fits {
                    return Err(arg_error(what, arg));
                }
            }
            let u = ScalarKind::Uint;
            call(
                vec![Type::Scalar(u), Type::Vector(u, 2), Type::Vector(u, 4)],
                Type::Vector(u, 4),
            )
        }
        Class::Select => {
            let (shape, warning) = common_shape(intrinsic, args)?;
            let k = args[1..]
                .iter()
                .filter_map(Type::component_kind)
                .reduce(common_kind)
                .unwrap_or(ScalarKind::Int)
                .concrete();
            Ok(Some(IntrinsicCall {
                intrinsic,
                params: vec![
                    shape.with_kind(ScalarKind::Bool),
                    shape.with_kind(k),
                    shape.with_kind(k),
                ],
                result: shape.with_kind(k),
                warning,
            }))
        }
        Class::Logical => {
            let (shape, warning) = common_shape(intrinsic, args)?;
            let bools = shape.with_kind(ScalarKind::Bool);
            Ok(Some(IntrinsicCall {
                intrinsic,
                params: vec![bools.clone(); 2],
                result: bools,
                warning,
            }))
        }
        Class::ColorToBytes => {
            if !is_scalar_like(&args[0]) && !matches!(args[0], Type::Vector(_, 4)) {
                return Err(arg_error("a `float4`", &args[0]));
            }
            call(
                vec![Type::Vector(ScalarKind::Float, 4)],
                Type::Vector(ScalarKind::Int, 4),
            )
        }
        Class::SplitDouble => {
            if args[0].component_kind() != Some(ScalarKind::Double)
                || matches!(args[0], Type::Matrix(..))
            {
                return Err(arg_error("a `double` scalar or vector", &args[0]));
            }
            let halves = args[0].with_kind(ScalarKind::Uint);
            call(vec![args[0].clone(), halves.clone(), halves], Type::Void)
        }
        Class::OutFloat => {
            // Only `x` decides the type; the `out` arguments must match it exactly (sema checks).
            let k = float_kind(args[0].component_kind().unwrap_or(ScalarKind::Float));
            let ty = args[0].with_kind(k);
            let result = if intrinsic == Intrinsic::Sincos {
                Type::Void
            } else {
                ty.clone()
            };
            call(vec![ty; args.len()], result)
        }
        _ => Ok(None),
    }
}

/// `mul(a, b)` as HLSL types it: a scalar scales the other operand; two vectors give their dot
/// product; a vector on the left is a row vector (`float3 x float3x4 -> float4`), on the right a
/// column vector (`float4x3 x float3 -> float4`); two matrices give their product. The kind is the
/// common kind of both operands (`bool` computes as `int`).
fn resolve_mul(args: &[Type], kind: ScalarKind) -> Result<IntrinsicCall, IntrinsicError> {
    let (a, b) = (&args[0], &args[1]);
    let call = |left: Type, right: Type, result: Type| IntrinsicCall {
        intrinsic: Intrinsic::Mul,
        params: vec![left.with_kind(kind), right.with_kind(kind)],
        result: result.with_kind(kind),
        warning: None,
    };
    let mismatch = |left: u8, right: u8| IntrinsicError::Dimensions {
        first: a.clone(),
        second: b.clone(),
        left,
        right,
    };
    let scalar = Type::Scalar(kind);
    Ok(match (a, b) {
        (Type::Scalar(_) | Type::Enum(_), _) => call(scalar, b.clone(), b.with_kind(kind)),
        (_, Type::Scalar(_) | Type::Enum(_)) => call(a.clone(), scalar, a.with_kind(kind)),
        (Type::Vector(_, n), Type::Vector(_, m)) => {
            if n != m {
                return Err(mismatch(*n, *m));
            }
            call(a.clone(), b.clone(), scalar)
        }
        (Type::Vector(_, n), Type::Matrix(_, rows, cols)) => {
            if n != rows {
                return Err(mismatch(*n, *rows));
            }
            call(a.clone(), b.clone(), Type::Vector(kind, *cols))
        }
        (Type::Matrix(_, rows, cols), Type::Vector(_, n)) => {
            if cols != n {
                return Err(mismatch(*cols, *n));
            }
            call(a.clone(), b.clone(), Type::Vector(kind, *rows))
        }
        (Type::Matrix(_, rows, inner), Type::Matrix(_, inner2, cols)) => {
            if inner != inner2 {
                return Err(mismatch(*inner, *inner2));
            }
            call(a.clone(), b.clone(), Type::Matrix(kind, *rows, *cols))
        }
        _ => {
            return Err(IntrinsicError::Shapes {
                intrinsic: Intrinsic::Mul,
                first: a.clone(),
                second: b.clone(),
            })
        }
    })
}

/// The shape all arguments take (as a type whose kind is irrelevant), and the truncation warning.
fn common_shape(
    intrinsic: Intrinsic,
    args: &[Type],
) -> Result<(Type, Option<ConversionWarning>), IntrinsicError> {
    let mut shape = Type::Scalar(ScalarKind::Int);
    let mut warning = None;
    let mut first_shaped: Option<&Type> = None;
    for arg in args {
        let this = arg.with_kind(ScalarKind::Int);
        let merged = match (&shape, &this) {
            (_, Type::Scalar(_)) | (_, Type::Vector(_, 1)) => shape.clone(),
            (Type::Scalar(_), _) => this.clone(),
            (Type::Vector(k, n), Type::Vector(_, m)) => {
                if n != m {
                    warning = Some(ConversionWarning::ImplicitTruncation);
                }
                Type::Vector(*k, (*n).min(*m))
            }
            (Type::Matrix(k, r, c), Type::Matrix(_, r2, c2)) => {
                if (r, c) != (r2, c2) {
                    warning = Some(ConversionWarning::ImplicitTruncation);
                }
                Type::Matrix(*k, (*r).min(*r2), (*c).min(*c2))
            }
            _ => {
                return Err(IntrinsicError::Shapes {
                    intrinsic,
                    first: first_shaped.cloned().unwrap_or_else(|| shape.clone()),
                    second: arg.clone(),
                })
            }
        };
        if !matches!(this, Type::Scalar(_)) && first_shaped.is_none() {
            first_shaped = Some(arg);
        }
        shape = merged;
    }
    // A lone 1-component vector keeps its shape.
    if matches!(shape, Type::Scalar(_)) {
        if let Some(v1) = args.iter().find(|a| matches!(a, Type::Vector(_, 1))) {
            shape = v1.with_kind(ScalarKind::Int);
        }
    }
    Ok((shape, warning))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::parse_builtin_type_name;

    fn ty(name: &str) -> Type {
        match name {
            "lit" => Type::LITERAL_INT,
            "litf" => Type::LITERAL_FLOAT,
            _ => parse_builtin_type_name(name).unwrap(),
        }
    }

    /// Resolves `name(args)` and shows `(params) -> result` or the error message.
    fn check(name: &str, args: &[&str]) -> String {
        let args: Vec<Type> = args.iter().map(|a| ty(a)).collect();
        match resolve_intrinsic_by_name(name, &args).expect("an intrinsic") {
            Ok(call) => {
                let params: Vec<String> = call.params.iter().map(Type::to_string).collect();
                let warn = if call.warning.is_some() {
                    " (truncation)"
                } else {
                    ""
                };
                format!("({}) -> {}{warn}", params.join(", "), call.result)
            }
            Err(e) => e.message(&TypeTable::new()),
        }
    }

    #[test]
    fn names_round_trip() {
        assert_eq!(Intrinsic::ALL.len(), 76);
        for &i in Intrinsic::ALL {
            let by_name = resolve_intrinsic_by_name(i.name(), &vec![Type::Error; i.arity()]);
            assert_eq!(by_name.map(|call| call.unwrap().intrinsic), Some(i));
        }
        assert_eq!(Intrinsic::from_name("asuint"), Some(Intrinsic::Asuint));
        assert_eq!(Intrinsic::from_name("create_tex2d"), None);
        assert!(resolve_intrinsic_by_name("foo", &[]).is_none());
    }

    #[test]
    fn corpus_hlsl_intrinsics_test() {
        // Every intrinsic use of tests_console_test_hlsl_intrinsics.rpsl
        // (i1: int, u1: uint, u3.x: uint, f4.x: float, f1: float).
        assert_eq!(check("abs", &["int"]), "(int) -> int");
        assert_eq!(check("asuint", &["float"]), "(float) -> uint");
        assert_eq!(
            check("mad", &["uint", "uint", "uint"]),
            "(uint, uint, uint) -> uint"
        );
        assert_eq!(check("countbits", &["uint"]), "(uint) -> uint");
        assert_eq!(check("firstbithigh", &["uint"]), "(uint) -> uint");
        assert_eq!(check("firstbithigh", &["int"]), "(int) -> uint");
        assert_eq!(
            check("atan2", &["float", "float"]),
            "(float, float) -> float"
        );
        assert_eq!(check("asfloat", &["uint"]), "(uint) -> float");
        assert_eq!(check("all", &["bool4"]), "(bool4) -> bool");
        assert_eq!(check("any", &["bool3"]), "(bool3) -> bool");
        assert_eq!(check("max", &["float", "float"]), "(float, float) -> float");
        assert_eq!(
            check("lerp", &["float", "float", "float"]),
            "(float, float, float) -> float"
        );
        for f in ["floor", "ceil", "round", "trunc", "cos", "saturate"] {
            assert_eq!(check(f, &["float"]), "(float) -> float", "{f}");
        }
        for f in ["isinf", "isnan", "isfinite"] {
            assert_eq!(check(f, &["float"]), "(float) -> bool", "{f}");
        }
        assert_eq!(
            check("mad", &["float", "float", "float"]),
            "(float, float, float) -> float"
        );
        assert_eq!(check("rsqrt", &["float"]), "(float) -> float");
        assert_eq!(check("abs", &["float"]), "(float) -> float");
        assert_eq!(check("min", &["float", "lit"]), "(float, float) -> float");
        assert_eq!(check("exp", &["float"]), "(float) -> float");
    }

    #[test]
    fn generic_signatures() {
        assert_eq!(check("abs", &["float3"]), "(float3) -> float3");
        assert_eq!(check("abs", &["bool"]), "(int) -> int");
        assert_eq!(check("abs", &["lit"]), "(int) -> int");
        assert_eq!(check("sign", &["float2"]), "(float2) -> int2");
        assert_eq!(check("min", &["int", "uint"]), "(uint, uint) -> uint");
        assert_eq!(
            check("min", &["float4", "lit"]),
            "(float4, float4) -> float4"
        );
        assert_eq!(
            check("max", &["float4", "float3"]),
            "(float3, float3) -> float3 (truncation)"
        );
        assert_eq!(
            check("clamp", &["int", "lit", "lit"]),
            "(int, int, int) -> int"
        );
        assert_eq!(
            check("clamp", &["float4x4", "litf", "litf"]),
            "(float4x4, float4x4, float4x4) -> float4x4"
        );
        assert_eq!(check("sqrt", &["int"]), "(float) -> float");
        assert_eq!(check("sqrt", &["uint2"]), "(float2) -> float2");
        assert_eq!(check("sqrt", &["double"]), "(double) -> double");
        assert_eq!(check("sqrt", &["half"]), "(half) -> half");
        assert_eq!(check("pow", &["litf", "lit"]), "(float, float) -> float");
        assert_eq!(check("fmod", &["float", "int"]), "(float, float) -> float");
        assert_eq!(
            check("dot", &["float3", "float3"]),
            "(float3, float3) -> float"
        );
        assert_eq!(check("dot", &["int2", "int2"]), "(int2, int2) -> int");
        assert_eq!(check("dot", &["float", "float"]), "(float, float) -> float");
        assert_eq!(check("length", &["float3"]), "(float3) -> float");
        assert_eq!(check("length", &["int2"]), "(float2) -> float");
        assert_eq!(
            check("distance", &["float2", "float2"]),
            "(float2, float2) -> float"
        );
        assert_eq!(check("normalize", &["float3"]), "(float3) -> float3");
        assert_eq!(
            check("cross", &["float3", "float3"]),
            "(float3, float3) -> float3"
        );
        assert_eq!(
            check("cross", &["float4", "float3"]),
            "(float3, float3) -> float3 (truncation)"
        );
        assert_eq!(
            check("step", &["float", "float4"]),
            "(float4, float4) -> float4"
        );
        assert_eq!(
            check("smoothstep", &["litf", "litf", "float2"]),
            "(float2, float2, float2) -> float2"
        );
        assert_eq!(check("all", &["float4"]), "(float4) -> bool");
        assert_eq!(check("any", &["lit"]), "(int) -> bool");
        assert_eq!(check("countbits", &["uint64_t"]), "(uint64_t) -> uint");
        assert_eq!(check("countbits", &["int3"]), "(int3) -> uint3");
        assert_eq!(check("reversebits", &["int"]), "(uint) -> uint");
        assert_eq!(check("firstbitlow", &["uint2"]), "(uint2) -> uint2");
        assert_eq!(check("asuint", &["float2"]), "(float2) -> uint2");
        assert_eq!(check("asint", &["uint"]), "(uint) -> int");
        assert_eq!(check("asfloat", &["lit"]), "(uint) -> float");
        assert_eq!(check("asfloat", &["int4"]), "(int4) -> float4");
        assert_eq!(check("isnan", &["float3"]), "(float3) -> bool3");
        assert_eq!(check("isinf", &["lit"]), "(float) -> bool");
        assert_eq!(check("frac", &["float1"]), "(float1) -> float1");
    }

    #[test]
    fn mul_forms_and_dimensions() {
        assert_eq!(check("mul", &["float", "float"]), "(float, float) -> float");
        assert_eq!(check("mul", &["lit", "lit"]), "(int, int) -> int");
        assert_eq!(
            check("mul", &["float", "float3"]),
            "(float, float3) -> float3"
        );
        assert_eq!(check("mul", &["int3", "litf"]), "(float3, float) -> float3");
        assert_eq!(
            check("mul", &["float2x3", "lit"]),
            "(float2x3, float) -> float2x3"
        );
        assert_eq!(
            check("mul", &["float3", "float3"]),
            "(float3, float3) -> float"
        );
        assert_eq!(
            check("mul", &["float3", "float3x4"]),
            "(float3, float3x4) -> float4"
        );
        assert_eq!(
            check("mul", &["float4x3", "float3"]),
            "(float4x3, float3) -> float4"
        );
        assert_eq!(
            check("mul", &["float2x3", "float3x4"]),
            "(float2x3, float3x4) -> float2x4"
        );
        assert_eq!(
            check("mul", &["int2", "uint2x2"]),
            "(uint2, uint2x2) -> uint2"
        );
        assert_eq!(
            check("mul", &["bool2", "bool2x2"]),
            "(int2, int2x2) -> int2"
        );
        assert_eq!(
            check("mul", &["double2x2", "float2x2"]),
            "(double2x2, double2x2) -> double2x2"
        );
        assert_eq!(
            check("mul", &["float3", "float4"]),
            "`mul` cannot multiply `float3` by `float4`: the inner dimensions 3 and 4 differ"
        );
        assert_eq!(
            check("mul", &["float3", "float4x4"]),
            "`mul` cannot multiply `float3` by `float4x4`: the inner dimensions 3 and 4 differ"
        );
        assert_eq!(
            check("mul", &["float4x4", "float3"]),
            "`mul` cannot multiply `float4x4` by `float3`: the inner dimensions 4 and 3 differ"
        );
        assert_eq!(
            check("mul", &["float2x3", "float2x3"]),
            "`mul` cannot multiply `float2x3` by `float2x3`: the inner dimensions 3 and 2 differ"
        );
        assert_eq!(check("mul", &["float"]), "`mul` takes 2 arguments, 1 given");
    }

    #[test]
    fn matrix_and_new_intrinsics() {
        assert_eq!(check("transpose", &["float2x3"]), "(float2x3) -> float3x2");
        assert_eq!(check("transpose", &["bool4x1"]), "(bool4x1) -> bool1x4");
        assert_eq!(
            check("transpose", &["float3"]),
            "`transpose` expects a matrix argument, found `float3`"
        );
        assert_eq!(check("determinant", &["float3x3"]), "(float3x3) -> float");
        assert_eq!(check("determinant", &["int2x2"]), "(float2x2) -> float");
        assert_eq!(
            check("determinant", &["double4x4"]),
            "(double4x4) -> double"
        );
        assert_eq!(
            check("determinant", &["float2x3"]),
            "`determinant` expects a square matrix argument, found `float2x3`"
        );
        assert_eq!(
            check("determinant", &["float"]),
            "`determinant` expects a square matrix argument, found `float`"
        );
        for f in ["degrees", "radians", "log10"] {
            assert_eq!(check(f, &["float3"]), "(float3) -> float3", "{f}");
            assert_eq!(check(f, &["int"]), "(float) -> float", "{f}");
        }
        assert_eq!(
            check("dst", &["float4", "float4"]),
            "(float4, float4) -> float4"
        );
        assert_eq!(
            check("dst", &["float3", "float4"]),
            "`dst` expects a `float4` argument, found `float3`"
        );
        assert_eq!(
            check("lit", &["float", "float", "lit"]),
            "(float, float, float) -> float4"
        );
        assert_eq!(
            check("lit", &["float2", "float", "float"]),
            "`lit` expects a scalar argument, found `float2`"
        );
        assert_eq!(
            check("faceforward", &["float3", "float3", "float3"]),
            "(float3, float3, float3) -> float3"
        );
        assert_eq!(
            check("reflect", &["float2", "float2"]),
            "(float2, float2) -> float2"
        );
        assert_eq!(
            check("refract", &["float3", "float3", "float"]),
            "(float3, float3, float) -> float3"
        );
        assert_eq!(
            check("refract", &["float3", "float3", "float3"]),
            "`refract` expects a scalar argument, found `float3`"
        );
        assert_eq!(
            check("fma", &["double", "double", "double"]),
            "(double, double, double) -> double"
        );
        assert_eq!(
            check("fma", &["double2", "litf", "double2"]),
            "(double2, double2, double2) -> double2"
        );
        assert_eq!(
            check("fma", &["float", "float", "float"]),
            "`fma` expects a `double` argument, found `float`"
        );
        assert_eq!(
            check("ldexp", &["float3", "int"]),
            "(float3, float3) -> float3"
        );
        assert_eq!(check("f16tof32", &["uint2"]), "(uint2) -> float2");
        assert_eq!(
            check("f16tof32", &["float"]),
            "`f16tof32` expects an integer argument, found `float`"
        );
        assert_eq!(check("f32tof16", &["float4"]), "(float4) -> uint4");
        assert_eq!(
            check("asdouble", &["uint", "uint"]),
            "(uint, uint) -> double"
        );
        assert_eq!(
            check("asdouble", &["uint2", "uint2"]),
            "(uint2, uint2) -> double2"
        );
        assert_eq!(
            check("asdouble", &["uint3", "uint3"]),
            "`asdouble` expects a `uint` or `uint2` argument, found `uint3`"
        );
        assert_eq!(
            check("msad4", &["uint", "uint2", "uint4"]),
            "(uint, uint2, uint4) -> uint4"
        );
        assert_eq!(
            check("msad4", &["uint", "uint3", "uint4"]),
            "`msad4` expects a `uint2` argument, found `uint3`"
        );
        assert_eq!(
            check("modf", &["float2", "float2"]),
            "(float2, float2) -> float2"
        );
        assert_eq!(
            check("frexp", &["double", "double"]),
            "(double, double) -> double"
        );
        assert_eq!(
            check("sincos", &["float3", "float3", "float3"]),
            "(float3, float3, float3) -> void"
        );
        assert_eq!(
            check("select", &["bool2", "float2", "lit"]),
            "(bool2, float2, float2) -> float2"
        );
        assert_eq!(
            check("select", &["bool", "int3", "uint3"]),
            "(bool3, uint3, uint3) -> uint3"
        );
        assert_eq!(check("and", &["bool3", "bool"]), "(bool3, bool3) -> bool3");
        assert_eq!(check("or", &["int2", "float2"]), "(bool2, bool2) -> bool2");
        assert_eq!(check("D3DCOLORtoUBYTE4", &["float4"]), "(float4) -> int4");
        assert_eq!(
            check("asuint", &["double2", "uint2", "uint2"]),
            "(double2, uint2, uint2) -> void"
        );
        assert_eq!(
            check("asuint", &["float", "uint", "uint"]),
            "`asuint` expects a `double` scalar or vector argument, found `float`"
        );
        assert_eq!(
            check("asuint", &["float", "uint"]),
            "`asuint` takes 1 argument, 2 given"
        );
        assert_eq!(
            check("D3DCOLORtoUBYTE4", &["float3"]),
            "`D3DCOLORtoUBYTE4` expects a `float4` argument, found `float3`"
        );
    }

    #[test]
    fn errors() {
        assert_eq!(
            check("clamp", &["float", "float"]),
            "`clamp` takes 3 arguments, 2 given"
        );
        assert_eq!(check("abs", &[]), "`abs` takes 1 argument, 0 given");
        assert_eq!(
            check("countbits", &["float"]),
            "`countbits` expects an integer argument, found `float`"
        );
        assert_eq!(
            check("firstbithigh", &["bool"]),
            "`firstbithigh` expects an integer argument, found `bool`"
        );
        assert_eq!(
            check("abs", &["texture"]),
            "`abs` expects a numeric argument, found `texture`"
        );
        assert_eq!(
            check("min", &["float4x4", "float3"]),
            "`min` cannot combine arguments of type `float4x4` and `float3`"
        );
        assert_eq!(
            check("dot", &["float4x4", "float4x4"]),
            "`dot` expects a scalar or vector argument, found `float4x4`"
        );
        assert_eq!(
            check("cross", &["float2", "float3"]),
            "`cross` expects a `float3` argument, found `float2`"
        );
        assert_eq!(
            check("asuint", &["double"]),
            "`asuint` expects a 32-bit argument, found `double`"
        );
        let call = resolve_intrinsic(Intrinsic::Sqrt, &[Type::Error]).unwrap();
        assert_eq!(call.result, Type::Error);
    }
}
