//! Which bytes of a function's frame can be read before the function writes them, so that only
//! those need the zeroing every frame gets on entry.
//!
//! The interpreter zeroes a whole frame on entry. A byte whose every read follows, in the same
//! block, an instruction that wrote it through an address known exactly ([`RegFacts`]) cannot show
//! that zero: on every path, the read sees the write. Every other read marks the bytes it may
//! touch: an address known exactly marks its bytes not yet written in the block, one at most
//! `frame base + M` the frame up to `M + offset + size`, any other address (a parameter, a
//! loaded or returned address, which may point back into the frame) the whole frame, and so does
//! anything that lets an address out where later code may read through it: a call that passes
//! one, a store of one, a conversion of one to another type. Generated code then zeroes
//! only the marked bytes when it enters the frame inline (see `Translator::call`).

use super::facts::RegFacts;
use crate::function::Function;
use crate::host::{RESOURCE_DESC_SIZE, VIEW_SIZE};
use crate::inst::Inst;
use crate::types::Type;

/// Per frame byte of `func`: whether it may be read before this function writes it (see the
/// module documentation).
pub(crate) fn bytes_read_before_written(func: &Function, facts: &[RegFacts]) -> Vec<bool> {
    read_before_written(func, facts, None)
}

/// Per frame byte of `func`: whether it may be read other than after a write of it earlier in
/// the same block, by the function itself, the host or a callee; reads in the entry block count
/// only when a jump leads back to it (they see no earlier block). A callee of `functions` that
/// makes no calls and reads only through addresses known exactly in its own frame reads
/// nothing of `func`'s frame; any other callee may read all of it. A held-back store
/// ([`super::known`]) of bytes without this mark need never reach memory once its block ends:
/// every later read sees a later write first.
pub(crate) fn bytes_read_across_blocks(
    func: &Function,
    facts: &[RegFacts],
    functions: &[Function],
) -> Vec<bool> {
    read_before_written(func, facts, Some(functions))
}

/// Whether `func` makes no calls and reads (itself or through the host) only through addresses
/// known exactly in its own frame.
fn reads_only_its_frame(func: &Function) -> bool {
    let facts = super::facts::register_facts(func);
    let exact = |reg: crate::entities::Reg| {
        facts
            .get(reg.index())
            .is_some_and(|fact| fact.frame_exact.is_some())
    };
    func.insts.iter().all(|inst| match *inst {
        Inst::Call { .. } => false,
        Inst::Load { addr, .. } => exact(addr),
        Inst::MemCopy { src_addr, .. } => exact(src_addr),
        Inst::MemEq { a, b, .. } => exact(a) && exact(b),
        Inst::CreateResource { desc, .. } => exact(desc),
        Inst::DescribeResource { view, .. } => exact(view),
        Inst::CallNode { args, .. } => exact(args),
        _ => true,
    })
}

/// [`bytes_read_before_written`], or with `functions`, [`bytes_read_across_blocks`].
fn read_before_written(
    func: &Function,
    facts: &[RegFacts],
    functions: Option<&[Function]>,
) -> Vec<bool> {
    let size = func.frame_size as usize;
    let mut needed = vec![false; size];
    let fact = |reg: crate::entities::Reg| facts.get(reg.index()).copied().unwrap_or_default();
    // Across blocks, the entry block's reads see no earlier block when nothing jumps back to it.
    let entry = crate::entities::Block::from_u32(0);
    let entry_runs_first = functions.is_some()
        && !func.insts.iter().any(|inst| match *inst {
            Inst::Jump { target } | Inst::LoopJump { target } => target == entry,
            Inst::Branch {
                then_block,
                else_block,
                ..
            } => then_block == entry || else_block == entry,
            _ => false,
        });
    for index in 0..func.blocks.len() {
        let range = func
            .block_range(crate::entities::Block::from_u32(index as u32))
            .unwrap_or(0..0);
        // Byte ranges of the frame written so far in this block (through exact addresses).
        let mut written: Vec<(usize, usize)> = Vec::new();
        if index == 0 && entry_runs_first {
            written.push((0, size));
        }
        let read = |needed: &mut Vec<bool>,
                    written: &Vec<(usize, usize)>,
                    addr: crate::entities::Reg,
                    offset: u32,
                    bytes: u32| {
            let addr = fact(addr);
            let (start, end) = match (addr.frame_exact, addr.frame_max) {
                (Some(at), _) => (at + offset as u64, at + offset as u64 + bytes as u64),
                (None, Some(max)) => (0, max + offset as u64 + bytes as u64),
                (None, None) => (0, size as u64),
            };
            let (start, end) = (
                start.min(size as u64) as usize,
                end.min(size as u64) as usize,
            );
            for (byte, need) in needed.iter_mut().enumerate().take(end).skip(start) {
                if !written.iter().any(|&(from, to)| from <= byte && byte < to) {
                    *need = true;
                }
            }
        };
        let write = |written: &mut Vec<(usize, usize)>,
                     addr: crate::entities::Reg,
                     offset: u32,
                     bytes: u32| {
            if let Some(at) = fact(addr).frame_exact {
                let start = (at + offset as u64) as usize;
                written.push((start, start + bytes as usize));
            }
        };
        for pc in range {
            match func.insts[pc] {
                Inst::Load {
                    ty, addr, offset, ..
                } => read(&mut needed, &written, addr, offset, mem_size(ty)),
                Inst::Store {
                    ty,
                    addr,
                    offset,
                    src,
                } => {
                    if escapes(func, src) {
                        needed.fill(true);
                    }
                    write(&mut written, addr, offset, mem_size(ty))
                }
                Inst::MemCopy {
                    dst_addr,
                    src_addr,
                    size,
                } => {
                    read(&mut needed, &written, src_addr, 0, size);
                    write(&mut written, dst_addr, 0, size);
                }
                Inst::MemZero { addr, size } => write(&mut written, addr, 0, size),
                Inst::MemEq { a, b, size, .. } => {
                    read(&mut needed, &written, a, 0, size);
                    read(&mut needed, &written, b, 0, size);
                }
                Inst::CreateResource { desc, view_out } => {
                    read(&mut needed, &written, desc, 0, RESOURCE_DESC_SIZE);
                    write(&mut written, view_out, 0, VIEW_SIZE);
                }
                Inst::DescribeResource { view, desc_out } => {
                    read(&mut needed, &written, view, 0, VIEW_SIZE);
                    write(&mut written, desc_out, 0, RESOURCE_DESC_SIZE);
                }
                Inst::CallNode { args, size, .. } => read(&mut needed, &written, args, 0, size),
                Inst::Call { callee, args, .. } => {
                    let reads_frame = match functions {
                        Some(functions) => functions
                            .get(callee.index())
                            .is_none_or(|callee| !reads_only_its_frame(callee)),
                        None => func.list(args).iter().any(|&reg| escapes(func, reg)),
                    };
                    if reads_frame {
                        needed.fill(true);
                    }
                }
                Inst::Convert { from, .. } | Inst::Bitcast { from, .. } => {
                    if from == Type::Addr {
                        needed.fill(true);
                    }
                }
                Inst::Const { .. }
                | Inst::Move { .. }
                | Inst::Unary { .. }
                | Inst::Binary { .. }
                | Inst::Ternary { .. }
                | Inst::Select { .. }
                | Inst::Vector { .. }
                | Inst::FrameAddr { .. }
                | Inst::AddrAdd { .. }
                | Inst::IndexAddr { .. }
                | Inst::Marker { .. }
                | Inst::Jump { .. }
                | Inst::LoopJump { .. }
                | Inst::Branch { .. }
                | Inst::Return { .. }
                | Inst::Abort { .. } => {}
            }
        }
    }
    needed
}

/// Whether passing or storing `reg` may hand an address (possibly into this frame) to code that
/// reads through it later: a callee, or a later load of the stored address.
fn escapes(func: &Function, reg: crate::entities::Reg) -> bool {
    func.reg_types
        .get(reg.index())
        .is_none_or(|&ty| ty == Type::Addr)
}

/// Bytes a `load`/`store` of `ty` touches (as the translator checks them).
fn mem_size(ty: Type) -> u32 {
    ty.mem_size().unwrap_or(4)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jit::facts::register_facts;
    use crate::{FunctionBuilder, FunctionBuilderContext, LocId, Signature};

    /// The frame bytes (of 32) that `f` may read before writing: it stores at 0, loads at 0 and
    /// 8, then in a second block loads at 0 again, and, when `foreign`, loads through its
    /// address parameter.
    fn marked(foreign: bool) -> Vec<usize> {
        let mut ctx = FunctionBuilderContext::new();
        let sig = Signature::new([Type::Addr], [Type::U32]);
        let mut b = FunctionBuilder::new(&mut ctx, "f", sig);
        let entry = b.create_block();
        let next = b.create_block();
        b.switch_to_block(entry);
        b.set_loc(LocId::from_u32(0));
        let param = b.param(0);
        b.alloc_frame(32, 4);
        let base = b.frame_addr(0);
        let seven = b.iconst_u32(7);
        b.store(base, 0, seven);
        let x = b.load(Type::U32, base, 0);
        let y = b.load(Type::U32, base, 8);
        let mut sum = b.binary(crate::BinaryOp::AddU32, x, y);
        if foreign {
            let w = b.load(Type::U32, param, 0);
            sum = b.binary(crate::BinaryOp::AddU32, sum, w);
        }
        b.jump(next);
        b.switch_to_block(next);
        let z = b.load(Type::U32, base, 0);
        let total = b.binary(crate::BinaryOp::AddU32, sum, z);
        b.ret(&[total]);
        let function = b.finish();
        let needed = bytes_read_before_written(&function, &register_facts(&function));
        (0..needed.len()).filter(|&byte| needed[byte]).collect()
    }

    #[test]
    fn only_bytes_read_before_a_write_in_their_block_need_zeroing() {
        // 0..4 is written before its first read, but the next block forgets that write.
        assert_eq!(marked(false), vec![0, 1, 2, 3, 8, 9, 10, 11]);
        // A read through an address from elsewhere may touch any byte.
        assert_eq!(marked(true), (0..32).collect::<Vec<_>>());
    }

    #[test]
    fn a_leaf_callee_reading_only_its_frame_reads_nothing_of_its_caller() {
        // `main` writes its frame at 0 and passes the address to a callee; `leaf` writes through
        // it and reads only its own frame, `peek` reads through it.
        let leaf_sig = Signature::new([Type::Addr], []);
        let callee = |reads_param: bool| {
            let mut ctx = FunctionBuilderContext::new();
            let mut b = FunctionBuilder::new(&mut ctx, "callee", leaf_sig.clone());
            let entry = b.create_block();
            b.switch_to_block(entry);
            b.set_loc(LocId::from_u32(0));
            let param = b.param(0);
            b.alloc_frame(8, 4);
            let own = b.frame_addr(0);
            let word = b.load(Type::U32, own, 4);
            b.store(param, 0, word);
            if reads_param {
                b.load(Type::U32, param, 0);
            }
            b.ret(&[]);
            b.finish()
        };
        let mut ctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut ctx, "main", Signature::new([], []));
        let entry = b.create_block();
        b.switch_to_block(entry);
        b.set_loc(LocId::from_u32(0));
        b.alloc_frame(8, 4);
        let base = b.frame_addr(0);
        let seven = b.iconst_u32(7);
        b.store(base, 0, seven);
        b.call(crate::FuncId::from_u32(1), &leaf_sig, &[base]);
        b.ret(&[]);
        let main = b.finish();
        let facts = register_facts(&main);
        for (reads_param, expected) in [(false, false), (true, true)] {
            let functions = [main.clone(), callee(reads_param)];
            let marked = bytes_read_across_blocks(&main, &facts, &functions);
            assert_eq!(
                marked,
                vec![expected; 8],
                "callee reads its parameter: {reads_param}"
            );
        }
        // Zeroing on entry still counts any callee given an address as reading the frame.
        assert_eq!(bytes_read_before_written(&main, &facts), vec![true; 8]);
    }

    #[test]
    fn an_address_stored_to_memory_marks_the_whole_frame() {
        // Once stored, the frame's address may be loaded and read through anywhere.
        let mut ctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut ctx, "g", Signature::new([], []));
        let entry = b.create_block();
        b.switch_to_block(entry);
        b.set_loc(LocId::from_u32(0));
        b.alloc_frame(16, 4);
        let base = b.frame_addr(0);
        b.store(base, 0, base);
        b.ret(&[]);
        let function = b.finish();
        let needed = bytes_read_before_written(&function, &register_facts(&function));
        assert_eq!(needed, vec![true; 16]);
    }
}
