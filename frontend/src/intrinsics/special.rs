//! Resolution of the intrinsics whose arguments do not all take one shape (`mul`, the
//! matrix intrinsics, intrinsics with `out` arguments, ...), and the common shape of the others.

use super::*;

/// The intrinsics whose arguments do not all take one shape: `None` for the others.
pub(super) fn resolve_special(
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
pub(super) fn common_shape(
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
