//! Building bytecode functions: a reusable [`FunctionBuilderContext`] that keeps its allocations
//! and a short-lived [`FunctionBuilder`] that borrows it (the shape of Cranelift's
//! `cranelift-frontend`).
//!
//! ```
//! use rpsl_vm::{BinaryOp, FunctionBuilder, FunctionBuilderContext, LocId, Signature, Type};
//! let mut ctx = FunctionBuilderContext::new();
//! let mut b = FunctionBuilder::new(&mut ctx, "add1", Signature::new([Type::I32], [Type::I32]));
//! let entry = b.create_block();
//! b.switch_to_block(entry);
//! b.set_loc(LocId::from_u32(0));
//! let one = b.iconst_i32(1);
//! let sum = b.binary(BinaryOp::AddI32, b.param(0), one);
//! b.ret(&[sum]);
//! let function = b.finish();
//! assert_eq!(function.insts.len(), 3);
//! ```

use crate::entities::{Block, FuncId, LocId, NodeDeclId, Reg, RegList};
use crate::function::{BlockData, Function, Signature};
use crate::inst::{ConstBits, Inst, VectorShape};
use crate::ops::{BinaryOp, MarkerKind, TernaryOp, UnaryOp};
use crate::types::{Type, Value};

/// Reusable scratch of [`FunctionBuilder`]: per-block instruction lists and the register table.
#[derive(Default)]
pub struct FunctionBuilderContext {
    block_insts: Vec<Vec<(Inst, LocId)>>,
    n_blocks: usize,
    /// Blocks in the order they were first switched to: the layout order of the function.
    layout: Vec<Block>,
    /// Whether each block has been switched to.
    placed: Vec<bool>,
    reg_types: Vec<Type>,
    reg_lists: Vec<Reg>,
}

impl FunctionBuilderContext {
    /// A context with no allocations yet.
    pub fn new() -> FunctionBuilderContext {
        FunctionBuilderContext::default()
    }

    fn clear(&mut self) {
        for insts in &mut self.block_insts {
            insts.clear();
        }
        self.n_blocks = 0;
        self.layout.clear();
        self.placed.clear();
        self.reg_types.clear();
        self.reg_lists.clear();
    }
}

/// Where the builder appends.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Position {
    /// No block selected yet.
    Nowhere,
    /// Appending to this block.
    At(Block),
}

/// Builds one [`Function`]; [`FunctionBuilder::finish`] flattens it.
///
/// Misuse (appending with no current block, or after the block's terminator) is caught by
/// `debug_assert!` here and, in every build, by the verifier.
pub struct FunctionBuilder<'a> {
    ctx: &'a mut FunctionBuilderContext,
    name: String,
    signature: Signature,
    frame_size: u32,
    position: Position,
    loc: LocId,
}

impl<'a> FunctionBuilder<'a> {
    /// Starts a function; registers `v0..vN` are created for the parameters.
    pub fn new(
        ctx: &'a mut FunctionBuilderContext,
        name: &str,
        signature: Signature,
    ) -> FunctionBuilder<'a> {
        ctx.clear();
        ctx.reg_types.extend_from_slice(&signature.params);
        FunctionBuilder {
            ctx,
            name: name.to_string(),
            signature,
            frame_size: 0,
            position: Position::Nowhere,
            loc: LocId::from_u32(0),
        }
    }

    /// The register of parameter `index`.
    ///
    /// # Panics
    /// When there is no such parameter.
    pub fn param(&self, index: usize) -> Reg {
        assert!(index < self.signature.params.len(), "no parameter {index}");
        Reg::from_u32(index as u32)
    }

    /// A fresh register of type `ty`.
    pub fn new_reg(&mut self, ty: Type) -> Reg {
        let reg = Reg::from_u32(self.ctx.reg_types.len() as u32);
        self.ctx.reg_types.push(ty);
        reg
    }

    /// The number of registers made so far, parameters included.
    pub fn reg_count(&self) -> usize {
        self.ctx.reg_types.len()
    }

    /// The type of a register made by this builder.
    pub fn reg_type(&self, reg: Reg) -> Option<Type> {
        self.ctx.reg_types.get(reg.index()).copied()
    }

    /// A new, empty block (the first one made is the entry, `block0`).
    pub fn create_block(&mut self) -> Block {
        let block = Block::from_u32(self.ctx.n_blocks as u32);
        if self.ctx.block_insts.len() == self.ctx.n_blocks {
            self.ctx.block_insts.push(Vec::new());
        }
        self.ctx.n_blocks += 1;
        self.ctx.placed.push(false);
        block
    }

    /// Makes `block` the block that instructions are appended to.
    ///
    /// Blocks are laid out in the order they are first switched to, and [`FunctionBuilder::finish`]
    /// renumbers them in that order. The verifier requires `jump` and `br` to go forward in the
    /// layout and `jump.loop` backward, so switch to blocks in program order (loop header, body,
    /// exit), as a structured lowering does naturally.
    pub fn switch_to_block(&mut self, block: Block) {
        debug_assert!(block.index() < self.ctx.n_blocks, "{block} was not created");
        if let Some(placed) = self.ctx.placed.get_mut(block.index()) {
            if !*placed {
                *placed = true;
                self.ctx.layout.push(block);
            }
        }
        self.position = Position::At(block);
    }

    /// The current block, if any.
    pub fn current_block(&self) -> Option<Block> {
        match self.position {
            Position::Nowhere => None,
            Position::At(block) => Some(block),
        }
    }

    /// Whether the current block already ends in a terminator.
    pub fn is_terminated(&self) -> bool {
        match self.position {
            Position::Nowhere => false,
            Position::At(block) => self.ctx.block_insts[block.index()]
                .last()
                .is_some_and(|(inst, _)| inst.is_terminator()),
        }
    }

    /// Sets the source location of the instructions appended from now on.
    pub fn set_loc(&mut self, loc: LocId) {
        self.loc = loc;
    }

    /// Bytes of frame memory reserved so far.
    pub fn frame_size(&self) -> u32 {
        self.frame_size
    }

    /// Reserves `size` bytes of frame memory aligned to `align` (a power of two) and returns the
    /// frame offset.
    pub fn alloc_frame(&mut self, size: u32, align: u32) -> u32 {
        let align = align.max(1);
        let offset = self.frame_size.div_ceil(align).saturating_mul(align);
        self.frame_size = offset.saturating_add(size);
        offset
    }

    /// Stores registers in the list pool and returns the list operand.
    pub fn reg_list(&mut self, regs: &[Reg]) -> RegList {
        let start = self.ctx.reg_lists.len() as u32;
        self.ctx.reg_lists.extend_from_slice(regs);
        RegList {
            start,
            len: regs.len() as u32,
        }
    }

    /// Appends any instruction to the current block.
    pub fn ins(&mut self, inst: Inst) {
        debug_assert!(
            !self.is_terminated(),
            "appending {inst:?} after a terminator"
        );
        match self.position {
            Position::At(block) => self.ctx.block_insts[block.index()].push((inst, self.loc)),
            Position::Nowhere => debug_assert!(false, "appending {inst:?} with no current block"),
        }
    }

    /// `dst = const value`, into a new register.
    pub fn constant(&mut self, value: Value) -> Reg {
        let dst = self.new_reg(value.ty());
        self.ins(Inst::Const {
            ty: value.ty(),
            dst,
            bits: ConstBits::from_u64(value.to_bits()),
        });
        dst
    }

    /// An `i32` constant.
    pub fn iconst_i32(&mut self, value: i32) -> Reg {
        self.constant(Value::I32(value))
    }

    /// A `u32` constant.
    pub fn iconst_u32(&mut self, value: u32) -> Reg {
        self.constant(Value::U32(value))
    }

    /// An `f32` constant.
    pub fn fconst_f32(&mut self, value: f32) -> Reg {
        self.constant(Value::F32(value))
    }

    /// A `bool` constant.
    pub fn bconst(&mut self, value: bool) -> Reg {
        self.constant(Value::Bool(value))
    }

    /// `dst = move src` into an existing register (assigning a variable).
    pub fn assign(&mut self, dst: Reg, src: Reg) {
        self.ins(Inst::Move { dst, src });
    }

    /// A unary op into a new register of the op's result type.
    pub fn unary(&mut self, op: UnaryOp, src: Reg) -> Reg {
        let dst = self.new_reg(op.result_type());
        self.ins(Inst::Unary { op, dst, src });
        dst
    }

    /// A binary op into a new register of the op's result type.
    pub fn binary(&mut self, op: BinaryOp, a: Reg, b: Reg) -> Reg {
        let dst = self.new_reg(op.result_type());
        self.ins(Inst::Binary { op, dst, a, b });
        dst
    }

    /// A binary op into an existing register (`i = i + 1`).
    pub fn binary_into(&mut self, op: BinaryOp, dst: Reg, a: Reg, b: Reg) {
        self.ins(Inst::Binary { op, dst, a, b });
    }

    /// A ternary op into a new register.
    pub fn ternary(&mut self, op: TernaryOp, a: Reg, b: Reg, c: Reg) -> Reg {
        let dst = self.new_reg(op.result_type());
        self.ins(Inst::Ternary { op, dst, a, b, c });
        dst
    }

    /// `convert.to.from` into a new register; `from` is the type of `src`.
    pub fn convert(&mut self, to: Type, src: Reg) -> Reg {
        let from = self.reg_type(src).unwrap_or(Type::Addr);
        let dst = self.new_reg(to);
        self.ins(Inst::Convert { to, from, dst, src });
        dst
    }

    /// `bitcast.to.from` into a new register.
    pub fn bitcast(&mut self, to: Type, src: Reg) -> Reg {
        let from = self.reg_type(src).unwrap_or(Type::Addr);
        let dst = self.new_reg(to);
        self.ins(Inst::Bitcast { to, from, dst, src });
        dst
    }

    /// `select cond, a, b` into a new register of `a`'s type.
    pub fn select(&mut self, cond: Reg, a: Reg, b: Reg) -> Reg {
        let dst = self.new_reg(self.reg_type(a).unwrap_or(Type::Addr));
        self.ins(Inst::Select { dst, cond, a, b });
        dst
    }

    /// A vector op over lane registers; returns the result registers.
    pub fn vector(&mut self, shape: VectorShape, srcs: &[Reg]) -> Vec<Reg> {
        let n_results = shape.op.arity(shape.width).map_or(0, |(_, n)| n);
        let results: Vec<Reg> = (0..n_results).map(|_| self.new_reg(shape.ty)).collect();
        let dsts = self.reg_list(&results);
        let srcs = self.reg_list(srcs);
        self.ins(Inst::Vector { shape, dsts, srcs });
        results
    }

    /// The address of a frame offset.
    pub fn frame_addr(&mut self, offset: u32) -> Reg {
        let dst = self.new_reg(Type::Addr);
        self.ins(Inst::FrameAddr { dst, offset });
        dst
    }

    /// `base + offset`.
    pub fn addr_add(&mut self, base: Reg, offset: u32) -> Reg {
        let dst = self.new_reg(Type::Addr);
        self.ins(Inst::AddrAdd { dst, base, offset });
        dst
    }

    /// `base + index * stride` after checking `index < len`.
    pub fn index_addr(&mut self, base: Reg, index: Reg, stride: u32, len: u32) -> Reg {
        let dst = self.new_reg(Type::Addr);
        self.ins(Inst::IndexAddr {
            dst,
            base,
            index,
            stride,
            len,
        });
        dst
    }

    /// Loads a `ty` at `addr + offset` into a new register.
    pub fn load(&mut self, ty: Type, addr: Reg, offset: u32) -> Reg {
        let dst = self.new_reg(ty);
        self.ins(Inst::Load {
            ty,
            dst,
            addr,
            offset,
        });
        dst
    }

    /// Stores `src` (of its register type) at `addr + offset`.
    pub fn store(&mut self, addr: Reg, offset: u32, src: Reg) {
        let ty = self.reg_type(src).unwrap_or(Type::Addr);
        self.ins(Inst::Store {
            ty,
            addr,
            offset,
            src,
        });
    }

    /// Copies `size` bytes.
    pub fn mem_copy(&mut self, dst_addr: Reg, src_addr: Reg, size: u32) {
        self.ins(Inst::MemCopy {
            dst_addr,
            src_addr,
            size,
        });
    }

    /// Host call: records a node call; returns the node id register (`u32`).
    pub fn call_node(&mut self, decl: NodeDeclId, args: Reg, size: u32, flags: u32) -> Reg {
        let dst = self.new_reg(Type::U32);
        self.ins(Inst::CallNode {
            dst,
            decl,
            args,
            size,
            flags,
        });
        dst
    }

    /// Host call: a scheduler marker.
    pub fn marker(&mut self, kind: MarkerKind, arg: u32) {
        self.ins(Inst::Marker { kind, arg });
    }

    /// Calls `callee`, writing its results into `results` (registers the caller made).
    pub fn call_into(&mut self, callee: FuncId, args: &[Reg], results: &[Reg]) {
        let args = self.reg_list(args);
        let results = self.reg_list(results);
        self.ins(Inst::Call {
            callee,
            args,
            results,
        });
    }

    /// Calls `callee` (whose signature is `signature`); returns new result registers.
    pub fn call(&mut self, callee: FuncId, signature: &Signature, args: &[Reg]) -> Vec<Reg> {
        let results: Vec<Reg> = signature
            .returns
            .iter()
            .map(|&ty| self.new_reg(ty))
            .collect();
        self.call_into(callee, args, &results);
        results
    }

    /// Terminator: `jump target`.
    pub fn jump(&mut self, target: Block) {
        self.ins(Inst::Jump { target });
    }

    /// Terminator: a loop back-edge to `target` (counts one step).
    pub fn loop_jump(&mut self, target: Block) {
        self.ins(Inst::LoopJump { target });
    }

    /// Terminator: `br cond, then_block, else_block`.
    pub fn branch(&mut self, cond: Reg, then_block: Block, else_block: Block) {
        self.ins(Inst::Branch {
            cond,
            then_block,
            else_block,
        });
    }

    /// Terminator: `ret values`.
    pub fn ret(&mut self, values: &[Reg]) {
        let values = self.reg_list(values);
        self.ins(Inst::Return { values });
    }

    /// Terminator: `abort code` (`code` is an `i32` register).
    pub fn abort(&mut self, code: Reg) {
        self.ins(Inst::Abort { code });
    }

    /// Flattens the blocks into a [`Function`], in layout order (see
    /// [`FunctionBuilder::switch_to_block`]; blocks never switched to come last), renumbering
    /// branch targets to match. The context keeps its allocations for the next function. Run the
    /// verifier (through [`crate::Module::verify`]) before executing it.
    pub fn finish(self) -> Function {
        let ctx = self.ctx;
        let mut order = ctx.layout.clone();
        order.extend(
            (0..ctx.n_blocks as u32)
                .map(Block::from_u32)
                .filter(|b| !ctx.placed[b.index()]),
        );
        let mut new_index = vec![0u32; ctx.n_blocks];
        for (position, block) in order.iter().enumerate() {
            new_index[block.index()] = position as u32;
        }
        let renumber = |block: Block| match new_index.get(block.index()) {
            Some(&index) => Block::from_u32(index),
            // A target that was never created keeps its (out of range) number for the verifier.
            None => block,
        };
        let n_insts: usize = ctx.block_insts[..ctx.n_blocks].iter().map(Vec::len).sum();
        let mut insts = Vec::with_capacity(n_insts);
        let mut locs = Vec::with_capacity(n_insts);
        let mut blocks = Vec::with_capacity(ctx.n_blocks);
        for block in &order {
            let block_insts = &ctx.block_insts[block.index()];
            blocks.push(BlockData {
                start: insts.len() as u32,
                len: block_insts.len() as u32,
            });
            for &(inst, loc) in block_insts {
                let inst = match inst {
                    Inst::Jump { target } => Inst::Jump {
                        target: renumber(target),
                    },
                    Inst::LoopJump { target } => Inst::LoopJump {
                        target: renumber(target),
                    },
                    Inst::Branch {
                        cond,
                        then_block,
                        else_block,
                    } => Inst::Branch {
                        cond,
                        then_block: renumber(then_block),
                        else_block: renumber(else_block),
                    },
                    other => other,
                };
                insts.push(inst);
                locs.push(loc);
            }
        }
        Function {
            name: self.name,
            signature: self.signature,
            reg_types: ctx.reg_types.clone(),
            frame_size: self.frame_size,
            insts,
            locs,
            blocks,
            reg_lists: ctx.reg_lists.clone(),
        }
    }
}
