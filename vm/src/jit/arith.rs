//! Arithmetic instructions: emitted inline where Cranelift's instruction has exactly the
//! semantics of [`crate::eval`] (integer ops, IEEE basic float ops, comparisons, conversions),
//! otherwise a call to the very evaluator the interpreter uses (transcendentals, float
//! min/max/rem, rounding), so results match bit for bit. NaN results of arithmetic are
//! canonical in both engines wherever their bits can be seen ([`crate::eval::canonical_nan`]):
//! the evaluators canonicalise their results, and [`super::nan`] the native float ops' results
//! that are observed.

use super::codegen::{cl_type, Translator};
use super::context::fault_kind;
use super::helpers::Helper;
use crate::entities::{Reg, RegList};
use crate::inst::VectorShape;
use crate::ops::{BinaryOp, TernaryOp, UnaryOp, VectorOp};
use crate::types::Type;
use cranelift_codegen::ir::{
    self,
    condcodes::{FloatCC, IntCC},
    types, InstBuilder, StackSlotData, StackSlotKind,
};

impl Translator<'_, '_> {
    /// A [`UnaryOp`] on `src`.
    pub(crate) fn unary(&mut self, op: UnaryOp, src: Reg) -> ir::Value {
        use UnaryOp::*;
        let x = self.get(src);
        match op {
            NegI32 | NegU32 | NegI64 | NegU64 => self.b.ins().ineg(x),
            NegF32 | NegF64 => self.b.ins().fneg(x),
            NotI32 | NotU32 | NotI64 | NotU64 => self.b.ins().bnot(x),
            NotBool => {
                let flag = self.b.ins().icmp_imm_u(IntCC::Equal, x, 0);
                self.bool_of(flag)
            }
            AbsI32 | AbsI64 => self.b.ins().iabs(x),
            AbsF32 | AbsF64 => self.b.ins().fabs(x),
            SqrtF32 | SqrtF64 => self.b.ins().sqrt(x),
            CountbitsU32 => self.b.ins().popcnt(x),
            _ => {
                let helpers = [Helper::Unary, Helper::UnaryF32, Helper::UnaryF64];
                self.evaluate(helpers, op as u8, op.operand_type(), op.result_type(), &[x])
            }
        }
    }

    /// An op through the evaluator of [`crate::eval`]: `helpers` are the helper on register
    /// bits, then the ones on `f32` and `f64` values, used when operands and result are all
    /// `f32` (or all `f64`) so no bit conversions are needed.
    fn evaluate(
        &mut self,
        helpers: [Helper; 3],
        op: u8,
        operand: Type,
        result: Type,
        args: &[ir::Value],
    ) -> ir::Value {
        let code = self.b.ins().iconst(types::I32, op as i64);
        let typed = match (operand, result) {
            (Type::F32, Type::F32) => Some(helpers[1]),
            (Type::F64, Type::F64) => Some(helpers[2]),
            _ => None,
        };
        let mut operands = vec![code];
        if let Some(helper) = typed {
            operands.extend_from_slice(args);
            return self.call_helper(helper, &operands).expect("result");
        }
        for &arg in args {
            let bits = self.reg_bits(arg, operand);
            operands.push(bits);
        }
        let bits = self.call_helper(helpers[0], &operands).expect("result");
        self.reg_from_bits(bits, result)
    }

    /// The `!= 0` truth of a `bool` register value.
    fn truth(&mut self, x: ir::Value) -> ir::Value {
        self.b.ins().icmp_imm_u(IntCC::NotEqual, x, 0)
    }

    /// A [`BinaryOp`] on `a`, `b`; integer division faults on a zero divisor.
    pub(crate) fn binary(&mut self, op: BinaryOp, a: Reg, b: Reg) -> ir::Value {
        use BinaryOp::*;
        let (x, y) = (self.get(a), self.get(b));
        match op {
            AddI32 | AddU32 | AddI64 | AddU64 => self.b.ins().iadd(x, y),
            SubI32 | SubU32 | SubI64 | SubU64 => self.b.ins().isub(x, y),
            MulI32 | MulU32 | MulI64 | MulU64 => self.b.ins().imul(x, y),
            DivI32 | DivI64 => self.signed_div(x, y, false),
            RemI32 | RemI64 => self.signed_div(x, y, true),
            DivU32 | DivU64 | RemU32 | RemU64 => {
                let divide = matches!(op, DivU32 | DivU64);
                match self.facts[b.index()].constant {
                    // By a power of two: a shift or a mask.
                    Some(c) if c.is_power_of_two() => {
                        if divide {
                            self.b.ins().ushr_imm_u(x, c.trailing_zeros() as i64)
                        } else {
                            self.b.ins().band_imm_u(x, (c - 1) as i64)
                        }
                    }
                    constant => {
                        if constant.is_none_or(|c| c == 0) {
                            self.check_divisor(y);
                        }
                        if divide {
                            self.b.ins().udiv(x, y)
                        } else {
                            self.b.ins().urem(x, y)
                        }
                    }
                }
            }
            AddF32 | AddF64 => self.b.ins().fadd(x, y),
            SubF32 | SubF64 => self.b.ins().fsub(x, y),
            MulF32 | MulF64 => self.b.ins().fmul(x, y),
            DivF32 | DivF64 => self.b.ins().fdiv(x, y),
            AndI32 | AndU32 | AndI64 | AndU64 => self.b.ins().band(x, y),
            OrI32 | OrU32 | OrI64 | OrU64 => self.b.ins().bor(x, y),
            XorI32 | XorU32 | XorI64 | XorU64 => self.b.ins().bxor(x, y),
            ShlI32 | ShlU32 | ShlI64 | ShlU64 => self.b.ins().ishl(x, y),
            ShrI32 | ShrI64 => self.b.ins().sshr(x, y),
            ShrU32 | ShrU64 => self.b.ins().ushr(x, y),
            AndBool | OrBool | XorBool | EqBool | NeBool => {
                let (p, q) = (self.truth(x), self.truth(y));
                let flag = match op {
                    AndBool => self.b.ins().band(p, q),
                    OrBool => self.b.ins().bor(p, q),
                    XorBool | NeBool => self.b.ins().bxor(p, q),
                    _ => self.b.ins().icmp(IntCC::Equal, p, q),
                };
                self.bool_of(flag)
            }
            EqI32 | EqU32 | EqI64 | EqU64 => self.int_cmp(IntCC::Equal, x, y),
            NeI32 | NeU32 | NeI64 | NeU64 => self.int_cmp(IntCC::NotEqual, x, y),
            LtI32 | LtI64 => self.int_cmp(IntCC::SignedLessThan, x, y),
            LeI32 | LeI64 => self.int_cmp(IntCC::SignedLessThanOrEqual, x, y),
            GtI32 | GtI64 => self.int_cmp(IntCC::SignedGreaterThan, x, y),
            GeI32 | GeI64 => self.int_cmp(IntCC::SignedGreaterThanOrEqual, x, y),
            LtU32 | LtU64 => self.int_cmp(IntCC::UnsignedLessThan, x, y),
            LeU32 | LeU64 => self.int_cmp(IntCC::UnsignedLessThanOrEqual, x, y),
            GtU32 | GtU64 => self.int_cmp(IntCC::UnsignedGreaterThan, x, y),
            GeU32 | GeU64 => self.int_cmp(IntCC::UnsignedGreaterThanOrEqual, x, y),
            MinI32 | MinI64 => self.b.ins().smin(x, y),
            MaxI32 | MaxI64 => self.b.ins().smax(x, y),
            MinU32 | MinU64 => self.b.ins().umin(x, y),
            MaxU32 | MaxU64 => self.b.ins().umax(x, y),
            EqF32 | EqF64 => self.float_cmp(FloatCC::Equal, x, y),
            NeF32 | NeF64 => self.float_cmp(FloatCC::NotEqual, x, y),
            LtF32 | LtF64 => self.float_cmp(FloatCC::LessThan, x, y),
            LeF32 | LeF64 => self.float_cmp(FloatCC::LessThanOrEqual, x, y),
            GtF32 | GtF64 => self.float_cmp(FloatCC::GreaterThan, x, y),
            GeF32 | GeF64 => self.float_cmp(FloatCC::GreaterThanOrEqual, x, y),
            _ => {
                let helpers = [Helper::Binary, Helper::BinaryF32, Helper::BinaryF64];
                self.evaluate(
                    helpers,
                    op as u8,
                    op.operand_type(),
                    op.result_type(),
                    &[x, y],
                )
            }
        }
    }

    fn int_cmp(&mut self, cc: IntCC, x: ir::Value, y: ir::Value) -> ir::Value {
        let flag = self.b.ins().icmp(cc, x, y);
        self.bool_of(flag)
    }

    fn float_cmp(&mut self, cc: FloatCC, x: ir::Value, y: ir::Value) -> ir::Value {
        let flag = self.b.ins().fcmp(cc, x, y);
        self.bool_of(flag)
    }

    /// Faults with `DivisionByZero` when `divisor` is zero.
    fn check_divisor(&mut self, divisor: ir::Value) {
        let is_zero = self.b.ins().icmp_imm_u(IntCC::Equal, divisor, 0);
        self.guard_plain(is_zero, fault_kind::DIVISION_BY_ZERO);
    }

    /// Wrapping signed division or remainder: `MIN / -1 == MIN`, `MIN % -1 == 0`, as Rust's
    /// `wrapping_div`/`wrapping_rem` (Cranelift's `sdiv` would trap there).
    fn signed_div(&mut self, x: ir::Value, y: ir::Value, remainder: bool) -> ir::Value {
        self.check_divisor(y);
        let ty = self.b.func.dfg.value_type(y);
        let is_minus_one = self.b.ins().icmp_imm_s(IntCC::Equal, y, -1);
        let one = self.b.ins().iconst(ty, 1);
        let safe = self.b.ins().select(is_minus_one, one, y);
        if remainder {
            let rem = self.b.ins().srem(x, safe);
            let zero = self.b.ins().iconst(ty, 0);
            self.b.ins().select(is_minus_one, zero, rem)
        } else {
            let quot = self.b.ins().sdiv(x, safe);
            let negated = self.b.ins().ineg(x);
            self.b.ins().select(is_minus_one, negated, quot)
        }
    }

    /// A [`TernaryOp`] on `a`, `b`, `c`.
    pub(crate) fn ternary(&mut self, op: TernaryOp, a: Reg, b: Reg, c: Reg) -> ir::Value {
        use TernaryOp::*;
        let (x, y, z) = (self.get(a), self.get(b), self.get(c));
        match op {
            MadI32 | MadU32 | MadI64 | MadU64 => {
                let product = self.b.ins().imul(x, y);
                self.b.ins().iadd(product, z)
            }
            ClampI32 | ClampI64 => {
                let low = self.b.ins().smax(x, y);
                self.b.ins().smin(low, z)
            }
            ClampU32 | ClampU64 => {
                let low = self.b.ins().umax(x, y);
                self.b.ins().umin(low, z)
            }
            _ => {
                let helpers = [Helper::Ternary, Helper::TernaryF32, Helper::TernaryF64];
                let args = [x, y, z];
                self.evaluate(
                    helpers,
                    op as u8,
                    op.operand_type(),
                    op.result_type(),
                    &args,
                )
            }
        }
    }

    /// `convert.TO.FROM src`, as [`crate::eval::convert`].
    pub(crate) fn convert(&mut self, to: Type, from: Type, src: Reg) -> ir::Value {
        let x = self.get(src);
        if from == Type::Bool {
            // 0 or 1 in the target type.
            let flag = self.truth(x);
            return match to {
                Type::F32 | Type::F64 => {
                    let int = self.b.ins().uextend(types::I32, flag);
                    self.b.ins().fcvt_from_uint(cl_type(to), int)
                }
                _ => self.b.ins().uextend(cl_type(to), flag),
            };
        }
        if to == Type::Bool {
            let flag = if from.is_float() {
                let zero = if from == Type::F32 {
                    self.b.ins().f32const(0.0)
                } else {
                    self.b.ins().f64const(0.0)
                };
                self.b.ins().fcmp(FloatCC::NotEqual, x, zero)
            } else {
                self.truth(x)
            };
            return self.bool_of(flag);
        }
        let (from_cl, to_cl) = (cl_type(from), cl_type(to));
        let signed = matches!(from, Type::I32 | Type::I64);
        match (from.is_float(), to.is_float()) {
            (false, false) => {
                if from_cl == to_cl {
                    x
                } else if to_cl == types::I32 {
                    self.b.ins().ireduce(types::I32, x)
                } else if signed {
                    self.b.ins().sextend(types::I64, x)
                } else {
                    self.b.ins().uextend(types::I64, x)
                }
            }
            (false, true) => {
                if signed {
                    self.b.ins().fcvt_from_sint(to_cl, x)
                } else {
                    self.b.ins().fcvt_from_uint(to_cl, x)
                }
            }
            (true, false) => {
                if matches!(to, Type::I32 | Type::I64) {
                    self.b.ins().fcvt_to_sint_sat(to_cl, x)
                } else {
                    self.b.ins().fcvt_to_uint_sat(to_cl, x)
                }
            }
            (true, true) => {
                if from_cl == to_cl {
                    x
                } else if to_cl == types::F32 {
                    self.b.ins().fdemote(types::F32, x)
                } else {
                    self.b.ins().fpromote(types::F64, x)
                }
            }
        }
    }

    /// A vector op, inline: the same sequence of IEEE operations as
    /// [`crate::intrinsics`] (`dot` sums left to right, `normalize` multiplies by
    /// `1 / sqrt(dot)`), whose last operation is always one that Cranelift's NaN
    /// canonicalisation of [`super::nan`] knows. Shapes the verifier would reject go through the
    /// evaluator.
    pub(crate) fn vector(&mut self, shape: VectorShape, dsts: RegList, srcs: RegList) {
        let src_regs = self.func.list(srcs);
        let dst_regs = self.func.list(dsts);
        let fits = shape.op.arity(shape.width) == Some((src_regs.len(), dst_regs.len()))
            && matches!(shape.ty, Type::F32 | Type::F64)
            && src_regs
                .iter()
                .chain(dst_regs)
                .all(|&reg| self.ty(reg) == shape.ty);
        if !fits {
            return self.vector_by_helper(shape, dsts, srcs);
        }
        let (src_regs, dst_regs) = (src_regs.to_vec(), dst_regs.to_vec());
        let lanes: Vec<ir::Value> = src_regs.iter().map(|&reg| self.get(reg)).collect();
        let n = shape.width as usize;
        let (a, b) = lanes.split_at(n.min(lanes.len()));
        match shape.op {
            VectorOp::Dot => {
                let dot = self.dot(a, b);
                self.set(dst_regs[0], dot);
            }
            VectorOp::Length => {
                let dot = self.dot(a, a);
                let length = self.b.ins().sqrt(dot);
                self.set(dst_regs[0], length);
            }
            VectorOp::Normalize => {
                let dot = self.dot(a, a);
                let root = self.b.ins().sqrt(dot);
                let one = self.float_const(shape.ty, 1.0);
                let inv = self.b.ins().fdiv(one, root);
                for (&dst, &x) in dst_regs.iter().zip(a) {
                    let scaled = self.b.ins().fmul(x, inv);
                    self.set(dst, scaled);
                }
            }
            VectorOp::Distance => {
                let diff: Vec<ir::Value> = a
                    .iter()
                    .zip(b)
                    .map(|(&x, &y)| self.b.ins().fsub(y, x))
                    .collect();
                let dot = self.dot(&diff, &diff);
                let length = self.b.ins().sqrt(dot);
                self.set(dst_regs[0], length);
            }
            VectorOp::Cross => {
                let term = |t: &mut Self, i: usize, j: usize| {
                    let left = t.b.ins().fmul(a[i], b[j]);
                    let right = t.b.ins().fmul(a[j], b[i]);
                    t.b.ins().fsub(left, right)
                };
                let lanes = [term(self, 1, 2), term(self, 2, 0), term(self, 0, 1)];
                for (&dst, value) in dst_regs.iter().zip(lanes) {
                    self.set(dst, value);
                }
            }
        }
    }

    /// `a[0] * b[0] + a[1] * b[1] + ...`, summed left to right.
    fn dot(&mut self, a: &[ir::Value], b: &[ir::Value]) -> ir::Value {
        let mut sum = self.b.ins().fmul(a[0], b[0]);
        for (&x, &y) in a.iter().zip(b).skip(1) {
            let product = self.b.ins().fmul(x, y);
            sum = self.b.ins().fadd(sum, product);
        }
        sum
    }

    /// A float constant of register type `ty` (`f32` or `f64`).
    fn float_const(&mut self, ty: Type, value: f64) -> ir::Value {
        if ty == Type::F32 {
            self.b.ins().f32const(value as f32)
        } else {
            self.b.ins().f64const(value)
        }
    }

    /// A vector op through [`crate::eval::vector`]: lanes go through a stack slot.
    fn vector_by_helper(&mut self, shape: VectorShape, dsts: RegList, srcs: RegList) {
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            8 * 12,
            3,
        ));
        let src_regs = self.func.list(srcs).to_vec();
        let dst_regs = self.func.list(dsts).to_vec();
        for (index, &reg) in src_regs.iter().take(8).enumerate() {
            let value = self.get(reg);
            let bits = self.reg_bits(value, self.ty(reg));
            self.b
                .ins()
                .stack_store(self.ptr_ty, bits, slot, (8 * index) as i32);
        }
        let zero = self.i64c(0);
        for index in 0..4 {
            self.b
                .ins()
                .stack_store(self.ptr_ty, zero, slot, 64 + 8 * index);
        }
        let op = self.b.ins().iconst(types::I32, shape.op as u8 as i64);
        let ty = self.b.ins().iconst(types::I32, shape.ty as u8 as i64);
        let width = self.b.ins().iconst(types::I32, shape.width as i64);
        let n_srcs = self
            .b
            .ins()
            .iconst(types::I32, src_regs.len().min(8) as i64);
        let src_addr = self.b.ins().stack_addr(self.ptr_ty, slot, 0);
        let dst_addr = self.b.ins().stack_addr(self.ptr_ty, slot, 64);
        self.call_helper(Helper::Vector, &[op, ty, width, n_srcs, src_addr, dst_addr]);
        for (index, &reg) in dst_regs.iter().take(4).enumerate() {
            let bits =
                self.b
                    .ins()
                    .stack_load(self.ptr_ty, types::I64, slot, 64 + (8 * index) as i32);
            let value = self.reg_from_bits(bits, self.ty(reg));
            self.set(reg, value);
        }
    }
}
