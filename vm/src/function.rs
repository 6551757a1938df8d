//! Functions and modules: the containers the builder fills, the verifier checks and the
//! interpreter (later the JIT) runs.

use crate::entities::{Block, FuncId, LocId, Reg, RegList};
use crate::inst::Inst;
use crate::types::Type;

/// Parameter and result types of a function. Parameters arrive in registers `v0..vN`.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Signature {
    /// Parameter types; aggregates are passed as `addr` (the lowering does copy-in/copy-out).
    pub params: Vec<Type>,
    /// Result types.
    pub returns: Vec<Type>,
}

impl Signature {
    /// Makes a signature.
    pub fn new(params: impl Into<Vec<Type>>, returns: impl Into<Vec<Type>>) -> Signature {
        Signature {
            params: params.into(),
            returns: returns.into(),
        }
    }
}

/// The instruction range of one block inside [`Function::insts`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct BlockData {
    /// Index of the first instruction.
    pub start: u32,
    /// Number of instructions (the last one is the terminator).
    pub len: u32,
}

/// One bytecode function in its flat, compact form.
///
/// Blocks are stored back to back in `insts` (block `i` is `blocks[i]`); `locs` gives the source
/// location of each instruction. The first `signature.params.len()` registers are the parameters.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Function {
    /// Name (for the disassembly and lookups by the embedder).
    pub name: String,
    /// Parameter and result types.
    pub signature: Signature,
    /// The type of each register; `v0..vN` are the parameters.
    pub reg_types: Vec<Type>,
    /// Size in bytes of the zero-initialised frame memory of one call.
    pub frame_size: u32,
    /// Every instruction, block after block.
    pub insts: Vec<Inst>,
    /// Source location of each instruction (same length as `insts`).
    pub locs: Vec<LocId>,
    /// Instruction range of each block; `block0` is the entry.
    pub blocks: Vec<BlockData>,
    /// Pool that [`RegList`] operands index.
    pub reg_lists: Vec<Reg>,
}

impl Function {
    /// The registers of a list; empty when the list is out of the pool's range (only possible in
    /// unverified functions).
    pub fn list(&self, list: RegList) -> &[Reg] {
        match list.range_in(self.reg_lists.len()) {
            Some(range) => &self.reg_lists[range],
            None => &[],
        }
    }

    /// The instructions of a block, or an empty slice for a block that does not exist.
    pub fn block_insts(&self, block: Block) -> &[Inst] {
        match self.block_range(block) {
            Some(range) => &self.insts[range],
            None => &[],
        }
    }

    /// The index range of a block's instructions in `insts`, when it is in range.
    pub fn block_range(&self, block: Block) -> Option<std::ops::Range<usize>> {
        let data = self.blocks.get(block.index())?;
        let start = data.start as usize;
        let end = start.checked_add(data.len as usize)?;
        (end <= self.insts.len()).then_some(start..end)
    }

    /// The type of a register, when it exists.
    pub fn reg_type(&self, reg: Reg) -> Option<Type> {
        self.reg_types.get(reg.index()).copied()
    }

    /// The parameter registers `v0..vN`.
    pub fn params(&self) -> impl Iterator<Item = Reg> {
        (0..self.signature.params.len() as u32).map(Reg::from_u32)
    }
}

/// A set of functions that call each other by [`FuncId`].
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Module {
    /// The functions; `FuncId(i)` is `functions[i]`.
    pub functions: Vec<Function>,
}

impl Module {
    /// An empty module.
    pub fn new() -> Module {
        Module::default()
    }

    /// Reserves a function id with a name and signature before its body exists (so that calls
    /// to it can be built first). Fill the body with [`Module::define_function`].
    pub fn declare_function(&mut self, name: &str, signature: Signature) -> FuncId {
        let id = FuncId::from_u32(self.functions.len() as u32);
        let reg_types = signature.params.clone();
        self.functions.push(Function {
            name: name.to_string(),
            signature,
            reg_types,
            ..Function::default()
        });
        id
    }

    /// Stores a built function under a declared id, replacing the placeholder.
    ///
    /// # Panics
    /// When `id` was not declared in this module.
    pub fn define_function(&mut self, id: FuncId, function: Function) {
        self.functions[id.index()] = function;
    }

    /// Adds a built function and returns its id.
    pub fn add_function(&mut self, function: Function) -> FuncId {
        let id = FuncId::from_u32(self.functions.len() as u32);
        self.functions.push(function);
        id
    }

    /// The function with this id.
    pub fn function(&self, id: FuncId) -> Option<&Function> {
        self.functions.get(id.index())
    }

    /// The id of the first function with this name.
    pub fn function_by_name(&self, name: &str) -> Option<FuncId> {
        self.functions
            .iter()
            .position(|f| f.name == name)
            .map(|i| FuncId::from_u32(i as u32))
    }

    /// Checks every invariant of [`crate::verifier`]; the interpreter only runs verified modules.
    pub fn verify(self) -> Result<VerifiedModule, crate::verifier::VerifyErrors> {
        crate::verifier::verify_module(&self)?;
        let step_charges = crate::step_cost::module_charges(&self);
        Ok(VerifiedModule {
            module: self,
            step_charges,
        })
    }
}

/// A module that passed the verifier; the only form the interpreter (and the JIT) accept, so
/// that their hot loops can trust register types, block targets and call signatures.
#[derive(Clone, PartialEq, Debug)]
pub struct VerifiedModule {
    module: Module,
    /// Per function, the step charge of each instruction ([`crate::step_cost`]).
    step_charges: Vec<Vec<u64>>,
}

impl VerifiedModule {
    /// The verified module.
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// The steps each instruction of `func` charges to the budget when it runs: nonzero exactly
    /// at `jump.loop` and `call` (see [`crate::step_cost`]); empty for a function that does not
    /// exist.
    pub fn step_charges(&self, func: FuncId) -> &[u64] {
        self.step_charges
            .get(func.index())
            .map_or(&[], Vec::as_slice)
    }

    /// Gives the module back (for editing; verify it again to run it).
    pub fn into_inner(self) -> Module {
        self.module
    }
}

impl std::ops::Deref for VerifiedModule {
    type Target = Module;

    fn deref(&self) -> &Module {
        &self.module
    }
}
