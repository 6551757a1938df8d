//! Lowering of HLSL intrinsic calls onto the op tables (per lane) and vector ops.

use super::expr::{find_binary, find_ternary, find_unary};
use super::{lanes_of, vm_type, FnLower, LowerError, Val};
use crate::entities::Reg;
use crate::inst::VectorShape;
use crate::ops::{BinaryOp as VmBinary, UnaryOp as VmUnary, VectorOp};
use crate::types::Type as VmType;
use rpsl_frontend::hir::Arg;
use rpsl_frontend::intrinsics::Intrinsic;
use rpsl_frontend::source::Span;
use rpsl_frontend::types::{ScalarKind, Type};

impl FnLower<'_> {
    pub(super) fn call_intrinsic(
        &mut self,
        intrinsic: Intrinsic,
        args: &[Arg],
        ty: &Type,
        span: Span,
    ) -> Result<Val, LowerError> {
        let mut lanes = Vec::new();
        let mut arg_types = Vec::new();
        let mut outs = Vec::new();
        for arg in args {
            match arg {
                Arg::In(expr) => {
                    lanes.push(self.lanes(expr)?);
                    arg_types.push(expr.ty.clone());
                }
                Arg::Out(place) => outs.push((self.place_addr(place)?, place)),
                Arg::InOut(_) => return self.error(span, "intrinsics take no inout arguments"),
            }
        }
        self.at(span);
        let Some((arg_kind, width)) = arg_types.first().and_then(lanes_of) else {
            return self.error(span, "intrinsic without arguments");
        };
        let arg_ty = vm_type(arg_kind);
        let result_kind = lanes_of(ty).map(|(k, _)| k);
        match intrinsic {
            Intrinsic::Mul => {
                let Some((kind, _)) = lanes_of(ty) else {
                    return self.error(span, "`mul` of non-numeric operands");
                };
                let out = self.lower_mul(
                    (&lanes[0], &arg_types[0]),
                    (&lanes[1], &arg_types[1]),
                    vm_type(kind),
                    span,
                )?;
                return Ok(Val::Lanes(out));
            }
            Intrinsic::Transpose => {
                return Ok(Val::Lanes(self.lower_transpose(&lanes[0], &arg_types[0])));
            }
            Intrinsic::Determinant => {
                let n = match &arg_types[0] {
                    Type::Matrix(_, rows, _) => *rows as usize,
                    _ => 0,
                };
                let det = self.lower_determinant(&lanes[0], n, arg_ty, span)?;
                return Ok(Val::Lanes(vec![det]));
            }
            _ => {}
        }
        if let Some(val) = self.half_conversion(intrinsic, &lanes[0]) {
            return Ok(val);
        }
        if let Some(val) = self.shading_intrinsic(intrinsic, &lanes, &outs, arg_ty, span)? {
            return Ok(val);
        }
        let per_lane = |this: &mut Self, name: &str| -> Result<Val, LowerError> {
            let n = lanes.iter().map(Vec::len).max().unwrap_or(0);
            let lane = |v: &Vec<Reg>, i: usize| v.get(i).copied().unwrap_or(v[0]);
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                out.push(match lanes.len() {
                    1 => this
                        .b
                        .unary(find_unary(name, arg_ty, span)?, lane(&lanes[0], i)),
                    2 => this.b.binary(
                        find_binary(name, arg_ty, span)?,
                        lane(&lanes[0], i),
                        lane(&lanes[1], i),
                    ),
                    _ => this.b.ternary(
                        find_ternary(name, arg_ty, span)?,
                        lane(&lanes[0], i),
                        lane(&lanes[1], i),
                        lane(&lanes[2], i),
                    ),
                });
            }
            Ok(Val::Lanes(out))
        };
        let name = match intrinsic {
            Intrinsic::Fmod => "rem",
            Intrinsic::Dot
            | Intrinsic::Cross
            | Intrinsic::Length
            | Intrinsic::Distance
            | Intrinsic::Normalize => {
                return self.vector_intrinsic(intrinsic, &lanes, arg_ty, width, span);
            }
            Intrinsic::All | Intrinsic::Any => {
                let mut acc: Option<Reg> = None;
                for &lane in &lanes[0] {
                    let flag = if arg_ty == VmType::Bool {
                        lane
                    } else {
                        self.b.convert(VmType::Bool, lane)
                    };
                    acc = Some(match acc {
                        None => flag,
                        Some(prev) => self.b.binary(
                            if intrinsic == Intrinsic::All {
                                VmBinary::AndBool
                            } else {
                                VmBinary::OrBool
                            },
                            prev,
                            flag,
                        ),
                    });
                }
                return Ok(Val::Lanes(acc.into_iter().collect()));
            }
            Intrinsic::Asint | Intrinsic::Asuint | Intrinsic::Asfloat => {
                let to = vm_type(result_kind.unwrap_or(ScalarKind::Uint));
                let out = lanes[0]
                    .iter()
                    .map(|&l| {
                        if self.b.reg_type(l) == Some(to) {
                            l
                        } else {
                            self.b.bitcast(to, l)
                        }
                    })
                    .collect();
                return Ok(Val::Lanes(out));
            }
            Intrinsic::Countbits
            | Intrinsic::Reversebits
            | Intrinsic::Firstbitlow
            | Intrinsic::Firstbithigh => {
                let name = match intrinsic {
                    Intrinsic::Countbits => "countbits",
                    Intrinsic::Reversebits => "reversebits",
                    Intrinsic::Firstbitlow => "firstbitlow",
                    _ => "firstbithigh",
                };
                let to = vm_type(result_kind.unwrap_or(ScalarKind::Uint));
                let mut out = Vec::new();
                for &l in &lanes[0] {
                    let r = if name == "firstbithigh" && arg_ty == VmType::I32 {
                        self.b.unary(VmUnary::FirstbithighI32, l)
                    } else {
                        let u = if arg_ty == VmType::U32 {
                            l
                        } else {
                            self.b.bitcast(VmType::U32, l)
                        };
                        self.b.unary(find_unary(name, VmType::U32, span)?, u)
                    };
                    let ty_now = self.b.reg_type(r).unwrap_or(VmType::U32);
                    out.push(if ty_now == to {
                        r
                    } else {
                        self.b.bitcast(to, r)
                    });
                }
                return Ok(Val::Lanes(out));
            }
            Intrinsic::Abs if arg_ty == VmType::U32 || arg_ty == VmType::U64 => {
                return Ok(Val::Lanes(lanes[0].clone()))
            }
            Intrinsic::Sign if arg_ty == VmType::U32 => {
                let zero = self.b.iconst_u32(0);
                let out = lanes[0]
                    .iter()
                    .map(|&l| {
                        let nonzero = self.b.binary(VmBinary::NeU32, l, zero);
                        self.b.convert(VmType::I32, nonzero)
                    })
                    .collect();
                return Ok(Val::Lanes(out));
            }
            Intrinsic::Mad if arg_ty.is_float() || arg_ty.is_int() => "mad",
            other => intrinsic_op_name(other).ok_or_else(|| LowerError {
                message: format!("intrinsic `{other:?}` is not supported yet"),
                span,
            })?,
        };
        per_lane(self, name)
    }

    fn vector_intrinsic(
        &mut self,
        intrinsic: Intrinsic,
        lanes: &[Vec<Reg>],
        ty: VmType,
        width: usize,
        span: Span,
    ) -> Result<Val, LowerError> {
        if !ty.is_float() || width < 2 {
            // Integer or 1-wide dot: multiply-add chain in lane order (wrapping for integers).
            if intrinsic == Intrinsic::Dot {
                let (mul, add) = (find_binary("mul", ty, span)?, find_binary("add", ty, span)?);
                let mut acc = self.b.binary(mul, lanes[0][0], lanes[1][0]);
                for (&a, &b) in lanes[0].iter().zip(&lanes[1]).skip(1) {
                    let product = self.b.binary(mul, a, b);
                    acc = self.b.binary(add, acc, product);
                }
                return Ok(Val::Lanes(vec![acc]));
            }
            return self.error(
                span,
                format!("`{intrinsic:?}` on this type is not supported yet"),
            );
        }
        let op = match intrinsic {
            Intrinsic::Dot => VectorOp::Dot,
            Intrinsic::Cross => VectorOp::Cross,
            Intrinsic::Length => VectorOp::Length,
            Intrinsic::Distance => VectorOp::Distance,
            _ => VectorOp::Normalize,
        };
        let srcs: Vec<Reg> = lanes.iter().flatten().copied().collect();
        Ok(Val::Lanes(self.b.vector(
            VectorShape {
                op,
                ty,
                width: width as u8,
            },
            &srcs,
        )))
    }
}

/// The per-lane op name of an intrinsic that maps one to one onto an op table entry.
fn intrinsic_op_name(intrinsic: Intrinsic) -> Option<&'static str> {
    Some(match intrinsic {
        Intrinsic::Abs => "abs",
        Intrinsic::Sign => "sign",
        Intrinsic::Min => "min",
        Intrinsic::Max => "max",
        Intrinsic::Clamp => "clamp",
        Intrinsic::Saturate => "saturate",
        Intrinsic::Floor => "floor",
        Intrinsic::Ceil => "ceil",
        Intrinsic::Round => "round",
        Intrinsic::Trunc => "trunc",
        Intrinsic::Frac => "frac",
        Intrinsic::Sqrt => "sqrt",
        Intrinsic::Rsqrt => "rsqrt",
        Intrinsic::Rcp => "rcp",
        Intrinsic::Pow => "pow",
        Intrinsic::Exp => "exp",
        Intrinsic::Exp2 => "exp2",
        Intrinsic::Log => "log",
        Intrinsic::Log2 => "log2",
        Intrinsic::Sin => "sin",
        Intrinsic::Cos => "cos",
        Intrinsic::Tan => "tan",
        Intrinsic::Asin => "asin",
        Intrinsic::Acos => "acos",
        Intrinsic::Atan => "atan",
        Intrinsic::Atan2 => "atan2",
        Intrinsic::Sinh => "sinh",
        Intrinsic::Cosh => "cosh",
        Intrinsic::Tanh => "tanh",
        Intrinsic::Lerp => "lerp",
        Intrinsic::Step => "step",
        Intrinsic::Smoothstep => "smoothstep",
        Intrinsic::Isnan => "isnan",
        Intrinsic::Isinf => "isinf",
        Intrinsic::Isfinite => "isfinite",
        Intrinsic::Degrees => "degrees",
        Intrinsic::Radians => "radians",
        Intrinsic::Log10 => "log10",
        Intrinsic::Fma => "fma",
        _ => return None,
    })
}
