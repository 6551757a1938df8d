//! Typed `u32` ids of the bytecode: registers, blocks, functions, source locations, node declarations.
//!
//! Each id's `Display` matches the text form of the disassembler (`v3`, `block2`, `fn1`, `loc7`,
//! `decl4`). They come from `rpsl-types`' one id macro, `define_id!`. Ids index dense tables owned
//! by a [`Function`](crate::Function) or a [`Module`](crate::Module); an id is only meaningful
//! next to the table it came from.

use rpsl_types::define_id;

define_id!(
    /// A typed virtual register of one function (`v3`). Registers are mutable variables, not SSA
    /// values: an instruction may redefine a register, and the JIT maps each one to a Cranelift
    /// `Variable`.
    Reg,
    "v"
);
define_id!(
    /// A basic block of one function (`block2`); `block0` is the entry.
    Block,
    "block"
);
define_id!(
    /// A function of a module (`fn1`).
    FuncId,
    "fn"
);
define_id!(
    /// A source location: an index into the location table the lowering provides (`loc7`).
    LocId,
    "loc"
);
define_id!(
    /// A node declaration, numbered by the embedder (the lowering); the host knows what it means.
    NodeDeclId,
    "decl"
);

/// A run of registers stored in a function's register-list pool (call arguments, call results,
/// return values, vector operands). Kept out of line so that [`Inst`](crate::Inst) stays small.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct RegList {
    /// First index into the pool.
    pub start: u32,
    /// Number of registers.
    pub len: u32,
}

impl RegList {
    /// The empty list.
    pub const EMPTY: RegList = RegList { start: 0, len: 0 };

    /// The pool index range of this list, or `None` when it does not fit in a pool of `pool_len`.
    pub fn range_in(self, pool_len: usize) -> Option<std::ops::Range<usize>> {
        let start = self.start as usize;
        let end = start.checked_add(self.len as usize)?;
        (end <= pool_len).then_some(start..end)
    }
}
