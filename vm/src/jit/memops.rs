//! Translation of VM memory instructions: checked loads and stores, and the block ops
//! (`mem_copy`, `mem_zero`, `mem_eq`). Small block ops (views, descriptors, small structs) are
//! emitted inline as a few wide loads and stores; larger ones call the helpers of
//! [`super::context`]. Either way faults are the interpreter's: the destination range is checked
//! before the source range, each as `MemoryOutOfBounds { addr, size }`.

use super::codegen::{cl_type, vm_mem, Translator};
use super::context::fault_kind;
use super::helpers::Helper;
use crate::entities::Reg;
use crate::inst::{Inst, Operand};
use crate::types::Type;
use cranelift_codegen::ir::{self, condcodes::IntCC, types, InstBuilder};

/// Largest block op (bytes) emitted inline rather than through a helper.
const INLINE_BLOCK_OP_MAX: u32 = 64;

/// The accesses (offset, type) that tile `size` bytes, widest first: 16-byte vectors when
/// `vectors` (copies and zeroing), then 8-, 4-, 2- and 1-byte words.
pub(crate) fn chunks(size: u32, vectors: bool) -> impl Iterator<Item = (u32, ir::Type)> {
    let mut at = 0;
    std::iter::from_fn(move || {
        let left = size - at;
        let (width, ty) = match left {
            0 => return None,
            16.. if vectors => (16, types::I8X16),
            8.. => (8, types::I64),
            4..=7 => (4, types::I32),
            2..=3 => (2, types::I16),
            _ => (1, types::I8),
        };
        let chunk = (at, ty);
        at += width;
        Some(chunk)
    })
}

impl Translator<'_, '_> {
    /// The host address of VM address `addr + offset` after checking `size` bytes against the
    /// frame top.
    pub(crate) fn checked_address(&mut self, addr: Reg, offset: u32, size: u32) -> ir::Value {
        // An address known to be `frame base + k` with the access inside the frame cannot fault:
        // skip the check.
        let facts = self.facts[addr.index()];
        let exact = self.frame_offsets.get(&addr).copied().or(facts.frame_exact);
        if let Some(known) = exact {
            let end = known + offset as u64 + size as u64;
            if end <= self.func.frame_size as u64 {
                let mem = self.b.use_var(self.mem_ptr);
                let base = self.b.ins().iadd(mem, self.mem_base);
                return self
                    .b
                    .ins()
                    .iadd_imm_s(base, (known + offset as u64) as i64);
            }
        }
        // Nor one through a parameter of an inlined body that stays in the caller's frame.
        if let Some(caller) = self.param_frames.get(&addr).copied() {
            let at = caller.at + offset as u64;
            if at + size as u64 <= caller.frame_size {
                let mem = self.b.use_var(self.mem_ptr);
                let base = self.b.ins().iadd(mem, caller.base);
                return self.b.ins().iadd_imm_s(base, at as i64);
            }
        }
        // Nor can one at most `frame base + m` with the access's end within the frame.
        let inside = facts
            .frame_max
            .is_some_and(|max| max + offset as u64 + size as u64 <= self.func.frame_size as u64);
        let addr = self.get(addr);
        let wide = self.b.ins().uextend(types::I64, addr);
        let at = self.b.ins().iadd_imm_s(wide, offset as i64);
        if !inside {
            let end = self.b.ins().iadd_imm_s(at, size as i64);
            let bad = self
                .b
                .ins()
                .icmp(IntCC::UnsignedGreaterThan, end, self.mem_top);
            self.guard(bad, fault_kind::MEMORY_OUT_OF_BOUNDS, |_| at, size as i64);
        }
        let mem = self.b.use_var(self.mem_ptr);
        self.b.ins().iadd(mem, at)
    }

    /// A VM address register widened to `i64`.
    pub(crate) fn wide_addr(&mut self, reg: Reg) -> ir::Value {
        let value = self.get(reg);
        self.b.ins().uextend(types::I64, value)
    }

    /// Tracks, within a block, registers holding `frame base + k` (from `frame_addr` and
    /// `addr_add`); every other definition forgets the register.
    pub(crate) fn track_frame_offsets(&mut self, inst: &Inst) {
        let known = match *inst {
            Inst::FrameAddr { dst, offset } => Some((dst, offset as u64)),
            Inst::AddrAdd { dst, base, offset } => self
                .frame_offsets
                .get(&base)
                .map(|&k| (dst, k + offset as u64)),
            _ => None,
        };
        let func = self.func;
        let offsets = &mut self.frame_offsets;
        inst.for_each_operand(|operand| match operand {
            Operand::Def(reg) => {
                offsets.remove(&reg);
            }
            Operand::DefList(list) => {
                for reg in func.list(list) {
                    offsets.remove(reg);
                }
            }
            _ => {}
        });
        if let Some((dst, k)) = known {
            if k <= u32::MAX as u64 {
                self.frame_offsets.insert(dst, k);
            }
        }
    }

    /// `load.TY dst, [addr + offset]`; `bool` loads read a word and test it.
    pub(crate) fn load(&mut self, ty: Type, dst: Reg, addr: Reg, offset: u32) {
        let size = ty.mem_size().unwrap_or(4);
        self.flush_for_read(addr, offset, size);
        let host = self.checked_address(addr, offset, size);
        let value = if ty == Type::Bool {
            let word = self.b.ins().load(types::I32, vm_mem(), host, 0);
            let flag = self.b.ins().icmp_imm_u(IntCC::NotEqual, word, 0);
            self.bool_of(flag)
        } else {
            self.b.ins().load(cl_type(ty), vm_mem(), host, 0)
        };
        self.set(dst, value);
    }

    /// `store.TY [addr + offset], src`.
    pub(crate) fn store(&mut self, ty: Type, addr: Reg, offset: u32, src: Reg) {
        let size = ty.mem_size().unwrap_or(4);
        let value = self.get(src);
        match self.exact_range(addr, offset, size) {
            Some(at) => {
                // A constant into known bytes updates them (and waits with them when pending).
                let bits = self.constant_bits(value);
                let absorbed = match bits {
                    Some(bits) => self.patch_known(at, &bits.to_le_bytes()[..size as usize]),
                    None => {
                        self.forget_range(at, size);
                        false
                    }
                };
                if absorbed {
                    return;
                }
            }
            None => self.forget_all(),
        }
        let host = self.checked_address(addr, offset, size);
        self.b.ins().store(vm_mem(), value, host, 0);
    }

    /// `mem_copy [dst], [src], size` (the ranges may overlap: everything is read before
    /// anything is written).
    pub(crate) fn mem_copy(&mut self, dst_addr: Reg, src_addr: Reg, size: u32) {
        if self.copy_promoted(dst_addr, src_addr, size) {
            return;
        }
        let dst_at = self.exact_range(dst_addr, 0, size);
        // Known source bytes are copied as constants, which wait until something reads them.
        let known_src = self
            .exact_range(src_addr, 0, size)
            .and_then(|at| self.known_bytes(at, size));
        if let (Some(dst_at), Some(bytes), true) = (dst_at, known_src, size <= INLINE_BLOCK_OP_MAX)
        {
            return self.set_pending(dst_at, bytes);
        }
        self.flush_for_read(src_addr, 0, size);
        match dst_at {
            Some(at) => self.forget_range(at, size),
            None => self.forget_all(),
        }
        if size > INLINE_BLOCK_OP_MAX {
            let (dst, src) = (self.wide_addr(dst_addr), self.wide_addr(src_addr));
            let size = self.i64c(size as i64);
            let (ctx, mem_top, loc) = (self.ctx, self.mem_top, self.i64c(self.loc));
            let status = self
                .call_helper(Helper::MemCopy, &[ctx, dst, src, size, mem_top, loc])
                .expect("status");
            return self.propagate_if(status);
        }
        let dst = self.checked_address(dst_addr, 0, size);
        let src = self.checked_address(src_addr, 0, size);
        let words: Vec<(u32, ir::Value)> = chunks(size, true)
            .map(|(at, ty)| (at, self.b.ins().load(ty, vm_mem(), src, at as i32)))
            .collect();
        for (at, word) in words {
            self.b.ins().store(vm_mem(), word, dst, at as i32);
        }
    }

    /// `mem_zero [addr], size`.
    pub(crate) fn mem_zero(&mut self, addr: Reg, size: u32) {
        if let Some(slot) = self.promoted_slot(addr, size) {
            let words = self.promoted[slot].words.clone();
            for (_, ty, var) in words {
                let zero = self.constant_of(ty, &vec![0; ty.bytes() as usize]);
                self.b.def_var(var, zero);
            }
            return;
        }
        let at = self.exact_range(addr, 0, size);
        if let (Some(at), true) = (at, size <= INLINE_BLOCK_OP_MAX) {
            // Zeroes that wait for the stores of constants usually following them.
            return self.set_pending(at, vec![0; size as usize]);
        }
        match at {
            Some(at) => self.forget_range(at, size),
            None => self.forget_all(),
        }
        if size > INLINE_BLOCK_OP_MAX {
            let addr = self.wide_addr(addr);
            let size = self.i64c(size as i64);
            let (ctx, mem_top, loc) = (self.ctx, self.mem_top, self.i64c(self.loc));
            let status = self
                .call_helper(Helper::MemZero, &[ctx, addr, size, mem_top, loc])
                .expect("status");
            return self.propagate_if(status);
        }
        let host = self.checked_address(addr, 0, size);
        self.zero_bytes(host, 0, size);
    }

    /// The index in [`Translator::promoted`] of the slot that `size` bytes at `addr` are,
    /// when they are one: in the function's own body an exact frame address, in an inlined
    /// body a parameter given the slot ([`super::promote::ParamReach::whole_size`]).
    pub(crate) fn promoted_slot(&self, addr: Reg, size: u32) -> Option<usize> {
        if self.promoted.is_empty() {
            return None;
        }
        let at = match self.inline_return {
            None => self.facts[addr.index()].frame_exact?,
            Some(_) => self.param_frames.get(&addr)?.at,
        };
        self.promoted
            .iter()
            .position(|vars| vars.slot.at == at && vars.slot.size == size)
    }

    /// The host address of promoted slot `index`'s bytes in the frame (own body only).
    fn slot_host_address(&mut self, index: usize) -> ir::Value {
        let at = self.promoted[index].slot.at;
        let mem = self.b.use_var(self.mem_ptr);
        let base = self.b.ins().iadd(mem, self.mem_base);
        self.b.ins().iadd_imm_s(base, at as i64)
    }

    /// Writes promoted slot `index`'s variables to its frame bytes (before a native call that
    /// is given the slot).
    pub(crate) fn store_slot(&mut self, index: usize) {
        let host = self.slot_host_address(index);
        let words = self.promoted[index].words.clone();
        for (at, _, var) in words {
            let value = self.b.use_var(var);
            self.b.ins().store(vm_mem(), value, host, at as i32);
        }
    }

    /// Reads promoted slot `index`'s variables back from its frame bytes (after a native call
    /// that was given the slot).
    pub(crate) fn load_slot(&mut self, index: usize) {
        let host = self.slot_host_address(index);
        let words = self.promoted[index].words.clone();
        for (at, ty, var) in words {
            let value = self.b.ins().load(ty, vm_mem(), host, at as i32);
            self.b.def_var(var, value);
        }
    }

    /// The words ([`chunks`]`(size, true)`) of `size` bytes at `addr`: a promoted slot's
    /// variables, constants of known bytes, or loads (after writing out what a read of them
    /// needs).
    fn block_words(&mut self, addr: Reg, size: u32) -> Vec<ir::Value> {
        if let Some(slot) = self.promoted_slot(addr, size) {
            let words = self.promoted[slot].words.clone();
            return words
                .into_iter()
                .map(|(_, _, var)| self.b.use_var(var))
                .collect();
        }
        let known = self
            .exact_range(addr, 0, size)
            .and_then(|at| self.known_bytes(at, size));
        match known {
            Some(bytes) => chunks(size, true)
                .map(|(at, ty)| {
                    let word = &bytes[at as usize..][..ty.bytes() as usize];
                    self.constant_of(ty, word)
                })
                .collect(),
            None => {
                self.flush_for_read(addr, 0, size);
                let host = self.checked_address(addr, 0, size);
                chunks(size, true)
                    .map(|(at, ty)| self.b.ins().load(ty, vm_mem(), host, at as i32))
                    .collect()
            }
        }
    }

    /// `mem_eq` with a promoted slot on one side or both: word by word (16-byte words
    /// lane-wise), all equal.
    fn mem_eq_promoted(&mut self, dst: Reg, a: Reg, b: Reg, size: u32) {
        let x = self.block_words(a, size);
        let y = self.block_words(b, size);
        let mut lanes: Option<ir::Value> = None;
        let mut scalars: Option<ir::Value> = None;
        for ((_, ty), (x, y)) in chunks(size, true).zip(x.into_iter().zip(y)) {
            let equal = self.b.ins().icmp(IntCC::Equal, x, y);
            let all = if ty.is_vector() {
                &mut lanes
            } else {
                &mut scalars
            };
            *all = Some(match *all {
                Some(so_far) => self.b.ins().band(so_far, equal),
                None => equal,
            });
        }
        let lanes = lanes.map(|mask| self.b.ins().vall_true(mask));
        let equal = match (lanes, scalars) {
            (Some(l), Some(s)) => self.b.ins().band(l, s),
            (Some(one), None) | (None, Some(one)) => one,
            (None, None) => self.b.ins().iconst(types::I8, 1),
        };
        let value = self.bool_of(equal);
        self.set(dst, value);
    }

    /// A `mem_copy` from or to a promoted slot ([`super::promote`]): between two slots a
    /// move of their variables; from memory (or known bytes) into a slot loads (or constants);
    /// from a slot to memory stores. Returns false when neither side is promoted.
    fn copy_promoted(&mut self, dst_addr: Reg, src_addr: Reg, size: u32) -> bool {
        let dst = self.promoted_slot(dst_addr, size);
        let src = self.promoted_slot(src_addr, size);
        if dst.is_none() && src.is_none() {
            return false;
        }
        let values = self.block_words(src_addr, size);
        match dst {
            Some(dst) => {
                let words = self.promoted[dst].words.clone();
                for ((_, _, var), value) in words.into_iter().zip(values) {
                    self.b.def_var(var, value);
                }
            }
            None => {
                self.forget_written_by(dst_addr, size);
                let dst = self.checked_address(dst_addr, 0, size);
                for ((at, _), value) in chunks(size, true).zip(values) {
                    self.b.ins().store(vm_mem(), value, dst, at as i32);
                }
            }
        }
        true
    }

    /// The word of type `ty` at byte `at` of a `mem_eq` side: loaded from its host address, or
    /// a constant of its known bytes.
    fn word_at(&mut self, side: &Result<ir::Value, Vec<u8>>, at: u32, ty: ir::Type) -> ir::Value {
        match side {
            Ok(host) => self.b.ins().load(ty, vm_mem(), *host, at as i32),
            Err(bytes) => {
                let bytes = bytes[at as usize..][..ty.bytes() as usize].to_vec();
                self.constant_of(ty, &bytes)
            }
        }
    }

    /// Zeroes `size` bytes at host address `host + start` with inline stores (one zero per
    /// width).
    pub(crate) fn zero_bytes(&mut self, host: ir::Value, start: u32, size: u32) {
        let mut zeros: Vec<(ir::Type, ir::Value)> = Vec::new();
        for (at, ty) in chunks(size, true) {
            let zero = match zeros.iter().find(|(t, _)| *t == ty) {
                Some(&(_, zero)) => zero,
                None => {
                    let zero = if ty.is_vector() {
                        let bytes = self.b.func.dfg.constants.insert(vec![0u8; 16].into());
                        self.b.ins().vconst(ty, bytes)
                    } else {
                        self.b.ins().iconst(ty, 0)
                    };
                    zeros.push((ty, zero));
                    zero
                }
            };
            self.b
                .ins()
                .store(vm_mem(), zero, host, (start + at) as i32);
        }
    }

    /// `mem_eq dst, [a], [b], size`: bytewise equality as a `bool`.
    pub(crate) fn mem_eq(&mut self, dst: Reg, a: Reg, b: Reg, size: u32) {
        if self.promoted_slot(a, size).is_some() || self.promoted_slot(b, size).is_some() {
            return self.mem_eq_promoted(dst, a, b, size);
        }
        let known = |t: &Self, reg: Reg| {
            t.exact_range(reg, 0, size)
                .and_then(|at| t.known_bytes(at, size))
        };
        let (known_a, known_b) = (known(self, a), known(self, b));
        if size > INLINE_BLOCK_OP_MAX {
            self.flush_for_read(a, 0, size);
            self.flush_for_read(b, 0, size);
        } else if let (Some(x), Some(y)) = (&known_a, &known_b) {
            let equal = self.b.ins().iconst(types::I32, (x == y) as i64);
            return self.set(dst, equal);
        } else {
            if known_a.is_none() {
                self.flush_for_read(a, 0, size);
            }
            if known_b.is_none() {
                self.flush_for_read(b, 0, size);
            }
        }
        if size > INLINE_BLOCK_OP_MAX {
            let (a, b) = (self.wide_addr(a), self.wide_addr(b));
            let size = self.i64c(size as i64);
            let (ctx, mem_top, loc) = (self.ctx, self.mem_top, self.i64c(self.loc));
            let result = self
                .call_helper(Helper::MemEq, &[ctx, a, b, size, mem_top, loc])
                .expect("result");
            let failed = self.b.ins().icmp_imm_u(IntCC::Equal, result, 2);
            self.propagate_if(failed);
            return self.set(dst, result);
        }
        // A side of known bytes is read as constants (an exact address: no check to make).
        let a = match known_a {
            Some(bytes) => Err(bytes),
            None => Ok(self.checked_address(a, 0, size)),
        };
        let b = match known_b {
            Some(bytes) => Err(bytes),
            None => Ok(self.checked_address(b, 0, size)),
        };
        // OR together the XOR of each pair of words: zero exactly when all bytes are equal.
        let mut diff = self.b.ins().iconst(types::I64, 0);
        for (at, ty) in chunks(size, false) {
            let x = self.word_at(&a, at, ty);
            let y = self.word_at(&b, at, ty);
            let mut delta = self.b.ins().bxor(x, y);
            if ty != types::I64 {
                delta = self.b.ins().uextend(types::I64, delta);
            }
            diff = self.b.ins().bor(diff, delta);
        }
        let equal = self.b.ins().icmp_imm_u(IntCC::Equal, diff, 0);
        let value = self.bool_of(equal);
        self.set(dst, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_tile_sizes_with_widest_words_first() {
        let tiles = |size, vectors| {
            chunks(size, vectors)
                .map(|(at, ty)| (at, ty.bytes()))
                .collect::<Vec<_>>()
        };
        assert_eq!(tiles(0, true), vec![]);
        assert_eq!(
            tiles(40, false),
            vec![(0, 8), (8, 8), (16, 8), (24, 8), (32, 8)]
        );
        assert_eq!(tiles(40, true), vec![(0, 16), (16, 16), (32, 8)]);
        assert_eq!(tiles(15, true), vec![(0, 8), (8, 4), (12, 2), (14, 1)]);
        assert_eq!(tiles(3, false), vec![(0, 2), (2, 1)]);
    }
}
