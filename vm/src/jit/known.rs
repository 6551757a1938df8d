//! Frame bytes whose content the translator knows, within one bytecode block: what `mem_zero`
//! and stores of constants put in the frame, and copies of such bytes. Scripts build their
//! constant views and descriptors that way (a zeroed temporary, a few constant fields, then a
//! copy into the variable, or a comparison with it), so knowing the bytes lets the translator
//! write each temporary once with a few wide constant stores instead of zeroing it and patching
//! fields, copy it without loading it back, and compare against it without loading it.
//!
//! A region's stores may be held back (*pending*) until something may read it: nothing else can
//! see VM memory (a fault ends the run, and a failed run's memory is never seen). Every
//! instruction that may read memory first writes the pending bytes it could read: all of them
//! for a read through an address not known exactly and for a call, the overlapping ones for a
//! read (or a host call's read) at a known address. At the end of its block a pending region
//! is written only if one of its bytes is live there (a block that may run next may read it
//! before writing it, [`super::frame_init::frame_live_out`]); a temporary used only in its
//! block, or overwritten on every path before it is read again, never reaches memory. Known bytes are forgotten where anything may write them, and all of them at
//! the end of each block, at calls and at any write through an address not known exactly.
//!
//! Offsets are from the frame base of the body being translated (an inlined callee has its
//! own, see [`super::inline`]).

use super::codegen::{vm_mem, Translator};
use super::memops::chunks;
use crate::entities::Reg;
use crate::inst::Inst;
use cranelift_codegen::ir::{self, InstBuilder, InstructionData, Opcode, ValueDef};

/// Bytes at one frame offset whose content is known.
#[derive(Clone, Debug)]
struct Region {
    /// Frame offset of the first byte.
    at: u64,
    bytes: Vec<u8>,
    /// Not yet written to memory.
    pending: bool,
}

impl Region {
    fn end(&self) -> u64 {
        self.at + self.bytes.len() as u64
    }

    fn overlaps(&self, start: u64, end: u64) -> bool {
        self.at < end && start < self.end()
    }
}

/// The known frame bytes of the body being translated.
#[derive(Clone, Debug, Default)]
pub(crate) struct KnownFrame {
    regions: Vec<Region>,
}

/// Most regions tracked at once; the oldest is written out and forgotten beyond that.
const MAX_REGIONS: usize = 8;

/// Whether `inst` only reads and writes registers: pending stores may wait across it.
fn register_only(inst: &Inst) -> bool {
    matches!(
        inst,
        Inst::Const { .. }
            | Inst::Move { .. }
            | Inst::Unary { .. }
            | Inst::Binary { .. }
            | Inst::Ternary { .. }
            | Inst::Convert { .. }
            | Inst::Bitcast { .. }
            | Inst::Select { .. }
            | Inst::Vector { .. }
            | Inst::FrameAddr { .. }
            | Inst::AddrAdd { .. }
            | Inst::IndexAddr { .. }
    )
}

/// Whether the memory instructions of [`super::memops`] handle known bytes themselves.
fn handled_by_memops(inst: &Inst) -> bool {
    matches!(
        inst,
        Inst::Load { .. }
            | Inst::Store { .. }
            | Inst::MemCopy { .. }
            | Inst::MemZero { .. }
            | Inst::MemEq { .. }
    )
}

impl Translator<'_, '_> {
    /// Forgets every known byte (at the start of a block; nothing is pending then).
    pub(crate) fn known_block_start(&mut self) {
        debug_assert!(self.known.regions.iter().all(|region| !region.pending));
        self.known.regions.clear();
    }

    /// What `inst` requires of the known bytes before it is translated (memory instructions see
    /// to their own).
    pub(crate) fn known_before(&mut self, inst: &Inst) {
        if register_only(inst) || handled_by_memops(inst) {
            return;
        }
        match *inst {
            Inst::CreateResource { desc, view_out } => {
                self.flush_for_read(desc, 0, crate::host::RESOURCE_DESC_SIZE);
                // The host call writes the whole view when it succeeds and ends the run when it
                // fails, after which nothing reads the frame: bytes held back for the view
                // itself need never be written.
                match self.exact_range(view_out, 0, crate::host::VIEW_SIZE) {
                    Some(at) => self.overwrite_range(at, crate::host::VIEW_SIZE),
                    None => self.forget_all(),
                }
            }
            Inst::DescribeResource { view, desc_out } => {
                self.flush_for_read(view, 0, crate::host::VIEW_SIZE);
                self.forget_written_by(desc_out, crate::host::RESOURCE_DESC_SIZE);
            }
            Inst::CallNode { args, size, .. } => self.flush_for_read(args, 0, size),
            Inst::Marker { .. } => {}
            // Calls may read and write anywhere (an inlined body has its own known bytes).
            Inst::Call { .. } => self.forget_all(),
            // The block ends: what no later block can read first need not reach memory.
            _ => self.end_block(),
        }
    }

    /// At a block's terminator: writes out the pending regions with bytes live at the block's
    /// end (a block that may run next may read them before writing them), and forgets every
    /// region.
    fn end_block(&mut self) {
        let live_out = std::mem::take(&mut self.live_out);
        let live = live_out.get(self.block_index);
        self.flush_where(|region| {
            (region.at..region.end()).any(|byte| {
                live.is_none_or(|live| live.get(byte as usize).copied().unwrap_or(true))
            })
        });
        self.live_out = live_out;
        self.known.regions.clear();
    }

    /// The frame offset of `size` bytes at `addr + offset` when `addr` is known exactly and the
    /// bytes lie inside the frame.
    pub(crate) fn exact_range(&self, addr: Reg, offset: u32, size: u32) -> Option<u64> {
        let known = self
            .frame_offsets
            .get(&addr)
            .copied()
            .or(self.facts[addr.index()].frame_exact)?;
        let at = known + offset as u64;
        (at + size as u64 <= self.func.frame_size as u64).then_some(at)
    }

    /// The known content of `size` frame bytes at `at`, when one region holds all of them.
    pub(crate) fn known_bytes(&self, at: u64, size: u32) -> Option<Vec<u8>> {
        let end = at + size as u64;
        self.known
            .regions
            .iter()
            .find(|region| region.at <= at && end <= region.end())
            .map(|region| {
                let from = (at - region.at) as usize;
                region.bytes[from..from + size as usize].to_vec()
            })
    }

    /// Writes every pending region to memory (they stay known).
    pub(crate) fn flush_all(&mut self) {
        self.flush_where(|_| true);
    }

    /// Writes the pending regions that overlap `at..at + size` to memory.
    pub(crate) fn flush_overlapping(&mut self, at: u64, size: u32) {
        let end = at + size as u64;
        self.flush_where(|region| region.overlaps(at, end));
    }

    /// Makes memory hold what a read through `addr` (`size` bytes at `offset`) may see.
    pub(crate) fn flush_for_read(&mut self, addr: Reg, offset: u32, size: u32) {
        match self.exact_range(addr, offset, size) {
            Some(at) => self.flush_overlapping(at, size),
            None => self.flush_all(),
        }
    }

    fn flush_where(&mut self, mut select: impl FnMut(&Region) -> bool) {
        let mut regions = std::mem::take(&mut self.known.regions);
        for region in regions
            .iter_mut()
            .filter(|region| region.pending && select(region))
        {
            self.store_constant_bytes(region.at, &region.bytes);
            region.pending = false;
        }
        self.known.regions = regions;
    }

    /// Forgets (after writing out what is pending) every known byte.
    pub(crate) fn forget_all(&mut self) {
        self.flush_all();
        self.known.regions.clear();
    }

    /// Forgets the regions overlapping `at..at + size`, writing out their pending bytes first
    /// (bytes outside the range must still reach memory).
    pub(crate) fn forget_range(&mut self, at: u64, size: u32) {
        self.flush_overlapping(at, size);
        let end = at + size as u64;
        self.known
            .regions
            .retain(|region| !region.overlaps(at, end));
    }

    /// Forgets the regions overlapping `at..at + size`, which an instruction is about to
    /// overwrite entirely: a pending region inside the range is dropped unwritten, one
    /// reaching outside it is written out first.
    pub(crate) fn overwrite_range(&mut self, at: u64, size: u32) {
        let end = at + size as u64;
        self.known
            .regions
            .retain(|region| !(region.at >= at && region.end() <= end));
        self.forget_range(at, size);
    }

    /// Forgets what a write of `size` bytes through `addr` (at `offset`) may change.
    pub(crate) fn forget_written_by(&mut self, addr: Reg, size: u32) {
        match self.exact_range(addr, 0, size) {
            Some(at) => self.forget_range(at, size),
            None => self.forget_all(),
        }
    }

    /// Records that `bytes` at frame offset `at` will be there, without writing them yet.
    pub(crate) fn set_pending(&mut self, at: u64, bytes: Vec<u8>) {
        self.forget_range(at, bytes.len() as u32);
        if self.known.regions.len() >= MAX_REGIONS {
            let oldest = self.known.regions[0].clone();
            if oldest.pending {
                self.store_constant_bytes(oldest.at, &oldest.bytes);
            }
            self.known.regions.remove(0);
        }
        self.known.regions.push(Region {
            at,
            bytes,
            pending: true,
        });
    }

    /// Patches known bytes at `at` with `value` when a region holds all of them: a pending one
    /// absorbs the store (returns `true`: nothing to emit), a written one learns it (returns
    /// `false`: the store must still be emitted). Otherwise the overlapped regions are
    /// forgotten. (Regions never overlap: [`Self::set_pending`] forgets what a new one covers.)
    pub(crate) fn patch_known(&mut self, at: u64, value: &[u8]) -> bool {
        let end = at + value.len() as u64;
        match self
            .known
            .regions
            .iter_mut()
            .find(|region| region.at <= at && end <= region.end())
        {
            Some(region) => {
                let from = (at - region.at) as usize;
                region.bytes[from..from + value.len()].copy_from_slice(value);
                region.pending
            }
            None => {
                self.forget_range(at, value.len() as u32);
                false
            }
        }
    }

    /// The bits of `value` when it is an integer constant of the function being built.
    pub(crate) fn constant_bits(&self, value: ir::Value) -> Option<u64> {
        let dfg = &self.b.func.dfg;
        let ValueDef::Result(inst, _) = dfg.value_def(value) else {
            return None;
        };
        match dfg.insts[inst] {
            InstructionData::UnaryImm {
                opcode: Opcode::Iconst,
                imm,
            } => Some(imm.bits() as u64),
            _ => None,
        }
    }

    /// Stores `bytes` at frame offset `at` of the body being translated, widest chunks first.
    fn store_constant_bytes(&mut self, at: u64, bytes: &[u8]) {
        let mem = self.b.use_var(self.mem_ptr);
        let base = self.b.ins().iadd(mem, self.mem_base);
        for (offset, ty) in chunks(bytes.len() as u32, true) {
            let chunk = &bytes[offset as usize..][..ty.bytes() as usize];
            let value = self.constant_of(ty, chunk);
            self.b
                .ins()
                .store(vm_mem(), value, base, (at + offset as u64) as i32);
        }
    }

    /// A constant of type `ty` (an integer or `i8x16`) with these little-endian bytes.
    pub(crate) fn constant_of(&mut self, ty: ir::Type, bytes: &[u8]) -> ir::Value {
        if ty.is_vector() {
            let handle = self.b.func.dfg.constants.insert(bytes.to_vec().into());
            return self.b.ins().vconst(ty, handle);
        }
        let mut word = [0u8; 8];
        word[..bytes.len()].copy_from_slice(bytes);
        self.b.ins().iconst(ty, u64::from_le_bytes(word) as i64)
    }
}
