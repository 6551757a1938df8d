//! The bytecode verifier: the checks that let the interpreter and the JIT trust a module.
//!
//! Invariants checked, per function:
//! 1. **Shape**: at least one block; `blocks` tile `insts` back to back in order; `locs` has one
//!    entry per instruction; `reg_types` starts with the parameter types; the frame is at most
//!    [`MAX_FRAME_SIZE`] bytes and the function has at most [`MAX_REGS`] registers.
//! 2. **Blocks end in a terminator**: every block is non-empty, its last instruction is a
//!    terminator (`jump`, `jump.loop`, `br`, `ret`, `abort`) and no other instruction is.
//! 3. **Operands exist**: every register is below the register count, every register list lies in
//!    the pool, every branch target is a block of the function, every callee a function of the
//!    module.
//! 4. **Types match**: each operand has the type the op requires (tables in [`crate::ops`]);
//!    `const` bits are canonical for their type and never `addr`; `convert` is between non-`addr`
//!    types; `bitcast` is between different numeric types of equal size; `load`/`store` types are not `addr`;
//!    memory operands are `addr`; `br` conditions are `bool`;
//!    `abort` codes are `i32`; `call_node` results are `u32`; vector shapes are `f32`/`f64` with a
//!    valid width and list lengths matching [`crate::VectorOp::arity`].
//! 5. **Calls match signatures**: argument count and types equal the callee's parameters, result
//!    registers its returns; `ret` values match the function's own returns.
//! 6. **Frame offsets**: `frame_addr` offsets are at most the frame size; `index_addr` has
//!    `len > 0` and `stride * len` fits in `u32`.
//! 7. **Every cycle is counted**: `jump` and `br` targets lie after the current block in the
//!    layout, `jump.loop` targets at or before it, so every cycle of the CFG passes a `jump.loop`,
//!    which charges the step budget for the loop's instructions (calls charge their callee's
//!    body, so recursion is bounded as well; see [`crate::step_cost`]).
//! 8. **Defined before use**: on every path from the entry, each register is written before it is
//!    read (parameters are written on entry). Unreachable blocks are not checked.

use crate::entities::{Block, FuncId, Reg, RegList};
use crate::function::{Function, Module};
use crate::inst::{Inst, Operand};
use crate::types::{Type, Value};
use std::fmt;

/// Largest frame a function may declare (16 MiB).
pub const MAX_FRAME_SIZE: u32 = 1 << 24;
/// Most registers a function may have.
pub const MAX_REGS: usize = 1 << 20;

/// One verifier finding.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct VerifyError {
    /// The function.
    pub func: FuncId,
    /// The block, when the finding is about one.
    pub block: Option<Block>,
    /// The instruction index inside the block, when the finding is about one.
    pub inst: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.func)?;
        if let Some(block) = self.block {
            write!(f, " {block}")?;
        }
        if let Some(inst) = self.inst {
            write!(f, " inst {inst}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Every finding of one verification (never empty).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct VerifyErrors(pub Vec<VerifyError>);

impl fmt::Display for VerifyErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, error) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{error}")?;
        }
        Ok(())
    }
}

impl std::error::Error for VerifyErrors {}

/// Verifies every function of a module.
pub fn verify_module(module: &Module) -> Result<(), VerifyErrors> {
    let mut errors = Vec::new();
    for (index, function) in module.functions.iter().enumerate() {
        FunctionVerifier {
            module,
            function,
            func: FuncId::from_u32(index as u32),
            errors: &mut errors,
        }
        .run();
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(VerifyErrors(errors))
    }
}

struct FunctionVerifier<'a> {
    module: &'a Module,
    function: &'a Function,
    func: FuncId,
    errors: &'a mut Vec<VerifyError>,
}

impl FunctionVerifier<'_> {
    fn error(&mut self, block: Option<Block>, inst: Option<usize>, message: String) {
        self.errors.push(VerifyError {
            func: self.func,
            block,
            inst,
            message,
        });
    }

    fn run(&mut self) {
        let before = self.errors.len();
        self.check_shape();
        if self.errors.len() > before {
            return;
        }
        for block_index in 0..self.function.blocks.len() {
            self.check_block(Block::from_u32(block_index as u32));
        }
        if self.errors.len() > before {
            return;
        }
        self.check_definitions();
    }

    fn check_shape(&mut self) {
        let f = self.function;
        if f.blocks.is_empty() {
            self.error(None, None, "function has no blocks".into());
        }
        if f.locs.len() != f.insts.len() {
            self.error(
                None,
                None,
                format!(
                    "{} locations for {} instructions",
                    f.locs.len(),
                    f.insts.len()
                ),
            );
        }
        let mut next = 0u64;
        for (index, data) in f.blocks.iter().enumerate() {
            if data.start as u64 != next {
                self.error(
                    Some(Block::from_u32(index as u32)),
                    None,
                    "blocks do not tile the instructions".into(),
                );
                return;
            }
            next += data.len as u64;
        }
        if next != f.insts.len() as u64 {
            self.error(None, None, "blocks do not cover every instruction".into());
        }
        let n_params = f.signature.params.len();
        if f.reg_types.len() < n_params || f.reg_types[..n_params] != f.signature.params[..] {
            self.error(
                None,
                None,
                "the first registers must have the parameter types".into(),
            );
        }
        if f.reg_types.len() > MAX_REGS {
            self.error(
                None,
                None,
                format!(
                    "{} registers exceed the limit of {MAX_REGS}",
                    f.reg_types.len()
                ),
            );
        }
        if f.frame_size > MAX_FRAME_SIZE {
            self.error(
                None,
                None,
                format!(
                    "frame of {} bytes exceeds the limit of {MAX_FRAME_SIZE}",
                    f.frame_size
                ),
            );
        }
    }

    fn reg_ty(&self, reg: Reg) -> Option<Type> {
        self.function.reg_type(reg)
    }

    fn check_block(&mut self, block: Block) {
        let f = self.function;
        let insts = f.block_insts(block);
        if insts.is_empty() {
            self.error(Some(block), None, "empty block".into());
            return;
        }
        for (index, inst) in insts.iter().enumerate() {
            let last = index + 1 == insts.len();
            if inst.is_terminator() != last {
                let message = if last {
                    "block does not end in a terminator"
                } else {
                    "terminator before the end of the block"
                };
                self.error(Some(block), Some(index), message.into());
            }
            let mut problems = Vec::new();
            self.check_edges(block, inst, &mut problems);
            self.check_operands_exist(inst, &mut problems);
            if problems.is_empty() {
                self.check_types(inst, &mut problems);
            }
            for message in problems {
                self.error(Some(block), Some(index), message);
            }
        }
    }

    fn check_edges(&self, block: Block, inst: &Inst, problems: &mut Vec<String>) {
        match *inst {
            Inst::Jump { target } if target <= block => {
                problems.push(format!(
                    "jump to {target} goes backward; back-edges must use jump.loop"
                ));
            }
            Inst::Branch {
                then_block,
                else_block,
                ..
            } if then_block <= block || else_block <= block => {
                problems.push("br targets must lie after the current block".into());
            }
            Inst::LoopJump { target } if target > block => {
                problems.push(format!("jump.loop to {target} goes forward"));
            }
            _ => {}
        }
    }

    fn check_operands_exist(&self, inst: &Inst, problems: &mut Vec<String>) {
        let f = self.function;
        let n_regs = f.reg_types.len();
        let check_list =
            |list: RegList, problems: &mut Vec<String>| match list.range_in(f.reg_lists.len()) {
                None => problems.push("register list out of the pool".into()),
                Some(range) => {
                    for reg in &f.reg_lists[range] {
                        if reg.index() >= n_regs {
                            problems.push(format!("register {reg} does not exist"));
                        }
                    }
                }
            };
        inst.for_each_operand(|operand| match operand {
            Operand::Def(reg) | Operand::Use(reg) if reg.index() >= n_regs => {
                problems.push(format!("register {reg} does not exist"));
            }
            Operand::DefList(list) | Operand::UseList(list) => check_list(list, problems),
            Operand::Target(block) if block.index() >= f.blocks.len() => {
                problems.push(format!("branch target {block} does not exist"));
            }
            _ => {}
        });
        if let Inst::Call { callee, .. } = inst {
            if callee.index() >= self.module.functions.len() {
                problems.push(format!("callee {callee} does not exist"));
            }
        }
    }

    fn check_types(&self, inst: &Inst, problems: &mut Vec<String>) {
        let f = self.function;
        let expect = |problems: &mut Vec<String>, reg: Reg, ty: Type, what: &str| {
            if let Some(actual) = self.reg_ty(reg) {
                if actual != ty {
                    problems.push(format!("{what} {reg} is {actual}, expected {ty}"));
                }
            }
        };
        match *inst {
            Inst::Const { ty, dst, bits } => {
                expect(problems, dst, ty, "result");
                if !Value::bits_are_canonical(ty, bits.to_u64()) {
                    problems.push(format!("constant bits {bits} are not a valid {ty}"));
                }
            }
            Inst::Move { dst, src } => {
                if let Some(ty) = self.reg_ty(src) {
                    expect(problems, dst, ty, "result");
                }
            }
            Inst::Unary { op, dst, src } => {
                expect(problems, src, op.operand_type(), "operand");
                expect(problems, dst, op.result_type(), "result");
            }
            Inst::Binary { op, dst, a, b } => {
                expect(problems, a, op.operand_type(), "operand");
                expect(problems, b, op.operand_type(), "operand");
                expect(problems, dst, op.result_type(), "result");
            }
            Inst::Ternary { op, dst, a, b, c } => {
                for reg in [a, b, c] {
                    expect(problems, reg, op.operand_type(), "operand");
                }
                expect(problems, dst, op.result_type(), "result");
            }
            Inst::Convert { to, from, dst, src } => {
                if !to.is_scalar() || !from.is_scalar() {
                    problems.push("convert cannot involve addr".into());
                }
                expect(problems, src, from, "operand");
                expect(problems, dst, to, "result");
            }
            Inst::Bitcast { to, from, dst, src } => {
                let numeric = |ty: Type| ty.is_int() || ty.is_float();
                if !numeric(to) || !numeric(from) || to == from || to.mem_size() != from.mem_size()
                {
                    problems.push(format!("cannot bitcast {from} to {to}"));
                }
                expect(problems, src, from, "operand");
                expect(problems, dst, to, "result");
            }
            Inst::Select { dst, cond, a, b } => {
                expect(problems, cond, Type::Bool, "condition");
                if let Some(ty) = self.reg_ty(a) {
                    expect(problems, b, ty, "operand");
                    expect(problems, dst, ty, "result");
                }
            }
            Inst::Vector { shape, dsts, srcs } => match shape.op.arity(shape.width) {
                Some((n_srcs, n_dsts)) if shape.ty.is_float() => {
                    if srcs.len as usize != n_srcs || dsts.len as usize != n_dsts {
                        problems.push(format!(
                            "{shape} takes {n_srcs} sources and {n_dsts} results"
                        ));
                    }
                    for &reg in f.list(srcs).iter().chain(f.list(dsts)) {
                        expect(problems, reg, shape.ty, "lane");
                    }
                }
                _ => problems.push(format!("invalid vector shape {shape}")),
            },
            Inst::FrameAddr { dst, offset } => {
                expect(problems, dst, Type::Addr, "result");
                if offset > f.frame_size {
                    problems.push(format!(
                        "frame offset {offset} is beyond the frame size {}",
                        f.frame_size
                    ));
                }
            }
            Inst::AddrAdd { dst, base, .. } => {
                expect(problems, base, Type::Addr, "base");
                expect(problems, dst, Type::Addr, "result");
            }
            Inst::IndexAddr {
                dst,
                base,
                index,
                stride,
                len,
            } => {
                expect(problems, base, Type::Addr, "base");
                expect(problems, dst, Type::Addr, "result");
                if !matches!(self.reg_ty(index), Some(Type::I32 | Type::U32)) {
                    problems.push(format!("index {index} must be i32 or u32"));
                }
                if len == 0 || (stride as u64) * (len as u64) > u32::MAX as u64 {
                    problems.push(format!("invalid array shape: stride {stride}, len {len}"));
                }
            }
            Inst::Load { ty, dst, addr, .. } => {
                if ty.mem_size().is_none() {
                    problems.push("cannot load an addr".into());
                }
                expect(problems, addr, Type::Addr, "address");
                expect(problems, dst, ty, "result");
            }
            Inst::Store { ty, addr, src, .. } => {
                if ty.mem_size().is_none() {
                    problems.push("cannot store an addr".into());
                }
                expect(problems, addr, Type::Addr, "address");
                expect(problems, src, ty, "value");
            }
            Inst::MemCopy {
                dst_addr, src_addr, ..
            } => {
                expect(problems, dst_addr, Type::Addr, "address");
                expect(problems, src_addr, Type::Addr, "address");
            }
            Inst::MemZero { addr, .. } => expect(problems, addr, Type::Addr, "address"),
            Inst::MemEq { dst, a, b, .. } => {
                expect(problems, a, Type::Addr, "address");
                expect(problems, b, Type::Addr, "address");
                expect(problems, dst, Type::Bool, "result");
            }
            Inst::CreateResource { desc, view_out } => {
                expect(problems, desc, Type::Addr, "address");
                expect(problems, view_out, Type::Addr, "address");
            }
            Inst::DescribeResource { view, desc_out } => {
                expect(problems, view, Type::Addr, "address");
                expect(problems, desc_out, Type::Addr, "address");
            }
            Inst::CallNode { dst, args, .. } => {
                expect(problems, args, Type::Addr, "address");
                expect(problems, dst, Type::U32, "result");
            }
            Inst::Marker { .. } | Inst::Jump { .. } | Inst::LoopJump { .. } => {}
            Inst::Call {
                callee,
                args,
                results,
            } => {
                let signature = &self.module.functions[callee.index()].signature;
                let (args, results) = (f.list(args), f.list(results));
                if args.len() != signature.params.len() || results.len() != signature.returns.len()
                {
                    problems.push(format!(
                        "call to {callee} passes {} arguments and {} results, expected {} and {}",
                        args.len(),
                        results.len(),
                        signature.params.len(),
                        signature.returns.len()
                    ));
                } else {
                    for (&reg, &ty) in args.iter().zip(&signature.params) {
                        expect(problems, reg, ty, "argument");
                    }
                    for (&reg, &ty) in results.iter().zip(&signature.returns) {
                        expect(problems, reg, ty, "result");
                    }
                }
            }
            Inst::Branch { cond, .. } => expect(problems, cond, Type::Bool, "condition"),
            Inst::Return { values } => {
                let values = f.list(values);
                if values.len() != f.signature.returns.len() {
                    problems.push(format!(
                        "returns {} values, expected {}",
                        values.len(),
                        f.signature.returns.len()
                    ));
                } else {
                    for (&reg, &ty) in values.iter().zip(&f.signature.returns) {
                        expect(problems, reg, ty, "return value");
                    }
                }
            }
            Inst::Abort { code } => expect(problems, code, Type::I32, "abort code"),
        }
    }

    /// Forward must-be-defined dataflow over the CFG with one bit per register.
    fn check_definitions(&mut self) {
        let f = self.function;
        let n_words = f.reg_types.len().div_ceil(64);
        let n_blocks = f.blocks.len();
        let full = vec![u64::MAX; n_words];
        // Entry state of each block: None = not reached yet.
        let mut entry_state: Vec<Option<Vec<u64>>> = vec![None; n_blocks];
        let mut params = vec![0u64; n_words];
        for reg in f.params() {
            params[reg.index() / 64] |= 1 << (reg.index() % 64);
        }
        entry_state[0] = Some(params);
        let mut worklist = vec![Block::from_u32(0)];
        let mut in_list = vec![false; n_blocks];
        in_list[0] = true;
        while let Some(block) = worklist.pop() {
            in_list[block.index()] = false;
            let mut state = entry_state[block.index()]
                .clone()
                .unwrap_or_else(|| full.clone());
            for inst in f.block_insts(block) {
                apply_defs(f, inst, &mut state);
            }
            let mut targets = Vec::new();
            if let Some(last) = f.block_insts(block).last() {
                last.for_each_operand(|operand| {
                    if let Operand::Target(target) = operand {
                        targets.push(target);
                    }
                });
            }
            for target in targets {
                let slot = &mut entry_state[target.index()];
                let changed = match slot {
                    None => {
                        *slot = Some(state.clone());
                        true
                    }
                    Some(existing) => {
                        let mut changed = false;
                        for (word, new) in existing.iter_mut().zip(&state) {
                            let meet = *word & new;
                            changed |= meet != *word;
                            *word = meet;
                        }
                        changed
                    }
                };
                if changed && !in_list[target.index()] {
                    in_list[target.index()] = true;
                    worklist.push(target);
                }
            }
        }
        for (block_index, state) in entry_state.iter().enumerate() {
            let Some(mut state) = state.clone() else {
                continue;
            };
            let block = Block::from_u32(block_index as u32);
            for (index, inst) in f.block_insts(block).iter().enumerate() {
                let mut undefined = Vec::new();
                let mut check = |reg: Reg| {
                    if state[reg.index() / 64] & (1 << (reg.index() % 64)) == 0 {
                        undefined.push(reg);
                    }
                };
                inst.for_each_operand(|operand| match operand {
                    Operand::Use(reg) => check(reg),
                    Operand::UseList(list) => f.list(list).iter().for_each(|&reg| check(reg)),
                    _ => {}
                });
                for reg in undefined {
                    self.error(
                        Some(block),
                        Some(index),
                        format!("register {reg} is used before it is defined"),
                    );
                }
                apply_defs(f, inst, &mut state);
            }
        }
    }
}

fn apply_defs(f: &Function, inst: &Inst, state: &mut [u64]) {
    let mut set = |reg: Reg| state[reg.index() / 64] |= 1 << (reg.index() % 64);
    inst.for_each_operand(|operand| match operand {
        Operand::Def(reg) => set(reg),
        Operand::DefList(list) => f.list(list).iter().for_each(|&reg| set(reg)),
        _ => {}
    });
}
