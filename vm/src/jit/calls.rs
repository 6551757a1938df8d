//! Bytecode calls: the call's step charge and depth check, the callee's frame entered (memory
//! limit, growth and zeroing, inline when memory already reaches the frame's end), then either a
//! native call of the callee's compiled function or its body translated in place
//! ([`super::inline`]).

use super::codegen::{cl_type, Translator, CONTEXT, INLINE_FRAME_ZERO_MAX};
use super::context::fault_kind;
use super::helpers::Helper;
use crate::entities::{FuncId, RegList};
use cranelift_codegen::ir::{
    self, condcodes::IntCC, types, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind,
};

impl Translator<'_, '_> {
    /// Enters a callee frame of `frame_size` bytes at `new_base` through
    /// [`super::context::jit_enter_frame`] (memory limit, growth, zeroing); returns 1 from
    /// this function when it faults.
    fn enter_frame_by_helper(&mut self, new_base: ir::Value, frame_size: u32) {
        let size = self.i64c(frame_size as i64);
        let (ctx, loc) = (self.ctx, self.i64c(self.loc));
        let mem = self
            .call_helper(Helper::EnterFrame, &[ctx, new_base, size, loc])
            .expect("memory");
        let failed = self.b.ins().icmp_imm_u(IntCC::Equal, mem, 0);
        self.propagate_if(failed);
        // Memory may have moved (an inlined callee goes on using the pointer).
        self.b.def_var(self.mem_ptr, mem);
    }

    pub(crate) fn call(&mut self, callee: FuncId, args: RegList, results: RegList) {
        let (next_depth, new_base) = self.enter_callee(callee);
        if self.inlines(callee) {
            return self.call_inline(callee, args, results, next_depth, new_base);
        }
        // Promoted slots given to a native callee ([`super::promote`]) are in memory for it.
        let given: Vec<usize> = match self.module.callee_extents.get(callee.index()) {
            Some(Some(params)) => self
                .func
                .list(args)
                .iter()
                .zip(params)
                .filter_map(|(&arg, param)| self.promoted_slot(arg, param.whole_size?))
                .collect(),
            _ => Vec::new(),
        };
        for &slot in &given {
            self.store_slot(slot);
        }
        self.call_native(callee, args, results, next_depth, new_base);
        for &slot in &given {
            self.load_slot(slot);
        }
    }

    /// A call's steps and depth check, then its callee's frame entered: memory grown (or the
    /// memory limit's fault) and the bytes the callee may read before writing them zeroed.
    /// Returns the callee's depth and frame base (`i64`).
    fn enter_callee(&mut self, callee: FuncId) -> (ir::Value, ir::Value) {
        self.charge_steps();
        let next_depth = self.b.ins().iadd_imm_s(self.depth, 1);
        let rounded = self.b.ins().iadd_imm_s(self.mem_top, 15);
        let new_base = self.b.ins().band_imm_u(rounded, !15i64);
        let frames = self.module.frames;
        let frame = frames.get(callee.index());
        let frame_size = frame.map_or(0, |frame| frame.size);
        let ctx = self.ctx;
        if frame_size <= INLINE_FRAME_ZERO_MAX {
            let (inline, grow, entered) = (
                self.b.create_block(),
                self.b.create_block(),
                self.b.create_block(),
            );
            // When the entry found that every call fits ([`Self::calls_fit`]), neither check
            // below can fail: straight to the inline entry.
            let fits_slot = self
                .calls_fit
                .filter(|&(_, largest)| frame_size <= largest && self.inline_return.is_none());
            if let Some((slot, _)) = fits_slot {
                let checks = self.b.create_block();
                self.b.set_cold_block(checks);
                let fits = self.b.ins().stack_load(self.ptr_ty, types::I8, slot, 0);
                self.b.ins().brif(fits, inline, &[], checks, &[]);
                self.b.switch_to_block(checks);
            }
            self.check_depth(next_depth);
            // Memory already reaches the frame's end (so it is within the memory limit, which
            // memory never passes): zero the frame inline; else the helper grows memory.
            let top = self.b.ins().iadd_imm_s(new_base, frame_size as i64);
            let mem_len =
                self.b
                    .ins()
                    .load(types::I64, MemFlagsData::trusted(), ctx, CONTEXT.mem_len);
            let grows = self.b.ins().icmp(IntCC::UnsignedGreaterThan, top, mem_len);
            self.b.set_cold_block(grow);
            let refresh = self.b.create_block();
            self.b.ins().brif(grows, grow, &[], refresh, &[]);
            self.b.switch_to_block(refresh);
            self.refresh_calls_fit(fits_slot, new_base);
            self.b.ins().jump(inline, &[]);
            self.b.switch_to_block(grow);
            self.enter_frame_by_helper(new_base, frame_size);
            self.refresh_calls_fit(fits_slot, new_base);
            self.b.ins().jump(entered, &[]);
            self.b.switch_to_block(inline);
            let mem = self.b.use_var(self.mem_ptr);
            let frame_host = self.b.ins().iadd(mem, new_base);
            // Only the bytes the callee may read before writing them.
            let needed = frame.map(|frame| &frame.zero_on_entry);
            let mut start = 0;
            while start < frame_size {
                let needs = |byte: u32| needed.is_none_or(|n| n.get(byte as usize) != Some(&false));
                if !needs(start) {
                    start += 1;
                    continue;
                }
                let mut end = start + 1;
                while end < frame_size && needs(end) {
                    end += 1;
                }
                self.zero_bytes(frame_host, start, end - start);
                start = end;
            }
            self.b.ins().jump(entered, &[]);
            self.b.switch_to_block(entered);
        } else {
            self.check_depth(next_depth);
            self.enter_frame_by_helper(new_base, frame_size);
        }
        (next_depth, new_base)
    }

    /// The call depth check: `next_depth` must stay below the limit.
    fn check_depth(&mut self, next_depth: ir::Value) {
        let too_deep = self.b.ins().icmp(
            IntCC::UnsignedGreaterThanOrEqual,
            next_depth,
            self.max_depth,
        );
        self.guard_plain(too_deep, fault_kind::CALL_DEPTH);
    }

    /// After a call's depth check passed: stores in [`Self::calls_fit`]'s slot whether memory
    /// now reaches the end of the largest small callee frame at `new_base`.
    fn refresh_calls_fit(&mut self, slot: Option<(ir::StackSlot, u32)>, new_base: ir::Value) {
        let Some((slot, largest)) = slot else {
            return;
        };
        let top = self.b.ins().iadd_imm_s(new_base, largest as i64);
        let mem_len = self.b.ins().load(
            types::I64,
            MemFlagsData::trusted(),
            self.ctx,
            CONTEXT.mem_len,
        );
        let fits = self
            .b
            .ins()
            .icmp(IntCC::UnsignedLessThanOrEqual, top, mem_len);
        self.b.ins().stack_store(self.ptr_ty, fits, slot, 0);
    }

    /// The native call of `callee` whose frame [`Self::enter_callee`] entered.
    fn call_native(
        &mut self,
        callee: FuncId,
        args: RegList,
        results: RegList,
        next_depth: ir::Value,
        new_base: ir::Value,
    ) {
        let ctx = self.ctx;
        let arg_regs = self.func.list(args).to_vec();
        let result_regs = self.func.list(results).to_vec();
        let slots = arg_regs.len().max(result_regs.len()).max(1);
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (8 * slots) as u32,
            3,
        ));
        for (index, &reg) in arg_regs.iter().enumerate() {
            let value = self.get(reg);
            self.b
                .ins()
                .stack_store(self.ptr_ty, value, slot, (8 * index) as i32);
        }
        self.store_steps();
        let slot_addr = self.b.ins().stack_addr(self.ptr_ty, slot, 0);
        let func_ref = self.callee_refs[&callee];
        let call = self
            .b
            .ins()
            .call(func_ref, &[ctx, new_base, next_depth, slot_addr, slot_addr]);
        let status = self.b.inst_results(call)[0];
        self.propagate_if(status);
        let mem = self
            .b
            .ins()
            .load(self.ptr_ty, MemFlagsData::trusted(), ctx, CONTEXT.mem_ptr);
        self.b.def_var(self.mem_ptr, mem);
        let steps = self
            .b
            .ins()
            .load(types::I64, MemFlagsData::trusted(), ctx, CONTEXT.steps_left);
        self.b.def_var(self.steps, steps);
        for (index, &reg) in result_regs.iter().enumerate() {
            let ty = cl_type(self.ty(reg));
            let value = self
                .b
                .ins()
                .stack_load(self.ptr_ty, ty, slot, (8 * index) as i32);
            self.set(reg, value);
        }
    }
}
