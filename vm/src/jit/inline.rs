//! Inlining small leaf callees: a `call` of a function that makes no calls itself is translated
//! as the callee's body in the caller's native function, instead of a native call.
//!
//! Everything the interpreter does at a call still happens, in the same order and with the same
//! faults and locations: the call's step charge and depth check, the callee's frame entered at
//! the same VM address (memory limit, growth, zeroing: [`Translator::enter_callee`]), and the
//! callee's body translated with its own registers, facts, step charges, frame base and frame
//! top, so every check in it is the one its native code makes. What goes away is the native
//! call's cost: the argument and result slots, storing and reloading the step count and the
//! memory pointer, the callee's prologue and epilogue, and the registers the caller keeps
//! across the call. A `ret` of the inlined body jumps to the rest of the caller with its values.
//!
//! Only the optimised tier inlines ([`super::JitOptions::optimize`]): the quick tier favours
//! compile time.

use super::codegen::{cl_type, Translator};
use super::facts::{register_facts, RegFacts};
use super::frame_init::frame_live_out;
use super::known::KnownFrame;
use crate::entities::{FuncId, Reg, RegList};
use crate::function::Function;
use crate::inst::{Inst, Operand};
use crate::types::Type;
use cranelift_codegen::ir::{self, types, InstBuilder};
use cranelift_frontend::Variable;
use std::collections::HashMap;

/// Largest callee (bytecode instructions) inlined.
pub(crate) const INLINE_MAX_INSTS: usize = 256;
/// Most bytecode instructions inlined into one function, all calls together.
pub(crate) const INLINE_BUDGET: usize = 2048;

/// Whether `func` makes no calls (only such callees are inlined, so inlining never nests).
pub(crate) fn is_leaf(func: &Function) -> bool {
    !func
        .insts
        .iter()
        .any(|inst| matches!(inst, Inst::Call { .. }))
}

/// The per-body state of a [`Translator`]: the function whose instructions are being
/// translated, its registers and blocks, and where its frame lies. Swapped in for an inlined
/// callee's body and back.
struct BodyState<'a> {
    func: &'a Function,
    vars: Vec<Variable>,
    blocks: Vec<ir::Block>,
    facts: Vec<RegFacts>,
    frame_offsets: HashMap<Reg, u64>,
    observed: Vec<bool>,
    step_charges: &'a [u64],
    mem_base: ir::Value,
    mem_top: ir::Value,
    frame_base: ir::Value,
    depth: ir::Value,
    inline_return: Option<ir::Block>,
    known: KnownFrame,
    param_frames: HashMap<Reg, CallerFrameAddr>,
    live_out: Vec<Vec<bool>>,
    block_index: usize,
}

/// What an inlined body knows of a parameter that holds an address in its caller's frame: the
/// caller's frame base and the offset in it, so that an access through the parameter that
/// stays inside the caller's frame needs no check (the callee's frame top, which the native
/// callee checks against, lies above the caller's).
#[derive(Clone, Copy, Debug)]
pub(crate) struct CallerFrameAddr {
    /// The caller's frame base (`i64`).
    pub base: ir::Value,
    /// The address's offset from it.
    pub at: u64,
    /// The caller's frame size.
    pub frame_size: u64,
}

impl<'a> Translator<'a, '_> {
    /// Whether the call of `callee` is translated inline.
    pub(crate) fn inlines(&self, callee: FuncId) -> bool {
        let Some(func) = self.module.functions.get(callee.index()) else {
            return false;
        };
        self.module.inline_calls
            && func.insts.len() <= INLINE_MAX_INSTS
            && self.inlined_insts + func.insts.len() <= INLINE_BUDGET
            && is_leaf(func)
    }

    /// Swaps the body state of `self` with `state`.
    fn swap_body(&mut self, state: &mut BodyState<'a>) {
        std::mem::swap(&mut self.func, &mut state.func);
        std::mem::swap(&mut self.vars, &mut state.vars);
        std::mem::swap(&mut self.blocks, &mut state.blocks);
        std::mem::swap(&mut self.facts, &mut state.facts);
        std::mem::swap(&mut self.frame_offsets, &mut state.frame_offsets);
        std::mem::swap(&mut self.observed, &mut state.observed);
        std::mem::swap(&mut self.step_charges, &mut state.step_charges);
        std::mem::swap(&mut self.mem_base, &mut state.mem_base);
        std::mem::swap(&mut self.mem_top, &mut state.mem_top);
        std::mem::swap(&mut self.frame_base, &mut state.frame_base);
        std::mem::swap(&mut self.depth, &mut state.depth);
        std::mem::swap(&mut self.inline_return, &mut state.inline_return);
        std::mem::swap(&mut self.known, &mut state.known);
        std::mem::swap(&mut self.param_frames, &mut state.param_frames);
        std::mem::swap(&mut self.live_out, &mut state.live_out);
        std::mem::swap(&mut self.block_index, &mut state.block_index);
    }

    /// Translates the call of `callee` (whose frame [`Self::enter_callee`] entered at
    /// `new_base`, an `i64`, with depth `next_depth`) as its body, then sets the result
    /// registers.
    pub(crate) fn call_inline(
        &mut self,
        callee: FuncId,
        args: RegList,
        results: RegList,
        next_depth: ir::Value,
        new_base: ir::Value,
    ) {
        let module = self.module;
        let func = &module.functions[callee.index()];
        self.inlined_insts += func.insts.len();
        let arg_values: Vec<ir::Value> = self
            .func
            .list(args)
            .to_vec()
            .into_iter()
            .map(|reg| self.get(reg))
            .collect();
        let arg_regs = self.func.list(args).to_vec();
        let result_regs = self.func.list(results).to_vec();
        let param_frames = self.param_frames_of(func, &arg_regs);
        let vars: Vec<Variable> = func
            .reg_types
            .iter()
            .map(|&ty| self.b.declare_var(cl_type(ty)))
            .collect();
        // Parameters hold the argument values, as the native entry loads them from the slots.
        for (&var, &value) in vars.iter().zip(&arg_values) {
            self.b.def_var(var, value);
        }
        let cont = self.b.create_block();
        for &ty in &func.signature.returns {
            self.b.append_block_param(cont, cl_type(ty));
        }
        let blocks: Vec<ir::Block> = func.blocks.iter().map(|_| self.b.create_block()).collect();
        let mem_top = self.b.ins().iadd_imm_s(new_base, func.frame_size as i64);
        let frame_base = self.b.ins().ireduce(types::I32, new_base);
        self.b.ins().jump(blocks[0], &[]);
        let facts = register_facts(func);
        let live_out = frame_live_out(func, &facts, module.own_frame_readers);
        let mut state = BodyState {
            func,
            vars,
            blocks,
            facts,
            frame_offsets: HashMap::new(),
            observed: super::nan::observed_registers(func),
            step_charges: module.step_charges[callee.index()],
            mem_base: new_base,
            mem_top,
            frame_base,
            depth: next_depth,
            inline_return: Some(cont),
            known: KnownFrame::default(),
            param_frames,
            live_out,
            block_index: 0,
        };
        self.swap_body(&mut state);
        self.translate_blocks();
        self.swap_body(&mut state);
        self.b.switch_to_block(cont);
        let values = self.b.block_params(cont).to_vec();
        for (reg, value) in result_regs.into_iter().zip(values) {
            self.set(reg, value);
        }
    }

    /// The parameters of `func` (called with `args` of the body being translated) that hold an
    /// exactly known address in this body's frame and that `func` never writes.
    fn param_frames_of(&self, func: &Function, args: &[Reg]) -> HashMap<Reg, CallerFrameAddr> {
        let mut written = vec![false; func.reg_types.len()];
        for inst in &func.insts {
            inst.for_each_operand(|operand| match operand {
                Operand::Def(reg) => written[reg.index()] = true,
                Operand::DefList(list) => {
                    for reg in func.list(list) {
                        written[reg.index()] = true;
                    }
                }
                _ => {}
            });
        }
        let mut frames = HashMap::new();
        for (index, &arg) in args.iter().enumerate() {
            let param = Reg::from_u32(index as u32);
            let exact = self
                .frame_offsets
                .get(&arg)
                .copied()
                .or(self.facts[arg.index()].frame_exact);
            if let (Some(at), Some(Type::Addr), false) = (
                exact,
                func.reg_types.get(index).copied(),
                written.get(index).copied().unwrap_or(true),
            ) {
                let frame = CallerFrameAddr {
                    base: self.mem_base,
                    at,
                    frame_size: self.func.frame_size as u64,
                };
                frames.insert(param, frame);
            }
        }
        frames
    }

    /// `ret` of an inlined body: on to the caller's continuation with the values.
    pub(crate) fn inline_ret(&mut self, values: RegList) {
        let Some(cont) = self.inline_return else {
            return;
        };
        let args: Vec<ir::BlockArg> = self
            .func
            .list(values)
            .to_vec()
            .into_iter()
            .map(|reg| ir::BlockArg::from(self.get(reg)))
            .collect();
        self.b.ins().jump(cont, &args);
    }
}
