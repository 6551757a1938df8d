//! Which bytes of a function's frame can be read before the function writes them, so that only
//! those need the zeroing every frame gets on entry.
//!
//! The interpreter zeroes a whole frame on entry. A byte whose every read follows, in the same
//! block, an instruction that wrote it through an address known exactly ([`RegFacts`]) cannot show
//! that zero: on every path, the read sees the write. Every other read marks the bytes it may
//! touch: an address known exactly marks its bytes not yet written in the block, one at most
//! `frame base + M` the frame up to `M + offset + size`, any other address (a parameter, a
//! loaded or returned address, which may point back into the frame) the whole frame, and so does
//! anything that lets an address out where later code may read through it: a store of one, a
//! conversion of one to another type, and a call of any function that does not read only its
//! own frame through exact addresses ([`reads_only_its_frame`]), whether or not it is given an
//! address (a decoded module's callee can compute one below its own frame, into this one).
//! Generated code then zeroes only the marked bytes when it enters the frame inline (see
//! `Translator::call`).
//!
//! The same per-block reads and writes give the frame's liveness at the end of each block
//! ([`frame_live_out`]), which tells the translator which held-back stores must reach memory.

use super::accesses::accesses;
use super::facts::RegFacts;
use crate::function::Function;
use crate::inst::Inst;
use crate::types::Type;

/// Per frame byte of `func`: whether it may be read before this function writes it (see the
/// module documentation). `reads_own_frame_only` is [`reads_only_its_frame`] per function of the
/// module: a call of any other function may read the whole frame, even without being given an
/// address (a decoded module's callee can compute one below its own frame).
pub(crate) fn bytes_read_before_written(
    func: &Function,
    facts: &[RegFacts],
    reads_own_frame_only: &[bool],
) -> Vec<bool> {
    let mut needed = vec![false; func.frame_size as usize];
    for index in 0..func.blocks.len() {
        let access = block_access(func, facts, reads_own_frame_only, index);
        for (need, read) in needed.iter_mut().zip(access.read_first) {
            *need |= read;
        }
    }
    needed
}

/// Largest frame (bytes) whose liveness [`frame_live_out`] computes.
const LIVENESS_MAX_FRAME: u32 = 4096;
/// Most blocks times frame bytes whose liveness [`frame_live_out`] computes (a bound on its
/// cost, which compile time pays).
const LIVENESS_MAX_CELLS: usize = 1 << 20;

/// Per block of `func`, per frame byte: whether a block that may run next can read the byte
/// before writing it (by the function itself, the host or a callee; a callee marked in
/// `reads_own_frame_only` ([`reads_only_its_frame`], per function of the module) reads nothing
/// of `func`'s frame, any other callee all of it). After a `ret` or `abort` nothing reads the
/// frame. A held-back store ([`super::known`]) of bytes not live at its block's end need never
/// reach memory. Empty (everything counts as live) for frames over [`LIVENESS_MAX_FRAME`]
/// bytes or over [`LIVENESS_MAX_CELLS`] blocks times bytes.
pub(crate) fn frame_live_out(
    func: &Function,
    facts: &[RegFacts],
    reads_own_frame_only: &[bool],
) -> Vec<Vec<bool>> {
    let size = func.frame_size as usize;
    let blocks = func.blocks.len();
    if func.frame_size > LIVENESS_MAX_FRAME || blocks * size > LIVENESS_MAX_CELLS {
        return Vec::new();
    }
    let accesses: Vec<BlockAccess> = (0..blocks)
        .map(|index| block_access(func, facts, reads_own_frame_only, index))
        .collect();
    let successors: Vec<Vec<usize>> = (0..blocks)
        .map(|index| {
            let last = func
                .block_range(crate::entities::Block::from_u32(index as u32))
                .and_then(|range| range.last())
                .map(|pc| func.insts[pc]);
            match last {
                Some(Inst::Jump { target }) | Some(Inst::LoopJump { target }) => {
                    vec![target.index()]
                }
                Some(Inst::Branch {
                    then_block,
                    else_block,
                    ..
                }) => vec![then_block.index(), else_block.index()],
                _ => Vec::new(),
            }
        })
        .collect();
    let mut live_in = vec![vec![false; size]; blocks];
    let mut live_out = vec![vec![false; size]; blocks];
    let mut changed = true;
    while changed {
        changed = false;
        for index in (0..blocks).rev() {
            let mut out = vec![false; size];
            for &next in &successors[index] {
                for (byte, live) in out.iter_mut().zip(&live_in[next]) {
                    *byte |= live;
                }
            }
            let access = &accesses[index];
            let into: Vec<bool> = (0..size)
                .map(|byte| access.read_first[byte] || (out[byte] && !access.written[byte]))
                .collect();
            if into != live_in[index] || out != live_out[index] {
                changed = true;
                live_in[index] = into;
                live_out[index] = out;
            }
        }
    }
    live_out
}

/// What one block does with the frame: the bytes it may read before writing them, and the
/// bytes it writes through addresses known exactly.
struct BlockAccess {
    read_first: Vec<bool>,
    written: Vec<bool>,
}

/// The [`BlockAccess`] of block `index` of `func`; a callee marked in `reads_own_frame_only` (per
/// function of the module) reads nothing of this frame, any other all of it.
fn block_access(
    func: &Function,
    facts: &[RegFacts],
    reads_own_frame_only: &[bool],
    index: usize,
) -> BlockAccess {
    let size = func.frame_size as usize;
    let mut needed = vec![false; size];
    let fact = |reg: crate::entities::Reg| facts.get(reg.index()).copied().unwrap_or_default();
    let range = func
        .block_range(crate::entities::Block::from_u32(index as u32))
        .unwrap_or(0..0);
    // Byte ranges of the frame written so far in this block (through exact addresses).
    let mut written: Vec<(usize, usize)> = Vec::new();
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
    let write =
        |written: &mut Vec<(usize, usize)>, addr: crate::entities::Reg, offset: u32, bytes: u32| {
            if let Some(at) = fact(addr).frame_exact {
                let start = (at + offset as u64) as usize;
                written.push((start, start + bytes as usize));
            }
        };
    for pc in range {
        let inst = &func.insts[pc];
        match *inst {
            Inst::Store { src, .. } if escapes(func, src) => needed.fill(true),
            Inst::Call { callee, .. } => {
                // A callee that reads only its own frame through exact addresses reads nothing
                // of this one even when given an address (it cannot read through it).
                let own_only = reads_own_frame_only
                    .get(callee.index())
                    .copied()
                    .unwrap_or(false);
                if !own_only {
                    needed.fill(true);
                }
            }
            Inst::Convert { from, .. } | Inst::Bitcast { from, .. } if from == Type::Addr => {
                needed.fill(true);
            }
            _ => {}
        }
        // Reads come first: a copy reads its source before it writes its destination.
        for access in accesses(inst) {
            if access.write {
                write(&mut written, access.addr, access.offset, access.size);
            } else {
                read(
                    &mut needed,
                    &written,
                    access.addr,
                    access.offset,
                    access.size,
                );
            }
        }
    }
    let mut written_bytes = vec![false; size];
    for (from, to) in written {
        for byte in written_bytes.iter_mut().take(to.min(size)).skip(from) {
            *byte = true;
        }
    }
    BlockAccess {
        read_first: needed,
        written: written_bytes,
    }
}

/// Whether `func` makes no calls and reads (itself or through the host) only through addresses
/// known exactly in its own frame.
pub(crate) fn reads_only_its_frame(func: &Function) -> bool {
    let facts = super::facts::register_facts(func);
    let exact = |reg: crate::entities::Reg| {
        facts
            .get(reg.index())
            .is_some_and(|fact| fact.frame_exact.is_some())
    };
    func.insts.iter().all(|inst| {
        !matches!(inst, Inst::Call { .. })
            && accesses(inst).all(|access| access.write || exact(access.addr))
    })
}

/// Whether passing or storing `reg` may hand an address (possibly into this frame) to code that
/// reads through it later: a callee, or a later load of the stored address.
fn escapes(func: &Function, reg: crate::entities::Reg) -> bool {
    func.reg_types
        .get(reg.index())
        .is_none_or(|&ty| ty == Type::Addr)
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
        let needed = bytes_read_before_written(&function, &register_facts(&function), &[]);
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
        // `main` writes its frame at 0, then in the next block passes the address to a callee;
        // `leaf` writes through it and reads only its own frame, `peek` also reads through it.
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
        let (entry, next) = (b.create_block(), b.create_block());
        b.switch_to_block(entry);
        b.set_loc(LocId::from_u32(0));
        b.alloc_frame(8, 4);
        let base = b.frame_addr(0);
        let seven = b.iconst_u32(7);
        b.store(base, 0, seven);
        b.jump(next);
        b.switch_to_block(next);
        b.call(crate::FuncId::from_u32(1), &leaf_sig, &[base]);
        b.ret(&[]);
        let main = b.finish();
        let facts = register_facts(&main);
        for (reads_param, expected) in [(false, false), (true, true)] {
            let own_only = [false, reads_only_its_frame(&callee(reads_param))];
            let live = frame_live_out(&main, &facts, &own_only);
            assert_eq!(
                live[0],
                vec![expected; 8],
                "callee reads its parameter: {reads_param}"
            );
            assert_eq!(live[1], vec![false; 8], "nothing is live after `ret`");
            // Zeroing on entry follows the same rule: a callee that reads only its own frame
            // reads none of `main`'s, given an address or not.
            assert_eq!(
                bytes_read_before_written(&main, &facts, &own_only),
                vec![expected; 8],
                "callee reads its parameter: {reads_param}"
            );
        }
        // A callee not known to read only its own frame (not compiled, say) may read it all.
        assert_eq!(
            bytes_read_before_written(&main, &facts, &[false, false]),
            vec![true; 8]
        );
    }

    #[test]
    fn bytes_written_on_every_path_before_a_read_are_not_live() {
        // block0 branches to block1 (zeroes bytes 0..8) or block2 (stores at 0 and 4); both go
        // to block3, which loads bytes 0..4.
        let mut ctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut ctx, "f", Signature::new([Type::Bool], [Type::U32]));
        let blocks: Vec<_> = (0..4).map(|_| b.create_block()).collect();
        b.switch_to_block(blocks[0]);
        b.set_loc(LocId::from_u32(0));
        let cond = b.param(0);
        b.alloc_frame(16, 4);
        let base = b.frame_addr(0);
        b.branch(cond, blocks[1], blocks[2]);
        b.switch_to_block(blocks[1]);
        b.ins(Inst::MemZero {
            addr: base,
            size: 8,
        });
        b.jump(blocks[3]);
        b.switch_to_block(blocks[2]);
        let one = b.iconst_u32(1);
        b.store(base, 0, one);
        b.store(base, 4, one);
        b.jump(blocks[3]);
        b.switch_to_block(blocks[3]);
        let word = b.load(Type::U32, base, 0);
        b.ret(&[word]);
        let function = b.finish();
        let live = frame_live_out(&function, &register_facts(&function), &[]);
        let first_word: Vec<bool> = (0..16).map(|byte| byte < 4).collect();
        assert_eq!(live[0], vec![false; 16]);
        assert_eq!(live[1], first_word);
        assert_eq!(live[2], first_word);
        assert_eq!(live[3], vec![false; 16]);
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
        let needed = bytes_read_before_written(&function, &register_facts(&function), &[]);
        assert_eq!(needed, vec![true; 16]);
    }
}
