//! The memory an instruction reads and writes by itself (a callee's accesses are its own): one
//! definition for the JIT's analyses of frame bytes (frame liveness in `frame_init.rs`, scalar
//! replacement in `promote.rs`).

use crate::entities::Reg;
use crate::host::{RESOURCE_DESC_SIZE, VIEW_SIZE};
use crate::inst::Inst;
use crate::types::Type;

/// One memory access of an instruction: `size` bytes at `offset` from `addr`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Access {
    pub addr: Reg,
    pub offset: u32,
    pub size: u32,
    pub write: bool,
    /// A `mem_copy` or `mem_eq` side or `mem_zero`: may be a whole-slot access.
    pub whole_op: bool,
}

/// The memory accesses of `inst`, reads before writes (none for a call: its callee's are its
/// own).
pub(crate) fn accesses(inst: &Inst) -> impl Iterator<Item = Access> {
    let access = |addr, offset, size, write, whole_op| {
        Some(Access {
            addr,
            offset,
            size,
            write,
            whole_op,
        })
    };
    let pair = match *inst {
        Inst::Load {
            ty, addr, offset, ..
        } => [access(addr, offset, mem_size(ty), false, false), None],
        Inst::Store {
            ty, addr, offset, ..
        } => [access(addr, offset, mem_size(ty), true, false), None],
        Inst::MemCopy {
            dst_addr,
            src_addr,
            size,
        } => [
            access(src_addr, 0, size, false, true),
            access(dst_addr, 0, size, true, true),
        ],
        Inst::MemZero { addr, size } => [access(addr, 0, size, true, true), None],
        Inst::MemEq { a, b, size, .. } => [
            access(a, 0, size, false, true),
            access(b, 0, size, false, true),
        ],
        Inst::CreateResource { desc, view_out } => [
            access(desc, 0, RESOURCE_DESC_SIZE, false, false),
            access(view_out, 0, VIEW_SIZE, true, false),
        ],
        Inst::DescribeResource { view, desc_out } => [
            access(view, 0, VIEW_SIZE, false, false),
            access(desc_out, 0, RESOURCE_DESC_SIZE, true, false),
        ],
        Inst::CallNode { args, size, .. } => [access(args, 0, size, false, false), None],
        Inst::Call { .. }
        | Inst::Const { .. }
        | Inst::Move { .. }
        | Inst::Unary { .. }
        | Inst::Binary { .. }
        | Inst::Ternary { .. }
        | Inst::Select { .. }
        | Inst::Vector { .. }
        | Inst::Convert { .. }
        | Inst::Bitcast { .. }
        | Inst::FrameAddr { .. }
        | Inst::AddrAdd { .. }
        | Inst::IndexAddr { .. }
        | Inst::Marker { .. }
        | Inst::Jump { .. }
        | Inst::LoopJump { .. }
        | Inst::Branch { .. }
        | Inst::Return { .. }
        | Inst::Abort { .. } => [None, None],
    };
    pair.into_iter().flatten()
}

/// Bytes a `load`/`store` of `ty` touches (as the translator checks them).
pub(crate) fn mem_size(ty: Type) -> u32 {
    ty.mem_size().unwrap_or(4)
}
