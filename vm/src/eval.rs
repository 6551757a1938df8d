//! Evaluators of the arithmetic ops on raw register bits: the single definition of what each
//! [`UnaryOp`], [`BinaryOp`], [`TernaryOp`], conversion and [`VectorOp`] computes. The
//! interpreter calls these; the JIT either calls them as helpers or emits code that matches them
//! (the shared run tests check that it does).
//!
//! Registers hold 64 bits: 32-bit types zero-extended, floats as their IEEE bits, `bool` as 0/1.
#![allow(
    clippy::unnecessary_cast,
    reason = "generated arms convert uniformly through u32/u64"
)]
#![allow(unused_parens, reason = "generated arms parenthesise every operand")]

use crate::inst::VectorShape;
use crate::intrinsics;
use crate::ops::{BinaryOp, TernaryOp, UnaryOp, VectorOp};
use crate::types::Type;

/// An arithmetic fault: the only way an op can fail.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ArithFault {
    /// Integer division or remainder by zero.
    DivisionByZero,
}

/// The canonical quiet NaN of `f32` (Cranelift's `Ieee32::NAN`).
pub const CANONICAL_NAN_F32: u32 = 0x7FC0_0000;
/// The canonical quiet NaN of `f64` (Cranelift's `Ieee64::NAN`).
pub const CANONICAL_NAN_F64: u64 = 0x7FF8_0000_0000_0000;

/// Replaces a NaN result of type `ty` by the canonical quiet NaN. Every arithmetic op does this
/// (NaN payloads and signs never propagate through arithmetic), because which operand's payload
/// a two-NaN operation returns depends on how the compiler ordered the operands; moves, selects,
/// bitcasts, loads and stores keep bits as they are.
#[inline]
pub fn canonical_nan(ty: Type, bits: u64) -> u64 {
    match ty {
        Type::F32 if f32::from_bits(bits as u32).is_nan() => CANONICAL_NAN_F32 as u64,
        Type::F64 if f64::from_bits(bits).is_nan() => CANONICAL_NAN_F64,
        _ => bits,
    }
}

/// Evaluates a [`UnaryOp`].
#[inline]
pub fn unary(op: UnaryOp, x: u64) -> u64 {
    canonical_nan(op.result_type(), unary_raw(op, x))
}

#[inline]
fn unary_raw(op: UnaryOp, x: u64) -> u64 {
    use UnaryOp::*;
    match op {
        NegI32 => ((x as u32 as i32).wrapping_neg()) as u32 as u64,
        NegU32 => ((x as u32).wrapping_neg()) as u64,
        NegI64 => ((x as i64).wrapping_neg()) as u64,
        NegU64 => x.wrapping_neg(),
        NegF32 => (-f32::from_bits(x as u32)).to_bits() as u64,
        NegF64 => (-f64::from_bits(x)).to_bits(),
        NotI32 => (!(x as u32 as i32)) as u32 as u64,
        NotU32 => (!(x as u32)) as u64,
        NotI64 => (!(x as i64)) as u64,
        NotU64 => !x,
        NotBool => (x == 0) as u64,
        AbsI32 => ((x as u32 as i32).wrapping_abs()) as u32 as u64,
        AbsI64 => ((x as i64).wrapping_abs()) as u64,
        CountbitsU32 => (intrinsics::countbits(x as u32)) as u64,
        ReversebitsU32 => (intrinsics::reversebits(x as u32)) as u64,
        FirstbithighU32 => (intrinsics::firstbithigh_u32(x as u32)) as u64,
        FirstbithighI32 => (intrinsics::firstbithigh_i32(x as u32 as i32)) as u32 as u64,
        FirstbitlowU32 => (intrinsics::firstbitlow(x as u32)) as u64,
        AbsF32 => (f32::from_bits(x as u32).abs()).to_bits() as u64,
        FloorF32 => (f32::from_bits(x as u32).floor()).to_bits() as u64,
        CeilF32 => (f32::from_bits(x as u32).ceil()).to_bits() as u64,
        RoundF32 => (intrinsics::float32::round(f32::from_bits(x as u32))).to_bits() as u64,
        TruncF32 => (f32::from_bits(x as u32).trunc()).to_bits() as u64,
        FracF32 => (intrinsics::float32::frac(f32::from_bits(x as u32))).to_bits() as u64,
        SqrtF32 => (f32::from_bits(x as u32).sqrt()).to_bits() as u64,
        RsqrtF32 => (intrinsics::float32::rsqrt(f32::from_bits(x as u32))).to_bits() as u64,
        RcpF32 => (intrinsics::float32::rcp(f32::from_bits(x as u32))).to_bits() as u64,
        SaturateF32 => (intrinsics::float32::saturate(f32::from_bits(x as u32))).to_bits() as u64,
        SinF32 => (f32::from_bits(x as u32).sin()).to_bits() as u64,
        CosF32 => (f32::from_bits(x as u32).cos()).to_bits() as u64,
        TanF32 => (f32::from_bits(x as u32).tan()).to_bits() as u64,
        AsinF32 => (f32::from_bits(x as u32).asin()).to_bits() as u64,
        AcosF32 => (f32::from_bits(x as u32).acos()).to_bits() as u64,
        AtanF32 => (f32::from_bits(x as u32).atan()).to_bits() as u64,
        SinhF32 => (f32::from_bits(x as u32).sinh()).to_bits() as u64,
        CoshF32 => (f32::from_bits(x as u32).cosh()).to_bits() as u64,
        TanhF32 => (f32::from_bits(x as u32).tanh()).to_bits() as u64,
        ExpF32 => (f32::from_bits(x as u32).exp()).to_bits() as u64,
        Exp2F32 => (f32::from_bits(x as u32).exp2()).to_bits() as u64,
        LogF32 => (f32::from_bits(x as u32).ln()).to_bits() as u64,
        Log2F32 => (f32::from_bits(x as u32).log2()).to_bits() as u64,
        Log10F32 => (f32::from_bits(x as u32).log10()).to_bits() as u64,
        DegreesF32 => (intrinsics::float32::degrees(f32::from_bits(x as u32))).to_bits() as u64,
        RadiansF32 => (intrinsics::float32::radians(f32::from_bits(x as u32))).to_bits() as u64,
        AbsF64 => (f64::from_bits(x).abs()).to_bits(),
        FloorF64 => (f64::from_bits(x).floor()).to_bits(),
        CeilF64 => (f64::from_bits(x).ceil()).to_bits(),
        RoundF64 => (intrinsics::float64::round(f64::from_bits(x))).to_bits(),
        TruncF64 => (f64::from_bits(x).trunc()).to_bits(),
        FracF64 => (intrinsics::float64::frac(f64::from_bits(x))).to_bits(),
        SqrtF64 => (f64::from_bits(x).sqrt()).to_bits(),
        RsqrtF64 => (intrinsics::float64::rsqrt(f64::from_bits(x))).to_bits(),
        RcpF64 => (intrinsics::float64::rcp(f64::from_bits(x))).to_bits(),
        SaturateF64 => (intrinsics::float64::saturate(f64::from_bits(x))).to_bits(),
        SinF64 => (f64::from_bits(x).sin()).to_bits(),
        CosF64 => (f64::from_bits(x).cos()).to_bits(),
        TanF64 => (f64::from_bits(x).tan()).to_bits(),
        AsinF64 => (f64::from_bits(x).asin()).to_bits(),
        AcosF64 => (f64::from_bits(x).acos()).to_bits(),
        AtanF64 => (f64::from_bits(x).atan()).to_bits(),
        SinhF64 => (f64::from_bits(x).sinh()).to_bits(),
        CoshF64 => (f64::from_bits(x).cosh()).to_bits(),
        TanhF64 => (f64::from_bits(x).tanh()).to_bits(),
        ExpF64 => (f64::from_bits(x).exp()).to_bits(),
        Exp2F64 => (f64::from_bits(x).exp2()).to_bits(),
        LogF64 => (f64::from_bits(x).ln()).to_bits(),
        Log2F64 => (f64::from_bits(x).log2()).to_bits(),
        Log10F64 => (f64::from_bits(x).log10()).to_bits(),
        DegreesF64 => (intrinsics::float64::degrees(f64::from_bits(x))).to_bits(),
        RadiansF64 => (intrinsics::float64::radians(f64::from_bits(x))).to_bits(),
        SignF32 => (intrinsics::float32::sign(f32::from_bits(x as u32))) as u32 as u64,
        SignF64 => (intrinsics::float64::sign(f64::from_bits(x))) as u32 as u64,
        SignI32 => ((x as u32 as i32).signum() as i32) as u32 as u64,
        SignI64 => ((x as i64).signum() as i32) as u32 as u64,
        IsnanF32 => (f32::from_bits(x as u32).is_nan()) as u64,
        IsinfF32 => (f32::from_bits(x as u32).is_infinite()) as u64,
        IsfiniteF32 => (f32::from_bits(x as u32).is_finite()) as u64,
        IsnanF64 => (f64::from_bits(x).is_nan()) as u64,
        IsinfF64 => (f64::from_bits(x).is_infinite()) as u64,
        IsfiniteF64 => (f64::from_bits(x).is_finite()) as u64,
        ModfF32 => (intrinsics::float32::modf_fraction(f32::from_bits(x as u32))).to_bits() as u64,
        ModfF64 => (intrinsics::float64::modf_fraction(f64::from_bits(x))).to_bits(),
        FrexpMantissaF32 => {
            (intrinsics::float32::frexp_mantissa(f32::from_bits(x as u32))).to_bits() as u64
        }
        FrexpMantissaF64 => (intrinsics::float64::frexp_mantissa(f64::from_bits(x))).to_bits(),
        FrexpExponentF32 => {
            (intrinsics::float32::frexp_exponent(f32::from_bits(x as u32))).to_bits() as u64
        }
        FrexpExponentF64 => (intrinsics::float64::frexp_exponent(f64::from_bits(x))).to_bits(),
        F16tof32U32 => (intrinsics::f16tof32(x as u32)).to_bits() as u64,
        F32tof16F32 => (intrinsics::f32tof16(f32::from_bits(x as u32))) as u64,
    }
}

/// Evaluates a [`BinaryOp`]; integer `div`/`rem` by zero fail.
#[inline]
pub fn binary(op: BinaryOp, a: u64, b: u64) -> Result<u64, ArithFault> {
    binary_raw(op, a, b).map(|bits| canonical_nan(op.result_type(), bits))
}

#[inline]
fn binary_raw(op: BinaryOp, a: u64, b: u64) -> Result<u64, ArithFault> {
    use BinaryOp::*;
    Ok(match op {
        AddI32 => ((a as u32 as i32).wrapping_add(b as u32 as i32)) as u32 as u64,
        SubI32 => ((a as u32 as i32).wrapping_sub(b as u32 as i32)) as u32 as u64,
        MulI32 => ((a as u32 as i32).wrapping_mul(b as u32 as i32)) as u32 as u64,
        DivI32 => {
            let d = (b as u32 as i32);
            if d == 0 {
                return Err(ArithFault::DivisionByZero);
            }
            ((a as u32 as i32).wrapping_div(d)) as u32 as u64
        }
        RemI32 => {
            let d = (b as u32 as i32);
            if d == 0 {
                return Err(ArithFault::DivisionByZero);
            }
            ((a as u32 as i32).wrapping_rem(d)) as u32 as u64
        }
        AddU32 => ((a as u32).wrapping_add(b as u32)) as u64,
        SubU32 => ((a as u32).wrapping_sub(b as u32)) as u64,
        MulU32 => ((a as u32).wrapping_mul(b as u32)) as u64,
        DivU32 => {
            let d = (b as u32);
            if d == 0 {
                return Err(ArithFault::DivisionByZero);
            }
            ((a as u32).wrapping_div(d)) as u64
        }
        RemU32 => {
            let d = (b as u32);
            if d == 0 {
                return Err(ArithFault::DivisionByZero);
            }
            ((a as u32).wrapping_rem(d)) as u64
        }
        AddI64 => ((a as i64).wrapping_add(b as i64)) as u64,
        SubI64 => ((a as i64).wrapping_sub(b as i64)) as u64,
        MulI64 => ((a as i64).wrapping_mul(b as i64)) as u64,
        DivI64 => {
            let d = (b as i64);
            if d == 0 {
                return Err(ArithFault::DivisionByZero);
            }
            ((a as i64).wrapping_div(d)) as u64
        }
        RemI64 => {
            let d = (b as i64);
            if d == 0 {
                return Err(ArithFault::DivisionByZero);
            }
            ((a as i64).wrapping_rem(d)) as u64
        }
        AddU64 => a.wrapping_add(b),
        SubU64 => a.wrapping_sub(b),
        MulU64 => a.wrapping_mul(b),
        DivU64 => {
            let d = b;
            if d == 0 {
                return Err(ArithFault::DivisionByZero);
            }
            a.wrapping_div(d)
        }
        RemU64 => {
            let d = b;
            if d == 0 {
                return Err(ArithFault::DivisionByZero);
            }
            a.wrapping_rem(d)
        }
        AddF32 => (f32::from_bits(a as u32) + f32::from_bits(b as u32)).to_bits() as u64,
        SubF32 => (f32::from_bits(a as u32) - f32::from_bits(b as u32)).to_bits() as u64,
        MulF32 => (f32::from_bits(a as u32) * f32::from_bits(b as u32)).to_bits() as u64,
        DivF32 => (f32::from_bits(a as u32) / f32::from_bits(b as u32)).to_bits() as u64,
        RemF32 => (f32::from_bits(a as u32) % f32::from_bits(b as u32)).to_bits() as u64,
        AddF64 => (f64::from_bits(a) + f64::from_bits(b)).to_bits(),
        SubF64 => (f64::from_bits(a) - f64::from_bits(b)).to_bits(),
        MulF64 => (f64::from_bits(a) * f64::from_bits(b)).to_bits(),
        DivF64 => (f64::from_bits(a) / f64::from_bits(b)).to_bits(),
        RemF64 => (f64::from_bits(a) % f64::from_bits(b)).to_bits(),
        AndI32 => ((a as u32 as i32) & (b as u32 as i32)) as u32 as u64,
        OrI32 => ((a as u32 as i32) | (b as u32 as i32)) as u32 as u64,
        XorI32 => ((a as u32 as i32) ^ (b as u32 as i32)) as u32 as u64,
        ShlI32 => ((a as u32 as i32).wrapping_shl((b as u32 as i32) as u32)) as u32 as u64,
        ShrI32 => ((a as u32 as i32).wrapping_shr((b as u32 as i32) as u32)) as u32 as u64,
        AndU32 => ((a as u32) & (b as u32)) as u64,
        OrU32 => ((a as u32) | (b as u32)) as u64,
        XorU32 => ((a as u32) ^ (b as u32)) as u64,
        ShlU32 => ((a as u32).wrapping_shl((b as u32) as u32)) as u64,
        ShrU32 => ((a as u32).wrapping_shr((b as u32) as u32)) as u64,
        AndI64 => ((a as i64) & (b as i64)) as u64,
        OrI64 => ((a as i64) | (b as i64)) as u64,
        XorI64 => ((a as i64) ^ (b as i64)) as u64,
        ShlI64 => ((a as i64).wrapping_shl((b as i64) as u32)) as u64,
        ShrI64 => ((a as i64).wrapping_shr((b as i64) as u32)) as u64,
        AndU64 => a & b,
        OrU64 => a | b,
        XorU64 => a ^ b,
        ShlU64 => a.wrapping_shl(b as u32),
        ShrU64 => a.wrapping_shr(b as u32),
        AndBool => ((a != 0) & (b != 0)) as u64,
        OrBool => ((a != 0) | (b != 0)) as u64,
        XorBool => ((a != 0) ^ (b != 0)) as u64,
        EqBool => ((a != 0) == (b != 0)) as u64,
        NeBool => ((a != 0) != (b != 0)) as u64,
        EqI32 => ((a as u32 as i32) == (b as u32 as i32)) as u64,
        NeI32 => ((a as u32 as i32) != (b as u32 as i32)) as u64,
        EqU32 => ((a as u32) == (b as u32)) as u64,
        NeU32 => ((a as u32) != (b as u32)) as u64,
        EqI64 => ((a as i64) == (b as i64)) as u64,
        NeI64 => ((a as i64) != (b as i64)) as u64,
        EqU64 => (a == b) as u64,
        NeU64 => (a != b) as u64,
        EqF32 => (f32::from_bits(a as u32) == f32::from_bits(b as u32)) as u64,
        NeF32 => (f32::from_bits(a as u32) != f32::from_bits(b as u32)) as u64,
        EqF64 => (f64::from_bits(a) == f64::from_bits(b)) as u64,
        NeF64 => (f64::from_bits(a) != f64::from_bits(b)) as u64,
        LtI32 => ((a as u32 as i32) < (b as u32 as i32)) as u64,
        LeI32 => ((a as u32 as i32) <= (b as u32 as i32)) as u64,
        GtI32 => ((a as u32 as i32) > (b as u32 as i32)) as u64,
        GeI32 => ((a as u32 as i32) >= (b as u32 as i32)) as u64,
        MinI32 => ((a as u32 as i32).min(b as u32 as i32)) as u32 as u64,
        MaxI32 => ((a as u32 as i32).max(b as u32 as i32)) as u32 as u64,
        LtU32 => ((a as u32) < (b as u32)) as u64,
        LeU32 => ((a as u32) <= (b as u32)) as u64,
        GtU32 => ((a as u32) > (b as u32)) as u64,
        GeU32 => ((a as u32) >= (b as u32)) as u64,
        MinU32 => ((a as u32).min(b as u32)) as u64,
        MaxU32 => ((a as u32).max(b as u32)) as u64,
        LtI64 => ((a as i64) < (b as i64)) as u64,
        LeI64 => ((a as i64) <= (b as i64)) as u64,
        GtI64 => ((a as i64) > (b as i64)) as u64,
        GeI64 => ((a as i64) >= (b as i64)) as u64,
        MinI64 => ((a as i64).min(b as i64)) as u64,
        MaxI64 => ((a as i64).max(b as i64)) as u64,
        LtU64 => (a < b) as u64,
        LeU64 => (a <= b) as u64,
        GtU64 => (a > b) as u64,
        GeU64 => (a >= b) as u64,
        MinU64 => a.min(b),
        MaxU64 => a.max(b),
        LtF32 => (f32::from_bits(a as u32) < f32::from_bits(b as u32)) as u64,
        LeF32 => (f32::from_bits(a as u32) <= f32::from_bits(b as u32)) as u64,
        GtF32 => (f32::from_bits(a as u32) > f32::from_bits(b as u32)) as u64,
        GeF32 => (f32::from_bits(a as u32) >= f32::from_bits(b as u32)) as u64,
        MinF32 => (intrinsics::float32::min(f32::from_bits(a as u32), f32::from_bits(b as u32)))
            .to_bits() as u64,
        MaxF32 => (intrinsics::float32::max(f32::from_bits(a as u32), f32::from_bits(b as u32)))
            .to_bits() as u64,
        LtF64 => (f64::from_bits(a) < f64::from_bits(b)) as u64,
        LeF64 => (f64::from_bits(a) <= f64::from_bits(b)) as u64,
        GtF64 => (f64::from_bits(a) > f64::from_bits(b)) as u64,
        GeF64 => (f64::from_bits(a) >= f64::from_bits(b)) as u64,
        MinF64 => (intrinsics::float64::min(f64::from_bits(a), f64::from_bits(b))).to_bits(),
        MaxF64 => (intrinsics::float64::max(f64::from_bits(a), f64::from_bits(b))).to_bits(),
        Atan2F32 => {
            (intrinsics::float32::atan2(f32::from_bits(a as u32), f32::from_bits(b as u32)))
                .to_bits() as u64
        }
        PowF32 => (f32::from_bits(a as u32).powf(f32::from_bits(b as u32))).to_bits() as u64,
        StepF32 => (intrinsics::float32::step(f32::from_bits(a as u32), f32::from_bits(b as u32)))
            .to_bits() as u64,
        Atan2F64 => (intrinsics::float64::atan2(f64::from_bits(a), f64::from_bits(b))).to_bits(),
        PowF64 => (f64::from_bits(a).powf(f64::from_bits(b))).to_bits(),
        StepF64 => (intrinsics::float64::step(f64::from_bits(a), f64::from_bits(b))).to_bits(),
    })
}

/// Evaluates a [`TernaryOp`].
#[inline]
pub fn ternary(op: TernaryOp, a: u64, b: u64, c: u64) -> u64 {
    canonical_nan(op.result_type(), ternary_raw(op, a, b, c))
}

#[inline]
fn ternary_raw(op: TernaryOp, a: u64, b: u64, c: u64) -> u64 {
    use TernaryOp::*;
    match op {
        LerpF32 => (intrinsics::float32::lerp(
            f32::from_bits(a as u32),
            f32::from_bits(b as u32),
            f32::from_bits(c as u32),
        ))
        .to_bits() as u64,
        SmoothstepF32 => (intrinsics::float32::smoothstep(
            f32::from_bits(a as u32),
            f32::from_bits(b as u32),
            f32::from_bits(c as u32),
        ))
        .to_bits() as u64,
        MadF32 => (intrinsics::float32::mad(
            f32::from_bits(a as u32),
            f32::from_bits(b as u32),
            f32::from_bits(c as u32),
        ))
        .to_bits() as u64,
        LerpF64 => {
            (intrinsics::float64::lerp(f64::from_bits(a), f64::from_bits(b), f64::from_bits(c)))
                .to_bits()
        }
        SmoothstepF64 => (intrinsics::float64::smoothstep(
            f64::from_bits(a),
            f64::from_bits(b),
            f64::from_bits(c),
        ))
        .to_bits(),
        MadF64 => {
            (intrinsics::float64::mad(f64::from_bits(a), f64::from_bits(b), f64::from_bits(c)))
                .to_bits()
        }
        ClampI32 => ((a as u32 as i32).max(b as u32 as i32).min(c as u32 as i32)) as u32 as u64,
        ClampU32 => ((a as u32).max(b as u32).min(c as u32)) as u64,
        ClampI64 => ((a as i64).max(b as i64).min(c as i64)) as u64,
        ClampU64 => a.max(b).min(c),
        ClampF32 => (intrinsics::float32::clamp(
            f32::from_bits(a as u32),
            f32::from_bits(b as u32),
            f32::from_bits(c as u32),
        ))
        .to_bits() as u64,
        ClampF64 => {
            (intrinsics::float64::clamp(f64::from_bits(a), f64::from_bits(b), f64::from_bits(c)))
                .to_bits()
        }
        MadI32 => {
            ((a as u32 as i32)
                .wrapping_mul(b as u32 as i32)
                .wrapping_add(c as u32 as i32)) as u32 as u64
        }
        MadU32 => ((a as u32).wrapping_mul(b as u32).wrapping_add(c as u32)) as u64,
        MadI64 => ((a as i64).wrapping_mul(b as i64).wrapping_add(c as i64)) as u64,
        MadU64 => a.wrapping_mul(b).wrapping_add(c),
        FmaF64 => (f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c))).to_bits(),
    }
}

/// A register value widened for conversion.
#[derive(Clone, Copy)]
enum Wide {
    Signed(i64),
    Unsigned(u64),
    Float(f64),
    F32(f32),
}

/// Converts between two non-`addr` types: integer to integer truncates or extends (sign-extends
/// from signed sources); float to integer truncates toward zero and saturates, NaN giving 0;
/// integer to float rounds to nearest even; `f64` to `f32` rounds to nearest even; anything to
/// `bool` is `!= 0` (NaN is true, as `NaN != 0`); `bool` to anything is 0 or 1.
#[inline]
pub fn convert(to: Type, from: Type, x: u64) -> u64 {
    canonical_nan(to, convert_raw(to, from, x))
}

#[inline]
fn convert_raw(to: Type, from: Type, x: u64) -> u64 {
    let wide = match from {
        Type::Bool => Wide::Unsigned((x != 0) as u64),
        Type::I32 => Wide::Signed(x as u32 as i32 as i64),
        Type::U32 => Wide::Unsigned(x as u32 as u64),
        Type::I64 => Wide::Signed(x as i64),
        Type::U64 | Type::Addr => Wide::Unsigned(x),
        Type::F32 => Wide::F32(f32::from_bits(x as u32)),
        Type::F64 => Wide::Float(f64::from_bits(x)),
    };
    match to {
        Type::Bool => match wide {
            Wide::Signed(v) => (v != 0) as u64,
            Wide::Unsigned(v) => (v != 0) as u64,
            Wide::Float(v) => (v != 0.0) as u64,
            Wide::F32(v) => (v != 0.0) as u64,
        },
        Type::I32 => match wide {
            Wide::Signed(v) => v as i32 as u32 as u64,
            Wide::Unsigned(v) => v as u32 as u64,
            Wide::Float(v) => intrinsics::float64::to_i32(v) as u32 as u64,
            Wide::F32(v) => intrinsics::float32::to_i32(v) as u32 as u64,
        },
        Type::U32 | Type::Addr => match wide {
            Wide::Signed(v) => v as u32 as u64,
            Wide::Unsigned(v) => v as u32 as u64,
            Wide::Float(v) => intrinsics::float64::to_u32(v) as u64,
            Wide::F32(v) => intrinsics::float32::to_u32(v) as u64,
        },
        Type::I64 => match wide {
            Wide::Signed(v) => v as u64,
            Wide::Unsigned(v) => v,
            Wide::Float(v) => intrinsics::float64::to_i64(v) as u64,
            Wide::F32(v) => intrinsics::float32::to_i64(v) as u64,
        },
        Type::U64 => match wide {
            Wide::Signed(v) => v as u64,
            Wide::Unsigned(v) => v,
            Wide::Float(v) => intrinsics::float64::to_u64(v),
            Wide::F32(v) => intrinsics::float32::to_u64(v),
        },
        Type::F32 => (match wide {
            Wide::Signed(v) => v as f32,
            Wide::Unsigned(v) => v as f32,
            Wide::Float(v) => v as f32,
            Wide::F32(v) => v,
        })
        .to_bits() as u64,
        Type::F64 => (match wide {
            Wide::Signed(v) => v as f64,
            Wide::Unsigned(v) => v as f64,
            Wide::Float(v) => v,
            Wide::F32(v) => v as f64,
        })
        .to_bits(),
    }
}

/// Evaluates a [`VectorOp`]: reads `srcs`, writes `dsts` (lengths as [`VectorOp::arity`] gives).
/// Lanes beyond the arity are ignored; a shape with a bad width or type writes nothing.
pub fn vector(shape: VectorShape, srcs: &[u64], dsts: &mut [u64]) {
    vector_raw(shape, srcs, dsts);
    for dst in dsts.iter_mut() {
        *dst = canonical_nan(shape.ty, *dst);
    }
}

fn vector_raw(shape: VectorShape, srcs: &[u64], dsts: &mut [u64]) {
    let Some((n_srcs, n_dsts)) = shape.op.arity(shape.width) else {
        return;
    };
    if srcs.len() < n_srcs || dsts.len() < n_dsts {
        return;
    }
    let n = shape.width as usize;
    match shape.ty {
        Type::F32 => {
            let mut lanes = [0f32; 8];
            for (lane, bits) in lanes.iter_mut().zip(srcs) {
                *lane = f32::from_bits(*bits as u32);
            }
            let mut out = [0f32; 4];
            let (a, b) = (&lanes[..n], &lanes[n..(2 * n).min(8)]);
            match shape.op {
                VectorOp::Dot => out[0] = intrinsics::float32::dot(a, b),
                VectorOp::Length => out[0] = intrinsics::float32::length(a),
                VectorOp::Normalize => intrinsics::float32::normalize(a, &mut out[..n]),
                VectorOp::Distance => out[0] = intrinsics::float32::distance(a, b),
                VectorOp::Cross => {
                    let c = intrinsics::float32::cross(&[a[0], a[1], a[2]], &[b[0], b[1], b[2]]);
                    out[..3].copy_from_slice(&c);
                }
            }
            for (dst, value) in dsts.iter_mut().zip(&out[..n_dsts]) {
                *dst = value.to_bits() as u64;
            }
        }
        Type::F64 => {
            let mut lanes = [0f64; 8];
            for (lane, bits) in lanes.iter_mut().zip(srcs) {
                *lane = f64::from_bits(*bits);
            }
            let mut out = [0f64; 4];
            let (a, b) = (&lanes[..n], &lanes[n..(2 * n).min(8)]);
            match shape.op {
                VectorOp::Dot => out[0] = intrinsics::float64::dot(a, b),
                VectorOp::Length => out[0] = intrinsics::float64::length(a),
                VectorOp::Normalize => intrinsics::float64::normalize(a, &mut out[..n]),
                VectorOp::Distance => out[0] = intrinsics::float64::distance(a, b),
                VectorOp::Cross => {
                    let c = intrinsics::float64::cross(&[a[0], a[1], a[2]], &[b[0], b[1], b[2]]);
                    out[..3].copy_from_slice(&c);
                }
            }
            for (dst, value) in dsts.iter_mut().zip(&out[..n_dsts]) {
                *dst = value.to_bits();
            }
        }
        _ => {}
    }
}
