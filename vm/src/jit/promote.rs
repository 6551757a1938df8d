//! Scalar replacement of frame slots: a frame range that the function only ever copies, zeroes,
//! compares or copies from as a whole (a view, a descriptor, a small struct), and that nothing
//! else can reach, lives in Cranelift variables instead of memory. Copies between such slots become
//! register moves, a copy into one from memory a few loads, a copy out of one a few stores, and
//! nothing is written to the slot's own bytes.
//!
//! Exactness: the interpreter keeps the slot in memory, so the slot's bytes must be unreadable
//! by anything but the whole-slot copies the translator handles. [`promoted_slots`] keeps a
//! candidate slot only when every other access of the function's own code lies provably
//! outside it (an exact frame address, or one at most `frame base + M` that ends below the
//! slot), when every callee reaches memory only through its own frame and its address
//! parameters ([`param_extents`]) and is given an address into the slot only for a parameter
//! that it copies, zeroes or compares whole at the slot's size (an inlined body then works on
//! the slot's variables, and a native call finds the slot written to memory before it and
//! reads it back after), and when no access
//! through an address not known at all can see it: such a read is allowed only in the entry
//! block, before the function writes any candidate (memory and variables then both hold the
//! zeroes of frame entry), and any such write gives up promotion in the function. No
//! promoted access can fault (each lies inside the frame), so faults, the step budget and the
//! host's calls are those of the interpreter.

use super::accesses::accesses;
use super::facts::RegFacts;
use crate::entities::Reg;
use crate::function::Function;
use crate::inst::{Inst, Operand};

/// A frame slot kept in variables: `size` bytes at frame offset `at`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct PromotedSlot {
    pub at: u64,
    pub size: u32,
}

/// Largest slot (bytes) that is promoted (the size of the inline block ops).
const PROMOTE_MAX: u32 = 64;

/// Per register of `func`: whether some instruction defines it.
fn defined_registers(func: &Function) -> Vec<bool> {
    let mut defined = vec![false; func.reg_types.len()];
    for inst in &func.insts {
        inst.for_each_operand(|operand| match operand {
            Operand::Def(reg) => defined[reg.index()] = true,
            Operand::DefList(list) => {
                for reg in func.list(list) {
                    defined[reg.index()] = true;
                }
            }
            _ => {}
        });
    }
    defined
}

/// What a callee does through one address parameter: the bytes from the address it may touch
/// (`extent`, 0 when it does not access through the parameter), and `whole_size` when every
/// such access is a whole-block op (copy, zero, comparison) of exactly that many bytes at the
/// address itself, the way a caller's promoted slot of that size is accessed.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub(crate) struct ParamReach {
    pub extent: u32,
    pub whole_size: Option<u32>,
}

/// Per parameter of `func`: what `func` does through it ([`ParamReach`]), when `func` makes no
/// calls and reaches memory only through addresses known exactly in its own frame and through
/// its parameters themselves (never redefined, at a constant offset); `None` for any other
/// function, which may reach any byte (a decoded module can compute an address into its
/// caller's frame).
///
/// `makeResource(uint i)` of the shapes benchmark (it copies its 40-byte result to its address
/// parameter) gives extent 40 and whole size 40 for its second parameter.
pub(crate) fn param_extents(func: &Function, facts: &[RegFacts]) -> Option<Vec<ParamReach>> {
    let params = func.signature.params.len();
    let defined = defined_registers(func);
    let mut reaches = vec![ParamReach::default(); params];
    // Per parameter: only whole-block ops of one size at offset 0 seen so far.
    let mut whole_only = vec![true; params];
    for inst in &func.insts {
        if matches!(inst, Inst::Call { .. }) {
            return None;
        }
        for access in accesses(inst) {
            let index = access.addr.index();
            if facts
                .get(index)
                .is_some_and(|fact| fact.frame_exact.is_some())
            {
                continue;
            }
            let unchanged_param = index < params
                && func.reg_types.get(index) == Some(&crate::types::Type::Addr)
                && !defined[index];
            if !unchanged_param {
                return None;
            }
            let end = access.offset.checked_add(access.size)?;
            let reach = &mut reaches[index];
            reach.extent = reach.extent.max(end);
            let whole = access.whole_op
                && access.offset == 0
                && reach.whole_size.is_none_or(|size| size == access.size);
            whole_only[index] &= whole;
            reach.whole_size = Some(access.size);
        }
    }
    for (reach, whole) in reaches.iter_mut().zip(whole_only) {
        if !whole {
            reach.whole_size = None;
        }
    }
    Some(reaches)
}

/// Where an access may land, relative to this function's frame.
enum Reach {
    /// Exactly these frame bytes.
    Exact(u64, u64),
    /// Somewhere below this frame offset (possibly below the frame).
    Below(u64),
    /// Anywhere.
    Unknown,
}

fn reach(fact: RegFacts, offset: u32, size: u32) -> Reach {
    let (offset, size) = (offset as u64, size as u64);
    match (fact.frame_exact, fact.frame_max) {
        (Some(at), _) => Reach::Exact(at + offset, at + offset + size),
        (None, Some(max)) => Reach::Below(max + offset + size),
        (None, None) => Reach::Unknown,
    }
}

/// The slots of `func` kept in variables (see the module documentation); `callee_extents` is
/// [`param_extents`] per function of the module. Sorted by offset, disjoint.
pub(crate) fn promoted_slots(
    func: &Function,
    facts: &[RegFacts],
    callee_extents: &[Option<Vec<ParamReach>>],
) -> Vec<PromotedSlot> {
    let fact = |reg: Reg| facts.get(reg.index()).copied().unwrap_or_default();
    let frame_size = func.frame_size as u64;
    // Candidates: the exact ranges of whole-slot ops, minus any two that overlap unequally.
    let mut candidates: Vec<PromotedSlot> = Vec::new();
    for inst in &func.insts {
        for access in accesses(inst).filter(|access| access.whole_op) {
            if let Reach::Exact(start, end) = reach(fact(access.addr), 0, access.size) {
                let slot = PromotedSlot {
                    at: start,
                    size: access.size,
                };
                if access.size > 0
                    && access.size <= PROMOTE_MAX
                    && end <= frame_size
                    && !candidates.contains(&slot)
                {
                    candidates.push(slot);
                }
            }
        }
    }
    let overlap = |slot: &PromotedSlot, start: u64, end: u64| {
        slot.at < end && start < slot.at + slot.size as u64
    };
    let clashing: Vec<PromotedSlot> = candidates
        .iter()
        .copied()
        .filter(|slot| {
            candidates
                .iter()
                .any(|other| other != slot && overlap(other, slot.at, slot.at + slot.size as u64))
        })
        .collect();
    candidates.retain(|slot| !clashing.contains(slot));
    if candidates.is_empty() {
        return candidates;
    }
    // The entry block can run only first when no branch leads back to it.
    let entry_runs_once = !func.insts.iter().any(|inst| {
        let mut to_entry = false;
        inst.for_each_operand(|operand| {
            if let Operand::Target(block) = operand {
                to_entry |= block.index() == 0;
            }
        });
        to_entry
    });
    let entry = func
        .block_range(crate::entities::Block::from_u32(0))
        .unwrap_or(0..0);
    // The candidates the entry block has written so far (in program order).
    let mut written_in_entry: Vec<PromotedSlot> = Vec::new();
    for (pc, inst) in func.insts.iter().enumerate() {
        let mut reaches: Vec<(Reach, bool, bool, u32)> = accesses(inst)
            .map(|access| {
                (
                    reach(fact(access.addr), access.offset, access.size),
                    access.write,
                    access.whole_op,
                    access.size,
                )
            })
            .collect();
        if let Inst::Call { callee, args, .. } = *inst {
            let Some(Some(params)) = callee_extents.get(callee.index()) else {
                return Vec::new();
            };
            // A parameter the callee only copies, zeroes or compares whole may be given a
            // slot of that size: the translator passes the slot's variables to an inlined
            // body and puts them in memory around a native call.
            for (&arg, param) in func.list(args).iter().zip(params) {
                if let Some(size) = param.whole_size {
                    reaches.push((reach(fact(arg), 0, size), true, true, size));
                } else if param.extent > 0 {
                    reaches.push((reach(fact(arg), 0, param.extent), true, false, param.extent));
                }
            }
        }
        // An instruction reads (a copy's source) before it writes.
        reaches.sort_by_key(|&(_, write, _, _)| write);
        for (reach, write, whole_op, size) in reaches {
            match reach {
                Reach::Exact(start, end) => {
                    let whole =
                        |slot: &PromotedSlot| whole_op && slot.at == start && slot.size == size;
                    if write && entry.contains(&pc) {
                        written_in_entry.extend(candidates.iter().copied().filter(whole));
                    }
                    candidates.retain(|slot| whole(slot) || !overlap(slot, start, end));
                }
                Reach::Below(end) => candidates.retain(|slot| slot.at >= end),
                // A read through an unknown address in the entry block sees zeroes in the
                // candidates not written yet, in memory as in their variables.
                Reach::Unknown if !write && entry_runs_once && entry.contains(&pc) => {
                    candidates.retain(|slot| !written_in_entry.contains(slot));
                }
                Reach::Unknown => {
                    return Vec::new();
                }
            }
        }
    }
    candidates.sort_by_key(|slot| slot.at);
    candidates
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jit::facts::register_facts;
    use crate::types::Type;
    use crate::{FunctionBuilder, FunctionBuilderContext, LocId, Signature};

    const VIEW: u32 = 40;

    /// A function with an address parameter and a 200-byte frame: slot `a` (0) is zeroed and
    /// copied to `b` (40), `b` is copied to the argument block (80) of a node call, and then
    /// `extra` adds its own instructions (given the parameter and the frame addresses of `a`,
    /// `b` and the block).
    fn slots_with(extra: impl FnOnce(&mut FunctionBuilder, [Reg; 4])) -> Function {
        let mut ctx = FunctionBuilderContext::new();
        let sig = Signature::new([Type::Addr], []);
        let mut b = FunctionBuilder::new(&mut ctx, "f", sig);
        let entry = b.create_block();
        b.switch_to_block(entry);
        b.set_loc(LocId::from_u32(0));
        let param = b.param(0);
        b.alloc_frame(200, 16);
        let (a, slot_b, args) = (b.frame_addr(0), b.frame_addr(40), b.frame_addr(80));
        b.ins(Inst::MemZero {
            addr: a,
            size: VIEW,
        });
        b.mem_copy(slot_b, a, VIEW);
        b.mem_copy(args, slot_b, VIEW);
        b.call_node(crate::NodeDeclId::from_u32(0), args, VIEW, 0);
        extra(&mut b, [param, a, slot_b, args]);
        b.ret(&[]);
        b.finish()
    }

    fn promoted(func: &Function, callee_extents: &[Option<Vec<ParamReach>>]) -> Vec<u64> {
        promoted_slots(func, &register_facts(func), callee_extents)
            .into_iter()
            .map(|slot| {
                assert_eq!(slot.size, VIEW);
                slot.at
            })
            .collect()
    }

    #[test]
    fn slots_only_copied_whole_are_promoted_and_the_node_block_is_not() {
        assert_eq!(promoted(&slots_with(|_, _| {}), &[]), vec![0, 40]);
    }

    #[test]
    fn a_partial_access_keeps_a_slot_in_memory_and_a_comparison_does_not() {
        let stored = slots_with(|b, [_, a, _, _]| {
            let one = b.iconst_u32(1);
            b.store(a, 4, one);
        });
        assert_eq!(promoted(&stored, &[]), vec![40]);
        let compared = slots_with(|b, [_, a, slot_b, _]| {
            let dst = b.new_reg(Type::Bool);
            b.ins(Inst::MemEq {
                dst,
                a,
                b: slot_b,
                size: VIEW,
            });
        });
        assert_eq!(promoted(&compared, &[]), vec![0, 40]);
        // Compared as a part of something larger, `a` stays in memory.
        let compared_wider = slots_with(|b, [_, a, slot_b, _]| {
            let dst = b.new_reg(Type::Bool);
            b.ins(Inst::MemEq {
                dst,
                a,
                b: slot_b,
                size: 2 * VIEW,
            });
        });
        assert_eq!(promoted(&compared_wider, &[]), Vec::<u64>::new());
    }

    #[test]
    fn an_indexed_access_keeps_the_slots_it_may_reach_in_memory() {
        // Up to byte 40 + 40: `a` and `b` may be reached, what lies above may not.
        let indexed = slots_with(|b, [_, a, _, _]| {
            let slot_c = b.frame_addr(120);
            let one = b.iconst_u32(1);
            let at = b.index_addr(a, one, VIEW, 2);
            b.mem_copy(slot_c, at, VIEW);
        });
        assert_eq!(promoted(&indexed, &[]), vec![120]);
    }

    #[test]
    fn an_unknown_address_gives_up_unless_it_only_reads_before_the_writes_of_entry() {
        let written = slots_with(|b, [param, _, _, _]| {
            let one = b.iconst_u32(1);
            b.store(param, 0, one);
        });
        assert_eq!(promoted(&written, &[]), Vec::<u64>::new());
        // The read follows the writes of both slots: it might see them.
        let read_late = slots_with(|b, [param, _, _, _]| {
            b.load(Type::U32, param, 0);
        });
        assert_eq!(promoted(&read_late, &[]), Vec::<u64>::new());
        // In a later block, it might see them too.
        let read_in_next_block = slots_with(|b, [param, _, _, _]| {
            let next = b.create_block();
            b.jump(next);
            b.switch_to_block(next);
            b.load(Type::U32, param, 0);
        });
        assert_eq!(promoted(&read_in_next_block, &[]), Vec::<u64>::new());
    }

    #[test]
    fn an_entry_read_before_a_slot_is_written_keeps_the_slot() {
        let mut ctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut ctx, "f", Signature::new([Type::Addr], []));
        let entry = b.create_block();
        b.switch_to_block(entry);
        b.set_loc(LocId::from_u32(0));
        let param = b.param(0);
        b.alloc_frame(80, 16);
        let (a, slot_b) = (b.frame_addr(0), b.frame_addr(40));
        // `a` is written from the parameter before the read through it, `b` after.
        b.mem_copy(a, param, VIEW);
        b.load(Type::U32, param, 40);
        b.mem_copy(slot_b, a, VIEW);
        let next = b.create_block();
        b.jump(next);
        b.switch_to_block(next);
        b.mem_copy(a, slot_b, VIEW);
        b.ret(&[]);
        assert_eq!(promoted(&b.finish(), &[]), vec![40]);
    }

    /// A callee `g(p: addr, x: u32)` that writes 8 bytes at offset 4 through `p`, or, when
    /// `computed`, through `p + 4` (an address it computes).
    fn writer(computed: bool) -> Function {
        let mut ctx = FunctionBuilderContext::new();
        let sig = Signature::new([Type::Addr, Type::U32], []);
        let mut b = FunctionBuilder::new(&mut ctx, "g", sig);
        let entry = b.create_block();
        b.switch_to_block(entry);
        b.set_loc(LocId::from_u32(0));
        let (p, x) = (b.param(0), b.param(1));
        if computed {
            let at = b.addr_add(p, 4);
            b.store(at, 0, x);
        } else {
            b.store(p, 4, x);
            b.store(p, 8, x);
        }
        b.ret(&[]);
        b.finish()
    }

    #[test]
    fn a_callee_reaching_only_its_frame_and_parameters_has_extents() {
        let writes = writer(false);
        let partial = ParamReach {
            extent: 12,
            whole_size: None,
        };
        assert_eq!(
            param_extents(&writes, &register_facts(&writes)),
            Some(vec![partial, ParamReach::default()])
        );
        let computes = writer(true);
        assert_eq!(param_extents(&computes, &register_facts(&computes)), None);
        // A callee that only copies whole views to and from its parameter.
        let mut ctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut ctx, "h", Signature::new([Type::Addr], []));
        let entry = b.create_block();
        b.switch_to_block(entry);
        b.set_loc(LocId::from_u32(0));
        let p = b.param(0);
        b.alloc_frame(VIEW, 16);
        let own = b.frame_addr(0);
        b.mem_copy(own, p, VIEW);
        b.mem_copy(p, own, VIEW);
        b.ret(&[]);
        let copies = b.finish();
        let whole = ParamReach {
            extent: VIEW,
            whole_size: Some(VIEW),
        };
        assert_eq!(
            param_extents(&copies, &register_facts(&copies)),
            Some(vec![whole])
        );
    }

    #[test]
    fn a_call_keeps_the_slots_its_callee_may_reach_in_memory() {
        let calls = |b: &mut FunctionBuilder, [_, a, _, _]: [Reg; 4]| {
            let one = b.iconst_u32(1);
            let sig = Signature::new([Type::Addr, Type::U32], []);
            b.call(crate::FuncId::from_u32(1), &sig, &[a, one]);
        };
        let caller = slots_with(calls);
        // The callee reaches 12 bytes of `a`: only `b` stays promoted.
        let partial = ParamReach {
            extent: 12,
            whole_size: None,
        };
        let callee = Some(vec![partial, ParamReach::default()]);
        assert_eq!(promoted(&caller, &[None, callee]), vec![40]);
        // One that copies `a` whole keeps it promoted (the translator hands it over).
        let whole = ParamReach {
            extent: VIEW,
            whole_size: Some(VIEW),
        };
        let callee = Some(vec![whole, ParamReach::default()]);
        assert_eq!(promoted(&caller, &[None, callee]), vec![0, 40]);
        // One that copies 16 bytes of it whole does not.
        let smaller = ParamReach {
            extent: 16,
            whole_size: Some(16),
        };
        let callee = Some(vec![smaller, ParamReach::default()]);
        assert_eq!(promoted(&caller, &[None, callee]), vec![40]);
        // A callee that may reach anything gives up promotion.
        assert_eq!(promoted(&caller, &[None, None]), Vec::<u64>::new());
    }
}
