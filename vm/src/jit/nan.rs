//! NaN canonicalisation where it can be observed, instead of after every float operation.
//!
//! The interpreter canonicalises every NaN that arithmetic produces
//! ([`crate::eval::canonical_nan`]) and copies every other value bit for bit (loads, constants,
//! bitcasts, moves). The payload of a NaN can only be seen through operations that expose bits:
//! `store`, `bitcast`, `ret` and call arguments (the bit-exact copies `move` and `select` pass
//! bits on to registers that may be exposed later). Every arithmetic op (inline or through an evaluator)
//! gives a NaN for a NaN operand whatever its payload, and comparisons and conversions to
//! integers do not look at the payload either.
//!
//! So a register needs canonical NaNs only when its bits can be seen: a bit-exposing
//! instruction reads it, or a copy moves it into such a register ([`observed_registers`]). The
//! JIT canonicalises exactly the values that native float instructions produce for such
//! registers ([`Translator::settle_nan`]), and leaves the other registers' intermediate NaNs as
//! the hardware makes them. Values that the interpreter copies bit for bit are never touched,
//! so a loaded NaN with a payload stays exact. Since every register that a copy reads into an
//! observed register is observed too, each value an observed register can hold (whichever
//! path it arrives by) was canonicalised where it was computed.

use super::codegen::Translator;
use crate::entities::Reg;
use crate::function::Function;
use crate::inst::Inst;
use cranelift_codegen::ir::{self, condcodes::FloatCC, types, InstBuilder, Opcode, ValueDef};

/// For each register of `func`: whether its bits can be seen, that is, a `store`, `bitcast`,
/// `ret` or call reads it, or a `move`/`select` (or a float-to-float `convert`) copies it into
/// a register whose bits can be seen (to a fixed point).
pub(crate) fn observed_registers(func: &Function) -> Vec<bool> {
    let mut observed = vec![false; func.reg_types.len()];
    let mark = |observed: &mut Vec<bool>, reg: Reg| match observed.get_mut(reg.index()) {
        Some(flag) if !*flag => {
            *flag = true;
            true
        }
        _ => false,
    };
    // (copy source, copy destination) pairs of `move` and `select`.
    let mut copies = Vec::new();
    for inst in &func.insts {
        match *inst {
            Inst::Store { src, .. } | Inst::Bitcast { src, .. } => {
                mark(&mut observed, src);
            }
            Inst::Move { dst, src } => copies.push((src, dst)),
            // A float-to-float conversion to the same type passes its operand through unchanged.
            Inst::Convert { to, from, dst, src } if to.is_float() && from.is_float() => {
                copies.push((src, dst))
            }
            Inst::Select { dst, a, b, .. } => copies.extend([(a, dst), (b, dst)]),
            Inst::Return { values: list } | Inst::Call { args: list, .. } => {
                for &reg in func.list(list) {
                    mark(&mut observed, reg);
                }
            }
            _ => {}
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        for &(src, dst) in &copies {
            if observed.get(dst.index()).copied().unwrap_or(false) {
                changed |= mark(&mut observed, src);
            }
        }
    }
    observed
}

/// Whether `opcode` is a native float operation whose NaN results are not canonical.
fn makes_raw_nan(opcode: Opcode) -> bool {
    matches!(
        opcode,
        Opcode::Fadd
            | Opcode::Fsub
            | Opcode::Fmul
            | Opcode::Fdiv
            | Opcode::Sqrt
            | Opcode::Fneg
            | Opcode::Fabs
            | Opcode::Fmin
            | Opcode::Fmax
            | Opcode::Fma
            | Opcode::Ceil
            | Opcode::Floor
            | Opcode::Trunc
            | Opcode::Nearest
            | Opcode::Fpromote
            | Opcode::Fdemote
    )
}

impl Translator<'_, '_> {
    /// The value to give register `reg`: `value`, canonicalised when `reg` is observed and
    /// `value` comes straight from a native float operation.
    pub(crate) fn settle_nan(&mut self, reg: Reg, value: ir::Value) -> ir::Value {
        if !self.is_observed(reg) {
            return value;
        }
        let dfg = &self.b.func.dfg;
        let raw = match dfg.value_def(value) {
            ValueDef::Result(inst, _) => makes_raw_nan(dfg.insts[inst].opcode()),
            _ => false,
        };
        if raw {
            self.canonical_nan(value)
        } else {
            value
        }
    }

    /// `value` with a NaN replaced by the canonical NaN of its type.
    pub(crate) fn canonical_nan(&mut self, value: ir::Value) -> ir::Value {
        let is_nan = self.b.ins().fcmp(FloatCC::Unordered, value, value);
        let nan = if self.b.func.dfg.value_type(value) == types::F32 {
            self.b
                .ins()
                .f32const(f32::from_bits(crate::eval::CANONICAL_NAN_F32))
        } else {
            self.b
                .ins()
                .f64const(f64::from_bits(crate::eval::CANONICAL_NAN_F64))
        };
        self.b.ins().select(is_nan, nan, value)
    }
}
