//! The weights of the step budget ([`crate::Limits::step_budget`]): how many steps each
//! `jump.loop` and `call` charges, so that the budget bounds the work a run does, not just the
//! number of loop iterations.
//!
//! Only two instructions charge, and both engines charge the same numbers at the same
//! instructions (the interpreter reads them from [`VerifiedModule::step_charges`], the JIT
//! compiles them in as constants), so a runaway script stops at the same instruction with the
//! same error in both.
//!
//! - `jump.loop` from block `B` to block `T` charges the cost of every instruction laid out in
//!   blocks `T..=B`: the loop's body, taken or not.
//! - `call fnK` charges [`CALL_COST`] plus the cost of every instruction of `fnK`'s body.
//!
//! Why that bounds the work: the verifier lets `jump` and `br` go only forward in the layout, so
//! between two charges a run moves forward through one function. Each instruction a run executes
//! belongs to the straight-line stretch of one call (at most its body, charged by the call) or of
//! one loop iteration (at most the loop's blocks, charged by the back-edge), or to the stretch
//! after a loop's last back-edge, which lies in the enclosing iteration or call. So the
//! instructions executed stay below a small multiple of the steps charged, plus the entry
//! function's own body.
//!
//! The cost of one instruction is 1, except where one instruction does more work:
//! `mem_copy`/`mem_zero`/`mem_eq` add one step per [`BYTES_PER_STEP`] bytes, and host calls
//! (`call_node`, `create_resource`, `describe_resource`, scheduler markers) cost
//! [`HOST_CALL_COST`] (plus the argument bytes of `call_node`).
//!
//! ```
//! use rpsl_vm::{step_cost, BinaryOp, FunctionBuilder, FunctionBuilderContext, Module};
//! use rpsl_vm::{Signature, Type};
//!
//! // block0: v0 = const; jump block1 / block1: v1 = add v0, v0; jump.loop block1
//! let mut ctx = FunctionBuilderContext::new();
//! let mut b = FunctionBuilder::new(&mut ctx, "spin", Signature::new([], []));
//! let (entry, body) = (b.create_block(), b.create_block());
//! b.switch_to_block(entry);
//! let x = b.iconst_i32(1);
//! b.jump(body);
//! b.switch_to_block(body);
//! b.binary(BinaryOp::AddI32, x, x);
//! b.loop_jump(body);
//! let mut module = Module::new();
//! module.add_function(b.finish());
//! let module = module.verify().unwrap();
//! // The back-edge (instruction 3) charges the two instructions of block1.
//! assert_eq!(module.step_charges(rpsl_vm::FuncId::from_u32(0)), &[0, 0, 0, 2]);
//! assert_eq!(step_cost::CALL_COST, 1);
//! ```
//!
//! [`VerifiedModule::step_charges`]: crate::VerifiedModule::step_charges

use crate::function::{Function, Module};
use crate::inst::Inst;

/// What a `call` charges on top of its callee's body.
pub const CALL_COST: u64 = 1;
/// What a host call (`call_node`, `create_resource`, `describe_resource`, a marker) costs: it
/// records into the render graph, which takes about as long as this many plain instructions.
pub const HOST_CALL_COST: u64 = 16;
/// Bytes that `mem_copy`, `mem_zero`, `mem_eq` and the argument block of `call_node` move per
/// extra step.
pub const BYTES_PER_STEP: u64 = 64;

/// The steps one execution of `inst` costs (the charges of `jump.loop` and `call` come from
/// these, see the module docs).
pub fn inst_cost(inst: &Inst) -> u64 {
    match *inst {
        Inst::MemCopy { size, .. } | Inst::MemZero { size, .. } | Inst::MemEq { size, .. } => {
            1 + size as u64 / BYTES_PER_STEP
        }
        Inst::CallNode { size, .. } => HOST_CALL_COST + size as u64 / BYTES_PER_STEP,
        Inst::CreateResource { .. } | Inst::DescribeResource { .. } | Inst::Marker { .. } => {
            HOST_CALL_COST
        }
        _ => 1,
    }
}

/// The cost of every instruction of a function's body.
pub fn body_cost(function: &Function) -> u64 {
    function
        .insts
        .iter()
        .fold(0u64, |sum, inst| sum.saturating_add(inst_cost(inst)))
}

/// The charge of each instruction of each function of a verified module: per function, one
/// entry per instruction, nonzero exactly at `jump.loop` and `call`.
pub(crate) fn module_charges(module: &Module) -> Vec<Vec<u64>> {
    let body_costs: Vec<u64> = module.functions.iter().map(body_cost).collect();
    module
        .functions
        .iter()
        .map(|function| function_charges(function, &body_costs))
        .collect()
}

fn function_charges(function: &Function, body_costs: &[u64]) -> Vec<u64> {
    // `before[i]`: the cost of instructions `0..i`.
    let mut before = Vec::with_capacity(function.insts.len() + 1);
    before.push(0u64);
    for inst in &function.insts {
        let last = *before.last().unwrap_or(&0);
        before.push(last.saturating_add(inst_cost(inst)));
    }
    function
        .insts
        .iter()
        .enumerate()
        .map(|(pc, inst)| match *inst {
            Inst::LoopJump { target } => {
                let start = function.blocks[target.index()].start as usize;
                before[pc + 1] - before[start]
            }
            Inst::Call { callee, .. } => CALL_COST.saturating_add(body_costs[callee.index()]),
            _ => 0,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entities::{Block, FuncId, NodeDeclId, Reg};
    use crate::function::{BlockData, Signature};
    use crate::ops::MarkerKind;
    use crate::types::Type;

    #[test]
    fn host_calls_and_large_memory_ops_cost_more_than_one_step() {
        let r = Reg::from_u32(0);
        assert_eq!(
            inst_cost(&Inst::Jump {
                target: Block::from_u32(0)
            }),
            1
        );
        assert_eq!(inst_cost(&Inst::MemZero { addr: r, size: 63 }), 1);
        assert_eq!(inst_cost(&Inst::MemZero { addr: r, size: 640 }), 11);
        let copy = Inst::MemCopy {
            dst_addr: r,
            src_addr: r,
            size: 1 << 20,
        };
        assert_eq!(inst_cost(&copy), 1 + (1 << 14));
        let marker = Inst::Marker {
            kind: MarkerKind::SchBarrier,
            arg: 0,
        };
        assert_eq!(inst_cost(&marker), HOST_CALL_COST);
        let node = Inst::CallNode {
            dst: r,
            decl: NodeDeclId::from_u32(0),
            args: r,
            size: 128,
            flags: 0,
        };
        assert_eq!(inst_cost(&node), HOST_CALL_COST + 2);
    }

    #[test]
    fn back_edges_charge_their_loop_and_calls_their_callee() {
        let r = Reg::from_u32(0);
        // fn0: block0 [mem_zero 640, jump] block1 [marker, call fn1, jump.loop block1]
        let looping = Function {
            name: "looping".into(),
            signature: Signature::new([Type::Addr], []),
            reg_types: vec![Type::Addr],
            insts: vec![
                Inst::MemZero { addr: r, size: 640 },
                Inst::Jump {
                    target: Block::from_u32(1),
                },
                Inst::Marker {
                    kind: MarkerKind::SchBarrier,
                    arg: 0,
                },
                Inst::Call {
                    callee: FuncId::from_u32(1),
                    args: crate::entities::RegList::EMPTY,
                    results: crate::entities::RegList::EMPTY,
                },
                Inst::LoopJump {
                    target: Block::from_u32(1),
                },
            ],
            locs: vec![crate::entities::LocId::from_u32(0); 5],
            blocks: vec![
                BlockData { start: 0, len: 2 },
                BlockData { start: 2, len: 3 },
            ],
            ..Function::default()
        };
        // fn1: mem_zero 0 (1 step), ret (1 step).
        let leaf = Function {
            name: "leaf".into(),
            signature: Signature::new([], []),
            insts: vec![
                Inst::MemZero { addr: r, size: 0 },
                Inst::Return {
                    values: crate::entities::RegList::EMPTY,
                },
            ],
            locs: vec![crate::entities::LocId::from_u32(0); 2],
            blocks: vec![BlockData { start: 0, len: 2 }],
            ..Function::default()
        };
        let mut module = Module::new();
        module.add_function(looping);
        module.add_function(leaf);
        let charges = module_charges(&module);
        // The call: 1 + the leaf's 2 steps; the back-edge: marker + call + jump.loop.
        assert_eq!(charges[0], vec![0, 0, 0, 3, HOST_CALL_COST + 2]);
        assert_eq!(charges[1], vec![0, 0]);
        assert_eq!(
            body_cost(&module.functions[0]),
            11 + 1 + HOST_CALL_COST + 1 + 1
        );
    }
}
