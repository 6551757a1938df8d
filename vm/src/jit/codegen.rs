//! Translation of one bytecode function to Cranelift IR: registers become `Variable`s (only
//! parameters get a value on entry: the verifier proves every other register is written before
//! it is read), blocks become blocks, and every fault check branches to one of two shared cold
//! blocks per function that record (kind, loc, payload) and return the fault status.
//!
//! Compiled function ABI (the same for every function, so the runner needs one pointer type):
//! `extern "C" fn(ctx, mem_base: i64, depth: i64, args: *const u64, results: *mut u64) -> i32`,
//! returning 0 on success and 1 after a fault was recorded in the context. Arguments and results
//! are 8-byte slots holding the register's value in their low bytes.

use super::context::{fault_kind, RunContext};
use super::facts::RegFacts;
use super::helpers::Helper;
use crate::entities::FuncId;
use crate::function::Function;
use crate::inst::Inst;
use crate::types::Type;
use cranelift_codegen::ir::{
    self, condcodes::IntCC, types, AbiParam, FuncRef, InstBuilder, MemFlagsData, SigRef,
};
use cranelift_frontend::{FunctionBuilder, Variable};
use std::collections::HashMap;

/// The Cranelift type holding a register of type `ty`.
pub(crate) fn cl_type(ty: Type) -> ir::Type {
    match ty {
        Type::Bool | Type::I32 | Type::U32 | Type::Addr => types::I32,
        Type::I64 | Type::U64 => types::I64,
        Type::F32 => types::F32,
        Type::F64 => types::F64,
    }
}

/// Memory flags of VM memory accesses (bounds-checked, possibly unaligned).
pub(crate) fn vm_mem() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

/// Byte offsets of the context fields generated code reads.
pub(crate) struct ContextOffsets {
    pub mem_ptr: i32,
    pub steps_left: i32,
    pub max_call_depth: i32,
    pub mem_len: i32,
}

pub(crate) const CONTEXT: ContextOffsets = ContextOffsets {
    mem_ptr: std::mem::offset_of!(RunContext<'static>, mem_ptr) as i32,
    steps_left: std::mem::offset_of!(RunContext<'static>, steps_left) as i32,
    max_call_depth: std::mem::offset_of!(RunContext<'static>, max_call_depth) as i32,
    mem_len: std::mem::offset_of!(RunContext<'static>, mem_len) as i32,
};

/// Largest callee frame (bytes) zeroed inline on entry when memory already reaches its end;
/// larger ones, and frames that grow memory, go through [`super::context::jit_enter_frame`].
pub(crate) const INLINE_FRAME_ZERO_MAX: u32 = 512;

/// The state of translating one function.
pub(crate) struct Translator<'a, 'b> {
    pub b: FunctionBuilder<'b>,
    pub func: &'a Function,
    pub ptr_ty: ir::Type,
    pub call_conv: cranelift_codegen::isa::CallConv,
    pub(crate) vars: Vec<Variable>,
    pub(crate) blocks: Vec<ir::Block>,
    pub ctx: ir::Value,
    pub(crate) mem_top: ir::Value,
    pub(crate) depth: ir::Value,
    results_ptr: ir::Value,
    pub(crate) max_depth: ir::Value,
    pub(crate) mem_ptr: Variable,
    pub(crate) steps: Variable,
    sigs: HashMap<Helper, SigRef>,
    propagate: Option<ir::Block>,
    fault_block: Option<ir::Block>,
    plain_fault_block: Option<ir::Block>,
    pub(crate) frame_offsets: HashMap<crate::entities::Reg, u64>,
    /// What holds of each register at every read ([`super::facts`]).
    pub(crate) facts: Vec<RegFacts>,
    pub(crate) mem_base: ir::Value,
    /// The frame base as a VM address (`i32`), computed once on entry.
    pub(crate) frame_base: ir::Value,
    /// Per register: read by a bit-exposing instruction ([`super::nan::observed_registers`]).
    pub(crate) observed: Vec<bool>,
    /// Loc of the instruction being translated (`-1` when none).
    pub loc: i64,
    /// The step charge of each instruction ([`crate::VerifiedModule::step_charges`]).
    pub(crate) step_charges: &'a [u64],
    /// The step charge of the instruction being translated.
    charge: u64,
    pub(crate) callee_refs: &'a HashMap<FuncId, FuncRef>,
    /// What the translator knows of the whole module.
    pub(crate) module: &'a ModuleInfo<'a>,
    /// Where a `ret` of the body being translated goes when it is inlined into a caller
    /// ([`super::inline`]); `None` for the function's own body.
    pub(crate) inline_return: Option<ir::Block>,
    /// Bytecode instructions inlined into this function so far.
    pub(crate) inlined_insts: usize,
    /// Frame bytes of known content in the current block ([`super::known`]).
    pub(crate) known: super::known::KnownFrame,
    /// Parameters of an inlined body that hold a known address in the caller's frame
    /// ([`super::inline`]); empty for a function's own body.
    pub(crate) param_frames: HashMap<crate::entities::Reg, super::inline::CallerFrameAddr>,
    /// Per block of the body, per frame byte: live at the block's end
    /// ([`super::frame_init::frame_live_out`]).
    pub(crate) live_out: Vec<Vec<bool>>,
    /// The index of the block being translated (of the body being translated).
    pub(crate) block_index: usize,
    /// The frame slots of the function's own body kept in variables ([`super::promote`]).
    pub(crate) promoted: Vec<SlotVars>,
    /// When the function's own body calls functions of frames up to the given size (at most
    /// [`INLINE_FRAME_ZERO_MAX`]): a stack slot holding (as a byte) whether one more call level
    /// stays within the depth limit and memory reaches the end of the largest such frame
    /// above this one. Set on entry and again after a call's checks; neither condition can
    /// turn false while the function runs (its depth is fixed, memory only grows), so a call
    /// of such a frame needs no check while it holds.
    pub(crate) calls_fit: Option<(ir::StackSlot, u32)>,
}

/// What translating any function of a module may need to know of the others.
pub(crate) struct ModuleInfo<'a> {
    /// Every function of the module.
    pub functions: &'a [Function],
    /// Per function, the step charge of each instruction.
    pub step_charges: &'a [&'a [u64]],
    /// Per function, what entering its frame takes.
    pub frames: &'a [FrameEntry],
    /// Whether small leaf callees are translated into their callers ([`super::inline`]).
    pub inline_calls: bool,
    /// Per function, whether it reads only its own frame
    /// ([`super::frame_init::reads_only_its_frame`]).
    pub own_frame_readers: &'a [bool],
    /// Whether frame slots are kept in variables ([`super::promote`]).
    pub promote_slots: bool,
    /// Per function, [`super::promote::param_extents`].
    pub callee_extents: &'a [Option<Vec<super::promote::ParamReach>>],
}

/// A frame slot kept in variables ([`super::promote`]): one variable per word of
/// [`super::memops::chunks`]`(size, true)`, as (offset in the slot, type, variable).
pub(crate) struct SlotVars {
    pub slot: super::promote::PromotedSlot,
    pub words: Vec<(u32, ir::Type, Variable)>,
}

/// What entering a function's frame takes: its size, and the bytes an inline entry zeroes.
pub(crate) struct FrameEntry {
    pub size: u32,
    /// Per frame byte, whether it may be read before the function writes it
    /// ([`super::frame_init`]); empty when not computed (every byte is zeroed).
    pub zero_on_entry: Vec<bool>,
}

impl<'a, 'b> Translator<'a, 'b> {
    /// Starts translating function `index` of `module` into `b` (whose signature is already
    /// set).
    pub fn new(
        mut b: FunctionBuilder<'b>,
        index: usize,
        ptr_ty: ir::Type,
        call_conv: cranelift_codegen::isa::CallConv,
        callee_refs: &'a HashMap<FuncId, FuncRef>,
        module: &'a ModuleInfo<'a>,
    ) -> Translator<'a, 'b> {
        let func = &module.functions[index];
        let step_charges = module.step_charges[index];
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        b.seal_block(entry);
        let params = b.block_params(entry).to_vec();
        let (ctx, mem_base, depth, args_ptr, results_ptr) =
            (params[0], params[1], params[2], params[3], params[4]);
        let mem_top = b.ins().iadd_imm_s(mem_base, func.frame_size as i64);
        let frame_base = b.ins().ireduce(types::I32, mem_base);
        let mem_ptr = b.declare_var(ptr_ty);
        let raw_mem = b
            .ins()
            .load(ptr_ty, MemFlagsData::trusted(), ctx, CONTEXT.mem_ptr);
        b.def_var(mem_ptr, raw_mem);
        let steps = b.declare_var(types::I64);
        let raw_steps = b
            .ins()
            .load(types::I64, MemFlagsData::trusted(), ctx, CONTEXT.steps_left);
        b.def_var(steps, raw_steps);
        let max_depth = b.ins().load(
            types::I64,
            MemFlagsData::trusted(),
            ctx,
            CONTEXT.max_call_depth,
        );
        let n_params = func.signature.params.len();
        let mut vars = Vec::with_capacity(func.reg_types.len());
        // Only parameters are defined on entry: the verifier proves every other register is
        // written before it is read, so it needs no initial value.
        for (index, &ty) in func.reg_types.iter().enumerate() {
            let cl = cl_type(ty);
            let var = b.declare_var(cl);
            if index < n_params {
                let value = b
                    .ins()
                    .load(cl, MemFlagsData::trusted(), args_ptr, (8 * index) as i32);
                b.def_var(var, value);
            }
            vars.push(var);
        }
        let blocks: Vec<ir::Block> = func.blocks.iter().map(|_| b.create_block()).collect();
        let facts = super::facts::register_facts(func);
        let promoted = if module.promote_slots {
            super::promote::promoted_slots(func, &facts, module.callee_extents)
        } else {
            Vec::new()
        };
        // A promoted slot starts as the zeroes of frame entry.
        let promoted: Vec<SlotVars> = promoted
            .into_iter()
            .map(|slot| {
                let words = super::memops::chunks(slot.size, true)
                    .map(|(at, ty)| {
                        let var = b.declare_var(ty);
                        let zero = if ty.is_vector() {
                            let bytes = b.func.dfg.constants.insert(vec![0u8; 16].into());
                            b.ins().vconst(ty, bytes)
                        } else {
                            b.ins().iconst(ty, 0)
                        };
                        b.def_var(var, zero);
                        (at, ty, var)
                    })
                    .collect();
                SlotVars { slot, words }
            })
            .collect();
        let largest_small_callee = func
            .insts
            .iter()
            .filter_map(|inst| match *inst {
                Inst::Call { callee, .. } => module.frames.get(callee.index()).map(|f| f.size),
                _ => None,
            })
            .filter(|&size| size <= INLINE_FRAME_ZERO_MAX)
            .max();
        let calls_fit = largest_small_callee.map(|largest| {
            let next_depth = b.ins().iadd_imm_s(depth, 1);
            let depth_fits = b.ins().icmp(IntCC::UnsignedLessThan, next_depth, max_depth);
            let rounded = b.ins().iadd_imm_s(mem_top, 15);
            let base = b.ins().band_imm_u(rounded, !15i64);
            let top = b.ins().iadd_imm_s(base, largest as i64);
            let mem_len = b
                .ins()
                .load(types::I64, MemFlagsData::trusted(), ctx, CONTEXT.mem_len);
            let memory_fits = b.ins().icmp(IntCC::UnsignedLessThanOrEqual, top, mem_len);
            let fits = b.ins().band(depth_fits, memory_fits);
            let slot = b.create_sized_stack_slot(ir::StackSlotData::new(
                ir::StackSlotKind::ExplicitSlot,
                1,
                0,
            ));
            b.ins().stack_store(ptr_ty, fits, slot, 0);
            (slot, largest)
        });
        b.ins().jump(blocks[0], &[]);
        let live_out = super::frame_init::frame_live_out(func, &facts, module.own_frame_readers);
        Translator {
            b,
            func,
            ptr_ty,
            call_conv,
            vars,
            blocks,
            ctx,
            mem_top,
            depth,
            results_ptr,
            max_depth,
            mem_ptr,
            steps,
            sigs: HashMap::new(),
            propagate: None,
            fault_block: None,
            plain_fault_block: None,
            frame_offsets: HashMap::new(),
            facts,
            mem_base,
            frame_base,
            observed: super::nan::observed_registers(func),
            loc: -1,
            step_charges,
            charge: 0,
            callee_refs,
            module,
            inline_return: None,
            inlined_insts: 0,
            known: Default::default(),
            param_frames: HashMap::new(),
            live_out,
            block_index: 0,
            promoted,
            calls_fit,
        }
    }

    /// Translates every block and finishes the function.
    pub fn translate(mut self, target: cranelift_codegen::isa::TargetFrontendConfig) {
        self.translate_blocks();
        self.b.seal_all_blocks();
        self.b.finalize(target);
    }

    /// Translates every block of the body being translated ([`Self::func`]).
    pub(crate) fn translate_blocks(&mut self) {
        for (index, &block) in self.blocks.clone().iter().enumerate() {
            self.b.switch_to_block(block);
            self.block_index = index;
            self.frame_offsets.clear();
            self.known_block_start();
            let range = self
                .func
                .block_range(crate::entities::Block::from_u32(index as u32))
                .unwrap_or(0..0);
            for pc in range {
                self.loc = self.func.locs.get(pc).map_or(-1, |loc| loc.as_u32() as i64);
                self.charge = self.step_charges.get(pc).copied().unwrap_or(0);
                let inst = self.func.insts[pc];
                self.known_before(&inst);
                self.inst(inst);
                self.track_frame_offsets(&inst);
            }
        }
    }

    /// The current value of a register.
    pub fn get(&mut self, reg: crate::entities::Reg) -> ir::Value {
        self.b.use_var(self.vars[reg.index()])
    }

    /// Sets a register.
    pub fn set(&mut self, reg: crate::entities::Reg, value: ir::Value) {
        let value = self.settle_nan(reg, value);
        self.b.def_var(self.vars[reg.index()], value);
    }

    /// Whether a bit-exposing instruction reads float register `reg` (see [`super::nan`]).
    pub(crate) fn is_observed(&self, reg: crate::entities::Reg) -> bool {
        self.observed.get(reg.index()).copied().unwrap_or(true) && self.ty(reg).is_float()
    }

    /// The bytecode type of a register.
    pub fn ty(&self, reg: crate::entities::Reg) -> Type {
        self.func.reg_types[reg.index()]
    }

    /// Calls a helper at its address.
    pub fn call_helper(&mut self, helper: Helper, args: &[ir::Value]) -> Option<ir::Value> {
        let sig = match self.sigs.get(&helper) {
            Some(&sig) => sig,
            None => {
                let mut signature = ir::Signature::new(self.call_conv);
                for param in helper.params(self.ptr_ty) {
                    signature.params.push(AbiParam::new(param));
                }
                if let Some(ret) = helper.ret(self.ptr_ty) {
                    signature.returns.push(AbiParam::new(ret));
                }
                let sig = self.b.import_signature(signature);
                self.sigs.insert(helper, sig);
                sig
            }
        };
        let address = match helper.context_slot() {
            Some(slot) => self
                .b
                .ins()
                .load(self.ptr_ty, MemFlagsData::trusted(), self.ctx, slot),
            None => self.b.ins().iconst(self.ptr_ty, helper.address() as i64),
        };
        let call = self.b.ins().call_indirect(sig, address, args);
        self.b.inst_results(call).first().copied()
    }

    /// Continues only when `bad` is zero; otherwise records the fault `kind` with payload
    /// `(payload(), b)` at the current loc and returns 1. `payload` builds its value on the cold
    /// path (it may use values of the current block).
    pub fn guard(
        &mut self,
        bad: ir::Value,
        kind: i32,
        payload: impl FnOnce(&mut Self) -> ir::Value,
        b: i64,
    ) {
        self.guard_to(bad, kind, Some((payload, b)));
    }

    /// [`Self::guard`] for a fault without payload (both payload values zero).
    pub fn guard_plain(&mut self, bad: ir::Value, kind: i32) {
        self.guard_to(bad, kind, None::<(fn(&mut Self) -> ir::Value, i64)>);
    }

    /// Branches to a cold stub of this check, which passes the site ([`fault_kind::site`]) and
    /// the payload to one of two shared cold blocks per function that record the fault: one
    /// takes site and payload, the other only the site. The constants live in the stub, so the
    /// hot path is the test and the branch.
    fn guard_to(
        &mut self,
        bad: ir::Value,
        kind: i32,
        payload: Option<(impl FnOnce(&mut Self) -> ir::Value, i64)>,
    ) {
        let with_payload = payload.is_some();
        let slot = if with_payload {
            &mut self.fault_block
        } else {
            &mut self.plain_fault_block
        };
        let (fault, fresh) = match *slot {
            Some(block) => (block, false),
            None => {
                let block = self.b.create_block();
                *slot = Some(block);
                self.b.set_cold_block(block);
                let params = if with_payload { 3 } else { 1 };
                for _ in 0..params {
                    self.b.append_block_param(block, types::I64);
                }
                (block, true)
            }
        };
        let stub = self.b.create_block();
        self.b.set_cold_block(stub);
        let cont = self.b.create_block();
        self.b.ins().brif(bad, stub, &[], cont, &[]);
        self.b.switch_to_block(stub);
        let site = self
            .b
            .ins()
            .iconst(types::I64, fault_kind::site(kind, self.loc));
        let mut args: Vec<ir::BlockArg> = vec![site.into()];
        if let Some((payload, b)) = payload {
            let a = payload(self);
            let b = self.i64c(b);
            args.extend([ir::BlockArg::from(a), ir::BlockArg::from(b)]);
        }
        self.b.ins().jump(fault, &args);
        if fresh {
            self.b.switch_to_block(fault);
            let params = self.b.block_params(fault).to_vec();
            let (a, b) = match params[..] {
                [_, a, b] => (a, b),
                _ => {
                    let zero = self.i64c(0);
                    (zero, zero)
                }
            };
            let ctx = self.ctx;
            self.call_helper(Helper::Fault, &[ctx, params[0], a, b]);
            let one = self.b.ins().iconst(types::I32, 1);
            self.b.ins().return_(&[one]);
        }
        self.b.switch_to_block(cont);
    }

    /// Continues only when `failed` is zero; otherwise returns 1 (the fault is recorded).
    pub(crate) fn propagate_if(&mut self, failed: ir::Value) {
        let (propagate, fresh) = match self.propagate {
            Some(block) => (block, false),
            None => {
                let block = self.b.create_block();
                self.b.set_cold_block(block);
                self.propagate = Some(block);
                (block, true)
            }
        };
        let cont = self.b.create_block();
        self.b.ins().brif(failed, propagate, &[], cont, &[]);
        if fresh {
            self.b.switch_to_block(propagate);
            let one = self.b.ins().iconst(types::I32, 1);
            self.b.ins().return_(&[one]);
        }
        self.b.switch_to_block(cont);
    }

    /// A constant `i64`.
    pub fn i64c(&mut self, value: i64) -> ir::Value {
        self.b.ins().iconst(types::I64, value)
    }

    /// The 64 register bits of a Cranelift value of register type `ty`.
    pub fn reg_bits(&mut self, value: ir::Value, ty: Type) -> ir::Value {
        match cl_type(ty) {
            types::I32 => self.b.ins().uextend(types::I64, value),
            types::F32 => {
                let int = self.b.ins().bitcast(types::I32, MemFlagsData::new(), value);
                self.b.ins().uextend(types::I64, int)
            }
            types::F64 => self.b.ins().bitcast(types::I64, MemFlagsData::new(), value),
            _ => value,
        }
    }

    /// A value of register type `ty` from 64 register bits.
    pub fn reg_from_bits(&mut self, bits: ir::Value, ty: Type) -> ir::Value {
        match cl_type(ty) {
            types::I32 => self.b.ins().ireduce(types::I32, bits),
            types::F32 => {
                let int = self.b.ins().ireduce(types::I32, bits);
                self.b.ins().bitcast(types::F32, MemFlagsData::new(), int)
            }
            types::F64 => self.b.ins().bitcast(types::F64, MemFlagsData::new(), bits),
            _ => bits,
        }
    }

    /// The `icmp`/`fcmp` result a `bool` register value was widened from, when it was (so a
    /// branch tests the flag directly), else the value itself.
    fn flag_of(&self, value: ir::Value) -> ir::Value {
        let dfg = &self.b.func.dfg;
        if let ir::ValueDef::Result(inst, _) = dfg.value_def(value) {
            if let ir::InstructionData::Unary {
                opcode: ir::Opcode::Uextend,
                arg,
            } = dfg.insts[inst]
            {
                if dfg.value_type(arg) == types::I8 {
                    return arg;
                }
            }
        }
        value
    }

    /// `bool` register value (`i32` 0/1) from an `icmp`/`fcmp` result.
    pub fn bool_of(&mut self, flag: ir::Value) -> ir::Value {
        self.b.ins().uextend(types::I32, flag)
    }

    fn inst(&mut self, inst: Inst) {
        match inst {
            Inst::Const { ty, dst, bits } => {
                let bits = bits.to_u64();
                let value = match cl_type(ty) {
                    types::I32 => self.b.ins().iconst(types::I32, bits as u32 as i64),
                    types::I64 => self.b.ins().iconst(types::I64, bits as i64),
                    types::F32 => self.b.ins().f32const(f32::from_bits(bits as u32)),
                    _ => self.b.ins().f64const(f64::from_bits(bits)),
                };
                self.set(dst, value);
            }
            Inst::Move { dst, src } => {
                let value = self.get(src);
                self.set(dst, value);
            }
            Inst::Unary { op, dst, src } => {
                let value = self.unary(op, src);
                self.set(dst, value);
            }
            Inst::Binary { op, dst, a, b } => {
                let value = self.binary(op, a, b);
                self.set(dst, value);
            }
            Inst::Ternary { op, dst, a, b, c } => {
                let value = self.ternary(op, a, b, c);
                self.set(dst, value);
            }
            Inst::Convert { to, from, dst, src } => {
                let value = self.convert(to, from, src);
                self.set(dst, value);
            }
            Inst::Bitcast { to, from, dst, src } => {
                let value = self.get(src);
                let value = if cl_type(to) == cl_type(from) {
                    value
                } else {
                    self.b
                        .ins()
                        .bitcast(cl_type(to), MemFlagsData::new(), value)
                };
                self.set(dst, value);
            }
            Inst::Select { dst, cond, a, b } => {
                let (cond, a, b) = (self.get(cond), self.get(a), self.get(b));
                let value = self.b.ins().select(cond, a, b);
                self.set(dst, value);
            }
            Inst::Vector { shape, dsts, srcs } => self.vector(shape, dsts, srcs),
            Inst::FrameAddr { dst, offset } => {
                let value = self
                    .b
                    .ins()
                    .iadd_imm_s(self.frame_base, offset as i32 as i64);
                self.set(dst, value);
            }
            Inst::AddrAdd { dst, base, offset } => {
                let base = self.get(base);
                let value = self.b.ins().iadd_imm_s(base, offset as i32 as i64);
                self.set(dst, value);
            }
            Inst::IndexAddr {
                dst,
                base,
                index,
                stride,
                len,
            } => {
                let idx = self.get(index);
                // No check when the index is known to be below the length.
                if self.facts[index.index()]
                    .below
                    .is_none_or(|below| below > len as u64)
                {
                    let bad =
                        self.b
                            .ins()
                            .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, idx, len as i64);
                    let signed = self.ty(index) == Type::I32;
                    let shown = move |t: &mut Self| {
                        if signed {
                            t.b.ins().sextend(types::I64, idx)
                        } else {
                            t.b.ins().uextend(types::I64, idx)
                        }
                    };
                    self.guard(bad, fault_kind::INDEX_OUT_OF_BOUNDS, shown, len as i64);
                }
                let scaled = self.b.ins().imul_imm_s(idx, stride as i32 as i64);
                let base = self.get(base);
                let value = self.b.ins().iadd(base, scaled);
                self.set(dst, value);
            }
            Inst::Load {
                ty,
                dst,
                addr,
                offset,
            } => self.load(ty, dst, addr, offset),
            Inst::Store {
                ty,
                addr,
                offset,
                src,
            } => self.store(ty, addr, offset, src),
            Inst::MemCopy {
                dst_addr,
                src_addr,
                size,
            } => self.mem_copy(dst_addr, src_addr, size),
            Inst::MemZero { addr, size } => self.mem_zero(addr, size),
            Inst::MemEq { dst, a, b, size } => self.mem_eq(dst, a, b, size),
            Inst::CreateResource { desc, view_out } => {
                let (desc, view) = (self.wide_addr(desc), self.wide_addr(view_out));
                let (ctx, mem_top, loc) = (self.ctx, self.mem_top, self.i64c(self.loc));
                let status =
                    self.call_helper(Helper::CreateResource, &[ctx, desc, view, mem_top, loc]);
                self.propagate_if(status.expect("status"));
            }
            Inst::DescribeResource { view, desc_out } => {
                let (view, desc) = (self.wide_addr(view), self.wide_addr(desc_out));
                let (ctx, mem_top, loc) = (self.ctx, self.mem_top, self.i64c(self.loc));
                let status =
                    self.call_helper(Helper::DescribeResource, &[ctx, view, desc, mem_top, loc]);
                self.propagate_if(status.expect("status"));
            }
            Inst::CallNode {
                dst,
                decl,
                args,
                size,
                flags,
            } => {
                let args = self.wide_addr(args);
                let decl = self.i64c(decl.as_u32() as i64);
                let size = self.i64c(size as i64);
                let flags = self.i64c(flags as i64);
                let (ctx, mem_top, loc) = (self.ctx, self.mem_top, self.i64c(self.loc));
                let node = self
                    .call_helper(
                        Helper::CallNode,
                        &[ctx, decl, args, size, flags, mem_top, loc],
                    )
                    .expect("node");
                let failed = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, node, 0);
                self.propagate_if(failed);
                let node = self.b.ins().ireduce(types::I32, node);
                self.set(dst, node);
            }
            Inst::Marker { kind, arg } => {
                let kind = self.i64c(kind as u8 as i64);
                let arg = self.i64c(arg as i64);
                let (ctx, loc) = (self.ctx, self.i64c(self.loc));
                let status = self.call_helper(Helper::Marker, &[ctx, kind, arg, loc]);
                self.propagate_if(status.expect("status"));
            }
            Inst::Call {
                callee,
                args,
                results,
            } => self.call(callee, args, results),
            Inst::Jump { target } => {
                let block = self.blocks[target.index()];
                self.b.ins().jump(block, &[]);
            }
            Inst::LoopJump { target } => {
                self.charge_steps();
                let block = self.blocks[target.index()];
                self.b.ins().jump(block, &[]);
            }
            Inst::Branch {
                cond,
                then_block,
                else_block,
            } => {
                let cond = self.get(cond);
                let cond = self.flag_of(cond);
                let (then_block, else_block) = (
                    self.blocks[then_block.index()],
                    self.blocks[else_block.index()],
                );
                self.b.ins().brif(cond, then_block, &[], else_block, &[]);
            }
            Inst::Return { values } if self.inline_return.is_some() => self.inline_ret(values),
            Inst::Return { values } => {
                for (index, &reg) in self.func.list(values).to_vec().iter().enumerate() {
                    let value = self.get(reg);
                    let results = self.results_ptr;
                    self.b
                        .ins()
                        .store(MemFlagsData::trusted(), value, results, (8 * index) as i32);
                }
                self.store_steps();
                let zero = self.b.ins().iconst(types::I32, 0);
                self.b.ins().return_(&[zero]);
            }
            Inst::Abort { code } => {
                let code = self.get(code);
                let one = self.b.ins().iconst(types::I8, 1);
                let shown = move |t: &mut Self| t.b.ins().sextend(types::I64, code);
                self.guard(one, fault_kind::ABORT, shown, 0);
                // Unreachable continuation: end it.
                let one = self.b.ins().iconst(types::I32, 1);
                self.b.ins().return_(&[one]);
            }
        }
    }

    /// Charges the step cost of the instruction being translated (as the interpreter does:
    /// a fault when fewer steps are left than it charges).
    pub(crate) fn charge_steps(&mut self) {
        let charge = self.charge.min(i64::MAX as u64) as i64;
        let steps = self.b.use_var(self.steps);
        let out = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedLessThan, steps, charge);
        self.guard_plain(out, fault_kind::STEP_BUDGET);
        let left = self.b.ins().iadd_imm_s(steps, charge.wrapping_neg());
        self.b.def_var(self.steps, left);
    }

    pub(crate) fn store_steps(&mut self) {
        let steps = self.b.use_var(self.steps);
        let ctx = self.ctx;
        self.b
            .ins()
            .store(MemFlagsData::trusted(), steps, ctx, CONTEXT.steps_left);
    }
}
