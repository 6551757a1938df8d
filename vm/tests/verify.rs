//! Verifier rejection cases: each builds a function that breaks one invariant and checks the exact
//! findings.

mod common;

use common::build;
use rpsl_vm::{
    BinaryOp, Block, ConstBits, FuncId, Function, Inst, Module, Reg, RegList, Signature, Type,
    VectorOp, VectorShape,
};

/// Verifies a module of the given functions and returns the rendered findings (empty when valid).
fn findings(functions: Vec<Function>) -> Vec<String> {
    let mut module = Module::new();
    for f in functions {
        module.add_function(f);
    }
    match module.verify() {
        Ok(_) => Vec::new(),
        Err(errors) => errors.0.iter().map(|e| e.to_string()).collect(),
    }
}

fn check(function: Function, expected: &[&str]) {
    assert_eq!(findings(vec![function]), expected);
}

fn v(index: u32) -> Reg {
    Reg::from_u32(index)
}

#[test]
fn valid_function_passes() {
    let f = build("ok", Signature::new([Type::I32], [Type::I32]), |b| {
        let one = b.iconst_i32(1);
        let sum = b.binary(BinaryOp::AddI32, b.param(0), one);
        b.ret(&[sum]);
    });
    check(f, &[]);
}

#[test]
fn operand_types_must_match() {
    let f = build(
        "bad",
        Signature::new([Type::I32, Type::F32], [Type::I32]),
        |b| {
            let sum = b.new_reg(Type::I32);
            b.ins(Inst::Binary {
                op: BinaryOp::AddI32,
                dst: sum,
                a: b.param(0),
                b: b.param(1),
            });
            b.ret(&[sum]);
        },
    );
    check(f, &["fn0 block0 inst 0: operand v1 is f32, expected i32"]);
}

#[test]
fn result_type_must_match() {
    let f = build("bad", Signature::new([Type::I32], []), |b| {
        let flag = b.new_reg(Type::I32);
        b.ins(Inst::Binary {
            op: BinaryOp::LtI32,
            dst: flag,
            a: b.param(0),
            b: b.param(0),
        });
        b.ret(&[]);
    });
    check(f, &["fn0 block0 inst 0: result v1 is i32, expected bool"]);
}

#[test]
fn registers_must_be_defined_on_every_path() {
    // v2 is set only on the then-path, then read after the join.
    let f = build("maybe", Signature::new([Type::Bool], [Type::I32]), |b| {
        let value = b.new_reg(Type::I32);
        let then_block = b.create_block();
        let join = b.create_block();
        b.branch(b.param(0), then_block, join);
        b.switch_to_block(then_block);
        let one = b.iconst_i32(1);
        b.assign(value, one);
        b.jump(join);
        b.switch_to_block(join);
        b.ret(&[value]);
    });
    check(
        f,
        &["fn0 block2 inst 0: register v1 is used before it is defined"],
    );
}

#[test]
fn definitions_on_both_paths_are_enough() {
    let f = build("both", Signature::new([Type::Bool], [Type::I32]), |b| {
        let value = b.new_reg(Type::I32);
        let (then_block, else_block, join) = (b.create_block(), b.create_block(), b.create_block());
        b.branch(b.param(0), then_block, else_block);
        for (block, constant) in [(then_block, 1), (else_block, 2)] {
            b.switch_to_block(block);
            let c = b.iconst_i32(constant);
            b.assign(value, c);
            b.jump(join);
        }
        b.switch_to_block(join);
        b.ret(&[value]);
    });
    check(f, &[]);
}

#[test]
fn loop_carried_register_must_be_defined_before_the_loop() {
    let f = build("loop", Signature::new([], [Type::I32]), |b| {
        let counter = b.new_reg(Type::I32);
        let (header, latch, exit) = (b.create_block(), b.create_block(), b.create_block());
        b.jump(header);
        b.switch_to_block(header);
        let one = b.iconst_i32(1);
        b.binary_into(BinaryOp::AddI32, counter, counter, one);
        let done = b.binary(BinaryOp::GtI32, counter, one);
        b.branch(done, exit, latch);
        b.switch_to_block(latch);
        b.loop_jump(header);
        b.switch_to_block(exit);
        b.ret(&[counter]);
    });
    check(
        f,
        &["fn0 block1 inst 1: register v0 is used before it is defined"],
    );
}

#[test]
fn every_cycle_must_pass_a_loop_jump() {
    let f = build("spin", Signature::new([Type::Bool], []), |b| {
        let (header, exit) = (b.create_block(), b.create_block());
        b.jump(header);
        b.switch_to_block(header);
        b.branch(b.param(0), header, exit);
        b.switch_to_block(exit);
        b.jump(Block::from_u32(0));
    });
    check(
        f,
        &[
            "fn0 block1 inst 0: br targets must lie after the current block",
            "fn0 block2 inst 0: jump to block0 goes backward; back-edges must use jump.loop",
        ],
    );
    let f = build("forward", Signature::new([], []), |b| {
        let exit = b.create_block();
        b.loop_jump(exit);
        b.switch_to_block(exit);
        b.ret(&[]);
    });
    check(f, &["fn0 block0 inst 0: jump.loop to block1 goes forward"]);
}

#[test]
fn builder_lays_out_blocks_in_switch_order() {
    // Blocks created exit-first still get program order: entry, header, exit.
    let f = build("order", Signature::new([], []), |b| {
        let exit = b.create_block();
        let header = b.create_block();
        b.jump(header);
        b.switch_to_block(header);
        b.jump(exit);
        b.switch_to_block(exit);
        b.ret(&[]);
    });
    assert_eq!(
        f.insts[0],
        Inst::Jump {
            target: Block::from_u32(1)
        }
    );
    assert_eq!(
        f.insts[1],
        Inst::Jump {
            target: Block::from_u32(2)
        }
    );
    check(f, &[]);
}

#[test]
fn blocks_must_end_in_a_terminator() {
    let f = build("open", Signature::new([], []), |b| {
        b.iconst_i32(1);
    });
    check(
        f,
        &["fn0 block0 inst 0: block does not end in a terminator"],
    );
    let mut f = build("early", Signature::new([], []), |b| b.ret(&[]));
    f.insts.push(Inst::Return {
        values: RegList::EMPTY,
    });
    f.locs.push(rpsl_vm::LocId::from_u32(0));
    f.blocks[0].len = 2;
    check(
        f,
        &["fn0 block0 inst 0: terminator before the end of the block"],
    );
}

#[test]
fn empty_blocks_and_functions_are_rejected() {
    let mut f = build("empty", Signature::new([], []), |b| {
        let next = b.create_block();
        b.jump(next);
    });
    assert_eq!(f.blocks.len(), 2);
    check(f.clone(), &["fn0 block1: empty block"]);
    f.blocks.clear();
    f.insts.clear();
    f.locs.clear();
    check(f, &["fn0: function has no blocks"]);
}

#[test]
fn branch_targets_must_exist() {
    let f = build("jump", Signature::new([], []), |b| {
        b.jump(Block::from_u32(7))
    });
    check(
        f,
        &["fn0 block0 inst 0: branch target block7 does not exist"],
    );
}

#[test]
fn registers_and_lists_must_exist() {
    let f = build("regs", Signature::new([], [Type::I32]), |b| {
        b.ins(Inst::Move {
            dst: v(0),
            src: v(9),
        });
        b.ins(Inst::Return {
            values: RegList { start: 40, len: 2 },
        });
    });
    check(
        f,
        &[
            "fn0 block0 inst 0: register v0 does not exist",
            "fn0 block0 inst 0: register v9 does not exist",
            "fn0 block0 inst 1: register list out of the pool",
        ],
    );
}

#[test]
fn frame_offsets_must_be_in_the_frame() {
    let f = build("frame", Signature::new([], []), |b| {
        b.alloc_frame(16, 4);
        b.frame_addr(17);
        b.ret(&[]);
    });
    check(
        f,
        &["fn0 block0 inst 0: frame offset 17 is beyond the frame size 16"],
    );
}

#[test]
fn calls_must_match_the_callee_signature() {
    let caller = build("caller", Signature::new([Type::F32], []), |b| {
        let result = b.new_reg(Type::I32);
        b.call_into(FuncId::from_u32(1), &[b.param(0)], &[result]);
        b.call_into(FuncId::from_u32(1), &[], &[]);
        b.call_into(FuncId::from_u32(5), &[], &[]);
        b.ret(&[]);
    });
    let callee = build("callee", Signature::new([Type::I32], [Type::F32]), |b| {
        let r = b.fconst_f32(1.0);
        b.ret(&[r]);
    });
    assert_eq!(
        findings(vec![caller, callee]),
        [
            "fn0 block0 inst 0: argument v0 is f32, expected i32",
            "fn0 block0 inst 0: result v1 is i32, expected f32",
            "fn0 block0 inst 1: call to fn1 passes 0 arguments and 0 results, expected 1 and 1",
            "fn0 block0 inst 2: callee fn5 does not exist",
        ]
    );
}

#[test]
fn returns_must_match_the_signature() {
    let f = build("ret", Signature::new([Type::I32], [Type::F32]), |b| {
        b.ret(&[b.param(0)])
    });
    check(
        f,
        &["fn0 block0 inst 0: return value v0 is i32, expected f32"],
    );
    let f = build("ret", Signature::new([], [Type::F32]), |b| b.ret(&[]));
    check(f, &["fn0 block0 inst 0: returns 0 values, expected 1"]);
}

#[test]
fn constants_must_be_canonical() {
    let f = build("const", Signature::new([], []), |b| {
        let flag = b.new_reg(Type::Bool);
        b.ins(Inst::Const {
            ty: Type::Bool,
            dst: flag,
            bits: ConstBits::from_u64(2),
        });
        let word = b.new_reg(Type::U32);
        b.ins(Inst::Const {
            ty: Type::U32,
            dst: word,
            bits: ConstBits::from_u64(1 << 32),
        });
        b.ret(&[]);
    });
    check(
        f,
        &[
            "fn0 block0 inst 0: constant bits 0x2 are not a valid bool",
            "fn0 block0 inst 1: constant bits 0x100000000 are not a valid u32",
        ],
    );
}

#[test]
fn memory_operands_must_be_addresses() {
    let f = build("mem", Signature::new([Type::U32], []), |b| {
        let value = b.new_reg(Type::F32);
        b.ins(Inst::Load {
            ty: Type::F32,
            dst: value,
            addr: b.param(0),
            offset: 0,
        });
        b.ret(&[]);
    });
    check(f, &["fn0 block0 inst 0: address v0 is u32, expected addr"]);
}

#[test]
fn casts_and_shapes_are_checked() {
    let f = build("casts", Signature::new([Type::F32, Type::Addr], []), |b| {
        let d = b.new_reg(Type::I64);
        b.ins(Inst::Bitcast {
            to: Type::I64,
            from: Type::F32,
            dst: d,
            src: b.param(0),
        });
        let a = b.new_reg(Type::I32);
        b.ins(Inst::Convert {
            to: Type::I32,
            from: Type::Addr,
            dst: a,
            src: b.param(1),
        });
        let bad = VectorShape {
            op: VectorOp::Cross,
            ty: Type::F32,
            width: 2,
        };
        b.vector(bad, &[]);
        b.ins(Inst::IndexAddr {
            dst: b.param(1),
            base: b.param(1),
            index: b.param(0),
            stride: 4,
            len: 0,
        });
        b.ret(&[]);
    });
    check(
        f,
        &[
            "fn0 block0 inst 0: cannot bitcast f32 to i64",
            "fn0 block0 inst 1: convert cannot involve addr",
            "fn0 block0 inst 2: invalid vector shape cross.f32x2",
            "fn0 block0 inst 3: index v0 must be i32 or u32",
            "fn0 block0 inst 3: invalid array shape: stride 4, len 0",
        ],
    );
}

#[test]
fn parameter_registers_must_have_parameter_types() {
    let mut f = build("params", Signature::new([Type::I32], []), |b| b.ret(&[]));
    f.reg_types[0] = Type::F32;
    check(
        f,
        &["fn0: the first registers must have the parameter types"],
    );
}
