//! Every unary, binary, ternary op and conversion run through the engines against hand-computed
//! results; a coverage check makes sure no op of the tables is left out.

mod common;

use common::{build, run_fn};
use rpsl_vm::{BinaryOp, Signature, TernaryOp, Type, UnaryOp, Value};
use std::collections::HashSet;
use std::f32::consts as c32;
use std::f64::consts as c64;
use Value::{Bool, F32, F64, I32, I64, U32, U64};

fn run_op(
    params: Vec<Type>,
    result: Type,
    emit: impl FnOnce(&mut rpsl_vm::FunctionBuilder) -> rpsl_vm::Reg,
    args: &[Value],
) -> Value {
    let f = build("op", Signature::new(params, [result]), |b| {
        let r = emit(b);
        b.ret(&[r]);
    });
    match run_fn(f, args) {
        Ok(values) => values[0],
        Err(error) => panic!("run failed: {error}"),
    }
}

/// Compares bit patterns for floats (so -0.0 and NaN are checked exactly), values otherwise.
fn same(a: Value, b: Value) -> bool {
    match (a, b) {
        (F32(x), F32(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
        (F64(x), F64(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
        _ => a == b,
    }
}

#[rustfmt::skip]
fn unary_cases() -> Vec<(UnaryOp, Value, Value)> {
    use UnaryOp::*;
    vec![
        (NegI32, I32(5), I32(-5)), (NegI32, I32(i32::MIN), I32(i32::MIN)), (NegU32, U32(1), U32(u32::MAX)),
        (NegI64, I64(-9), I64(9)), (NegU64, U64(2), U64(u64::MAX - 1)), (NegF32, F32(0.0), F32(-0.0)),
        (NegF64, F64(1.5), F64(-1.5)),
        (NotI32, I32(0), I32(-1)), (NotU32, U32(0xF0F0_F0F0), U32(0x0F0F_0F0F)), (NotI64, I64(-1), I64(0)),
        (NotU64, U64(0), U64(u64::MAX)), (NotBool, Bool(true), Bool(false)),
        (AbsI32, I32(-7), I32(7)), (AbsI32, I32(i32::MIN), I32(i32::MIN)), (AbsI64, I64(-7), I64(7)),
        (CountbitsU32, U32(0xFF00_0F01), U32(13)), (ReversebitsU32, U32(0x0000_0003), U32(0xC000_0000)),
        (FirstbithighU32, U32(0x0000_0100), U32(8)), (FirstbithighU32, U32(0), U32(u32::MAX)),
        (FirstbithighI32, I32(-5 - 4096), I32(12)), (FirstbithighI32, I32(-1), I32(-1)), (FirstbithighI32, I32(5), I32(2)),
        (FirstbitlowU32, U32(0x0000_0100), U32(8)), (FirstbitlowU32, U32(0), U32(u32::MAX)),
        (AbsF32, F32(-2.5), F32(2.5)), (FloorF32, F32(-1.5), F32(-2.0)), (CeilF32, F32(-1.5), F32(-1.0)),
        (RoundF32, F32(2.5), F32(2.0)), (RoundF32, F32(-0.5), F32(-0.0)), (RoundF32, F32(1.5), F32(2.0)),
        (TruncF32, F32(-1.7), F32(-1.0)), (FracF32, F32(-1.25), F32(0.75)), (SqrtF32, F32(9.0), F32(3.0)),
        (RsqrtF32, F32(4.0), F32(0.5)), (RcpF32, F32(8.0), F32(0.125)), (SaturateF32, F32(f32::NAN), F32(0.0)),
        (SaturateF32, F32(3.0), F32(1.0)), (SinF32, F32(0.0), F32(0.0)), (CosF32, F32(0.0), F32(1.0)),
        (TanF32, F32(0.0), F32(0.0)), (AsinF32, F32(1.0), F32(c32::FRAC_PI_2)), (AcosF32, F32(1.0), F32(0.0)),
        (AtanF32, F32(1.0), F32(c32::FRAC_PI_4)), (SinhF32, F32(0.0), F32(0.0)), (CoshF32, F32(0.0), F32(1.0)),
        (TanhF32, F32(0.0), F32(0.0)), (ExpF32, F32(0.0), F32(1.0)), (Exp2F32, F32(3.0), F32(8.0)),
        (LogF32, F32(1.0), F32(0.0)), (Log2F32, F32(8.0), F32(3.0)), (Log10F32, F32(100.0), F32(2.0)),
        (DegreesF32, F32(c32::PI), F32(180.0)), (RadiansF32, F32(180.0), F32(c32::PI)),
        (AbsF64, F64(-2.5), F64(2.5)), (FloorF64, F64(2.5), F64(2.0)), (CeilF64, F64(2.1), F64(3.0)),
        (RoundF64, F64(-2.5), F64(-2.0)), (TruncF64, F64(2.9), F64(2.0)), (FracF64, F64(2.25), F64(0.25)),
        (SqrtF64, F64(2.25), F64(1.5)), (RsqrtF64, F64(0.25), F64(2.0)), (RcpF64, F64(-4.0), F64(-0.25)),
        (SaturateF64, F64(-1.0), F64(0.0)), (SinF64, F64(0.0), F64(0.0)), (CosF64, F64(0.0), F64(1.0)),
        (TanF64, F64(0.0), F64(0.0)), (AsinF64, F64(0.0), F64(0.0)), (AcosF64, F64(0.0), F64(c64::FRAC_PI_2)),
        (AtanF64, F64(0.0), F64(0.0)), (SinhF64, F64(0.0), F64(0.0)), (CoshF64, F64(0.0), F64(1.0)),
        (TanhF64, F64(0.0), F64(0.0)), (ExpF64, F64(0.0), F64(1.0)), (Exp2F64, F64(-1.0), F64(0.5)),
        (LogF64, F64(1.0), F64(0.0)), (Log2F64, F64(0.25), F64(-2.0)), (Log10F64, F64(1000.0), F64(3.0)),
        (DegreesF64, F64(c64::PI), F64(180.0)), (RadiansF64, F64(180.0), F64(c64::PI)),
        (SignF32, F32(-0.5), I32(-1)), (SignF32, F32(f32::NAN), I32(0)), (SignF64, F64(3.0), I32(1)),
        (SignI32, I32(-8), I32(-1)), (SignI64, I64(0), I32(0)),
        (IsnanF32, F32(f32::NAN), Bool(true)), (IsinfF32, F32(f32::NEG_INFINITY), Bool(true)),
        (IsfiniteF32, F32(f32::INFINITY), Bool(false)), (IsnanF64, F64(1.0), Bool(false)),
        (IsinfF64, F64(f64::INFINITY), Bool(true)), (IsfiniteF64, F64(f64::NAN), Bool(false)),
        (ModfF32, F32(-2.75), F32(-0.75)), (ModfF32, F32(f32::INFINITY), F32(0.0)), (ModfF64, F64(-3.0), F64(-0.0)),
        (FrexpMantissaF32, F32(-12.0), F32(-0.75)), (FrexpMantissaF64, F64(0.125), F64(0.5)),
        (FrexpExponentF32, F32(-12.0), F32(4.0)), (FrexpExponentF64, F64(0.125), F64(-2.0)),
        (F16tof32U32, U32(0x0001_C200), F32(-3.0)), (F32tof16F32, F32(0.5), U32(0x3800)),
        (F32tof16F32, F32(-65520.0), U32(0xFC00)),
    ]
}

#[rustfmt::skip]
fn binary_cases() -> Vec<(BinaryOp, Value, Value, Value)> {
    use BinaryOp::*;
    let nan = f32::NAN;
    vec![
        (AddI32, I32(i32::MAX), I32(1), I32(i32::MIN)), (SubI32, I32(3), I32(5), I32(-2)), (MulI32, I32(65536), I32(65536), I32(0)),
        (DivI32, I32(-7), I32(2), I32(-3)), (DivI32, I32(i32::MIN), I32(-1), I32(i32::MIN)), (RemI32, I32(-7), I32(2), I32(-1)),
        (AddU32, U32(u32::MAX), U32(2), U32(1)), (SubU32, U32(0), U32(1), U32(u32::MAX)), (MulU32, U32(3), U32(5), U32(15)),
        (DivU32, U32(u32::MAX), U32(2), U32(0x7FFF_FFFF)), (RemU32, U32(17), U32(5), U32(2)),
        (AddI64, I64(1 << 40), I64(1), I64((1 << 40) + 1)), (SubI64, I64(0), I64(1), I64(-1)), (MulI64, I64(-3), I64(1 << 33), I64(-3 << 33)),
        (DivI64, I64(-9), I64(4), I64(-2)), (RemI64, I64(-9), I64(4), I64(-1)),
        (AddU64, U64(u64::MAX), U64(1), U64(0)), (SubU64, U64(5), U64(7), U64(u64::MAX - 1)), (MulU64, U64(1 << 32), U64(1 << 31), U64(1 << 63)),
        (DivU64, U64((7 << 32) | 5), U64(3), U64(((7 << 32) | 5) / 3)), (RemU64, U64(10), U64(4), U64(2)),
        (AddF32, F32(0.1), F32(0.2), F32(0.3)), (SubF32, F32(1.0), F32(0.25), F32(0.75)), (MulF32, F32(1.5), F32(-2.0), F32(-3.0)),
        (DivF32, F32(1.0), F32(0.0), F32(f32::INFINITY)), (RemF32, F32(-7.0), F32(3.0), F32(-1.0)),
        (AddF64, F64(0.5), F64(0.25), F64(0.75)), (SubF64, F64(0.0), F64(0.0), F64(0.0)), (MulF64, F64(3.0), F64(0.5), F64(1.5)),
        (DivF64, F64(1.0), F64(4.0), F64(0.25)), (RemF64, F64(7.5), F64(-2.0), F64(1.5)),
        (AndI32, I32(-1), I32(0x0F), I32(0x0F)), (OrI32, I32(0x10), I32(0x01), I32(0x11)), (XorI32, I32(-1), I32(0), I32(-1)),
        (ShlI32, I32(1), I32(33), I32(2)), (ShrI32, I32(-16), I32(2), I32(-4)), (ShrI32, I32(-16), I32(34), I32(-4)),
        (AndU32, U32(0xFF00), U32(0x0FF0), U32(0x0F00)), (OrU32, U32(1), U32(2), U32(3)), (XorU32, U32(3), U32(1), U32(2)),
        (ShlU32, U32(0x8000_0001), U32(1), U32(2)), (ShrU32, U32(0x8000_0000), U32(31), U32(1)), (ShrU32, U32(8), U32(35), U32(1)),
        (AndI64, I64(-2), I64(3), I64(2)), (OrI64, I64(1 << 40), I64(1), I64((1 << 40) | 1)), (XorI64, I64(5), I64(5), I64(0)),
        (ShlI64, I64(1), I64(65), I64(2)), (ShrI64, I64(i64::MIN), I64(63), I64(-1)),
        (AndU64, U64(6), U64(3), U64(2)), (OrU64, U64(4), U64(1), U64(5)), (XorU64, U64(u64::MAX), U64(1), U64(u64::MAX - 1)),
        (ShlU64, U64(1), U64(63), U64(1 << 63)), (ShrU64, U64(1 << 63), U64(63), U64(1)),
        (AndBool, Bool(true), Bool(false), Bool(false)), (OrBool, Bool(false), Bool(true), Bool(true)), (XorBool, Bool(true), Bool(true), Bool(false)),
        (EqBool, Bool(true), Bool(true), Bool(true)), (NeBool, Bool(true), Bool(false), Bool(true)),
        (EqI32, I32(-1), I32(-1), Bool(true)), (NeI32, I32(1), I32(1), Bool(false)), (EqU32, U32(2), U32(3), Bool(false)),
        (NeU32, U32(2), U32(3), Bool(true)), (EqI64, I64(-5), I64(-5), Bool(true)), (NeI64, I64(1), I64(2), Bool(true)),
        (EqU64, U64(9), U64(9), Bool(true)), (NeU64, U64(9), U64(9), Bool(false)),
        (EqF32, F32(nan), F32(nan), Bool(false)), (EqF32, F32(0.0), F32(-0.0), Bool(true)), (NeF32, F32(nan), F32(1.0), Bool(true)),
        (EqF64, F64(1.0), F64(1.0), Bool(true)), (NeF64, F64(1.0), F64(2.0), Bool(true)),
        (LtI32, I32(-1), I32(0), Bool(true)), (LeI32, I32(3), I32(3), Bool(true)), (GtI32, I32(-3), I32(2), Bool(false)),
        (GeI32, I32(4), I32(3), Bool(true)), (MinI32, I32(-4), I32(3), I32(-4)), (MaxI32, I32(-4), I32(3), I32(3)),
        (LtU32, U32(u32::MAX), U32(0), Bool(false)), (LeU32, U32(0), U32(0), Bool(true)), (GtU32, U32(u32::MAX), U32(1), Bool(true)),
        (GeU32, U32(1), U32(2), Bool(false)), (MinU32, U32(u32::MAX), U32(1), U32(1)), (MaxU32, U32(u32::MAX), U32(1), U32(u32::MAX)),
        (LtI64, I64(-1), I64(1), Bool(true)), (LeI64, I64(2), I64(1), Bool(false)), (GtI64, I64(2), I64(1), Bool(true)),
        (GeI64, I64(-2), I64(-2), Bool(true)), (MinI64, I64(-1), I64(1), I64(-1)), (MaxI64, I64(-1), I64(1), I64(1)),
        (LtU64, U64(1), U64(u64::MAX), Bool(true)), (LeU64, U64(3), U64(2), Bool(false)), (GtU64, U64(3), U64(2), Bool(true)),
        (GeU64, U64(2), U64(3), Bool(false)), (MinU64, U64(5), U64(4), U64(4)), (MaxU64, U64(5), U64(4), U64(5)),
        (LtF32, F32(nan), F32(1.0), Bool(false)), (LeF32, F32(1.0), F32(1.0), Bool(true)), (GtF32, F32(2.0), F32(nan), Bool(false)),
        (GeF32, F32(-0.0), F32(0.0), Bool(true)), (MinF32, F32(nan), F32(2.0), F32(2.0)), (MaxF32, F32(3.0), F32(nan), F32(3.0)),
        (MinF32, F32(-1.0), F32(2.0), F32(-1.0)),
        (LtF64, F64(1.0), F64(2.0), Bool(true)), (LeF64, F64(f64::NAN), F64(2.0), Bool(false)), (GtF64, F64(1.0), F64(0.5), Bool(true)),
        (GeF64, F64(0.5), F64(1.0), Bool(false)), (MinF64, F64(f64::NAN), F64(-2.0), F64(-2.0)), (MaxF64, F64(1.0), F64(2.0), F64(2.0)),
        (Atan2F32, F32(1.0), F32(-1.0), F32(3.0 * c32::FRAC_PI_4)), (PowF32, F32(2.0), F32(10.0), F32(1024.0)),
        (StepF32, F32(0.5), F32(0.5), F32(1.0)), (StepF32, F32(0.5), F32(0.25), F32(0.0)),
        (Atan2F64, F64(0.0), F64(-1.0), F64(c64::PI)), (PowF64, F64(9.0), F64(0.5), F64(3.0)), (StepF64, F64(1.0), F64(2.0), F64(1.0)),
    ]
}

#[rustfmt::skip]
fn ternary_cases() -> Vec<(TernaryOp, [Value; 3], Value)> {
    use TernaryOp::*;
    vec![
        (LerpF32, [F32(2.0), F32(6.0), F32(0.25)], F32(3.0)), (SmoothstepF32, [F32(0.0), F32(4.0), F32(1.0)], F32(0.15625)),
        (MadF32, [F32(2.0), F32(3.0), F32(-1.0)], F32(5.0)), (LerpF64, [F64(-1.0), F64(1.0), F64(0.5)], F64(0.0)),
        (SmoothstepF64, [F64(0.0), F64(1.0), F64(2.0)], F64(1.0)), (MadF64, [F64(0.5), F64(4.0), F64(1.0)], F64(3.0)),
        (ClampI32, [I32(-9), I32(-2), I32(5)], I32(-2)), (ClampU32, [U32(9), U32(2), U32(5)], U32(5)),
        (ClampI64, [I64(3), I64(-2), I64(5)], I64(3)), (ClampU64, [U64(0), U64(1), U64(5)], U64(1)),
        (ClampF32, [F32(f32::NAN), F32(0.0), F32(1.0)], F32(0.0)), (ClampF64, [F64(7.5), F64(0.0), F64(1.0)], F64(1.0)),
        (MadI32, [I32(65536), I32(65536), I32(7)], I32(7)), (MadU32, [U32(3), U32(4), U32(5)], U32(17)),
        (MadI64, [I64(-3), I64(4), I64(5)], I64(-7)), (MadU64, [U64(1 << 32), U64(1 << 32), U64(9)], U64(9)),
        // (1 + 2^-30)^2 - 1 = 2^-29 + 2^-60 exactly: fused; the unfused product rounds 2^-60 away.
        (FmaF64, [F64(1.0 + 2f64.powi(-30)), F64(1.0 + 2f64.powi(-30)), F64(-1.0)], F64(2f64.powi(-29) + 2f64.powi(-60))),
    ]
}

#[test]
fn every_unary_op() {
    let cases = unary_cases();
    for &(op, input, expected) in &cases {
        let got = run_op(
            vec![op.operand_type()],
            op.result_type(),
            |b| b.unary(op, b.param(0)),
            &[input],
        );
        assert!(
            same(got, expected),
            "{op} {input}: got {got}, expected {expected}"
        );
    }
    let covered: HashSet<_> = cases.iter().map(|c| c.0).collect();
    let missing: Vec<_> = UnaryOp::ALL
        .iter()
        .filter(|op| !covered.contains(op))
        .collect();
    assert!(missing.is_empty(), "untested unary ops: {missing:?}");
}

#[test]
fn every_binary_op() {
    let cases = binary_cases();
    for &(op, a, b_value, expected) in &cases {
        let ty = op.operand_type();
        let got = run_op(
            vec![ty, ty],
            op.result_type(),
            |b| b.binary(op, b.param(0), b.param(1)),
            &[a, b_value],
        );
        assert!(
            same(got, expected),
            "{op} {a}, {b_value}: got {got}, expected {expected}"
        );
    }
    let covered: HashSet<_> = cases.iter().map(|c| c.0).collect();
    let missing: Vec<_> = BinaryOp::ALL
        .iter()
        .filter(|op| !covered.contains(op))
        .collect();
    assert!(missing.is_empty(), "untested binary ops: {missing:?}");
}

#[test]
fn every_ternary_op() {
    let cases = ternary_cases();
    for &(op, args, expected) in &cases {
        let ty = op.operand_type();
        let got = run_op(
            vec![ty; 3],
            op.result_type(),
            |b| b.ternary(op, b.param(0), b.param(1), b.param(2)),
            &args,
        );
        assert!(
            same(got, expected),
            "{op} {args:?}: got {got}, expected {expected}"
        );
    }
    let covered: HashSet<_> = cases.iter().map(|c| c.0).collect();
    let missing: Vec<_> = TernaryOp::ALL
        .iter()
        .filter(|op| !covered.contains(op))
        .collect();
    assert!(missing.is_empty(), "untested ternary ops: {missing:?}");
}

#[test]
fn integer_division_by_zero_faults_for_every_integer_type() {
    use BinaryOp::*;
    for (op, zero) in [
        (DivI32, I32(0)),
        (RemI32, I32(0)),
        (DivU32, U32(0)),
        (RemU32, U32(0)),
        (DivI64, I64(0)),
        (RemI64, I64(0)),
        (DivU64, U64(0)),
        (RemU64, U64(0)),
    ] {
        let ty = op.operand_type();
        let f = build("div", Signature::new([ty, ty], [ty]), |b| {
            let r = b.binary(op, b.param(0), b.param(1));
            b.ret(&[r]);
        });
        let err = run_fn(f, &[zero, zero]).unwrap_err();
        assert_eq!(err.kind, rpsl_vm::RuntimeErrorKind::DivisionByZero, "{op}");
    }
}

#[rustfmt::skip]
#[test]
fn conversions() {
    let cases = [
        (F32(-1.9), Type::I32, I32(-1)), (F32(f32::NAN), Type::I32, I32(0)), (F32(3e9), Type::I32, I32(i32::MAX)),
        (F32(-3e9), Type::I32, I32(i32::MIN)), (F32(-2.0), Type::U32, U32(0)), (F32(5e9), Type::U32, U32(u32::MAX)),
        (F64(1e300), Type::I64, I64(i64::MAX)), (F64(f64::NAN), Type::U64, U64(0)),
        (I32(-1), Type::U32, U32(u32::MAX)), (I32(-1), Type::I64, I64(-1)), (I32(-1), Type::U64, U64(u64::MAX)),
        (U32(u32::MAX), Type::I64, I64(4_294_967_295)), (I64((1 << 32) + 5), Type::U32, U32(5)),
        (U32(16_777_217), Type::F32, F32(16_777_216.0)), (I32(-3), Type::F64, F64(-3.0)),
        (F64(0.1), Type::F32, F32(0.1)), (F32(0.5), Type::F64, F64(0.5)),
        (Bool(true), Type::F32, F32(1.0)), (Bool(true), Type::I32, I32(1)), (F32(-0.0), Type::Bool, Bool(false)),
        (F32(f32::NAN), Type::Bool, Bool(true)), (I64(1 << 40), Type::Bool, Bool(true)), (U32(0), Type::Bool, Bool(false)),
    ];
    for (input, to, expected) in cases {
        let got = run_op(vec![input.ty()], to, |b| b.convert(to, b.param(0)), &[input]);
        assert!(same(got, expected), "convert {input} to {to}: got {got}, expected {expected}");
    }
}

#[test]
fn bitcasts() {
    let cases = [
        (F32(1.0), Type::U32, U32(0x3f80_0000)),
        (U32(0x4040_0000), Type::F32, F32(3.0)),
        (F32(-1.0), Type::I32, I32(-1_082_130_432)),
        (I32(-1), Type::U32, U32(u32::MAX)),
        (F64(1.0), Type::U64, U64(0x3ff0_0000_0000_0000)),
    ];
    for (input, to, expected) in cases {
        let got = run_op(
            vec![input.ty()],
            to,
            |b| b.bitcast(to, b.param(0)),
            &[input],
        );
        assert!(
            same(got, expected),
            "bitcast {input} to {to}: got {got}, expected {expected}"
        );
    }
}
