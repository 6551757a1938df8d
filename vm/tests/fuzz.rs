//! Property tests: random bytecode either fails verification or runs to a result or a located
//! fault, never a panic; verified random programs also survive an encode/decode round trip.

mod common;

use proptest::prelude::*;
use rpsl_vm::ops::{BinaryOp, MarkerKind, TernaryOp, UnaryOp, VectorOp};
use rpsl_vm::{
    Block, BlockData, ConstBits, FuncId, Function, Inst, Interpreter, Limits, LocId, Module,
    NodeDeclId, RecordingHost, Reg, RegList, Signature, Type, Value, VectorShape,
};

const TYPES: [Type; 6] = [
    Type::I32,
    Type::I32,
    Type::Bool,
    Type::F32,
    Type::U32,
    Type::Addr,
];

/// Picks from a slice with a random number.
fn pick<T: Copy>(items: &[T], n: u32) -> T {
    items[n as usize % items.len()]
}

/// Makes one instruction from random numbers (registers and targets slightly out of range at
/// times, so that the verifier's existence checks are exercised too).
fn make_inst(r: &[u32; 8], n_regs: u32, n_blocks: u32, n_pool: u32) -> Inst {
    let reg = |i: usize| Reg::from_u32(r[i] % (n_regs + 1));
    let block = |i: usize| Block::from_u32(r[i] % (n_blocks + 1));
    let list = |i: usize| RegList {
        start: r[i] % (n_pool + 1),
        len: r[i + 1] % 4,
    };
    let small = |i: usize| r[i] % 72;
    match r[0] % 28 {
        0 => Inst::Const {
            ty: pick(&TYPES, r[1]),
            dst: reg(2),
            bits: ConstBits::from_u64((r[3] % 3) as u64),
        },
        1 => Inst::Move {
            dst: reg(1),
            src: reg(2),
        },
        2 => Inst::Unary {
            op: pick(UnaryOp::ALL, r[1]),
            dst: reg(2),
            src: reg(3),
        },
        3 | 4 => Inst::Binary {
            op: pick(BinaryOp::ALL, r[1]),
            dst: reg(2),
            a: reg(3),
            b: reg(4),
        },
        5 => Inst::Ternary {
            op: pick(TernaryOp::ALL, r[1]),
            dst: reg(2),
            a: reg(3),
            b: reg(4),
            c: reg(5),
        },
        6 => Inst::Convert {
            to: pick(&TYPES, r[1]),
            from: pick(&TYPES, r[2]),
            dst: reg(3),
            src: reg(4),
        },
        7 => Inst::Bitcast {
            to: pick(&TYPES, r[1]),
            from: pick(&TYPES, r[2]),
            dst: reg(3),
            src: reg(4),
        },
        8 => Inst::Select {
            dst: reg(1),
            cond: reg(2),
            a: reg(3),
            b: reg(4),
        },
        9 => Inst::Vector {
            shape: VectorShape {
                op: pick(VectorOp::ALL, r[1]),
                ty: Type::F32,
                width: (r[2] % 4) as u8 + 1,
            },
            dsts: list(3),
            srcs: list(5),
        },
        10 => Inst::FrameAddr {
            dst: reg(1),
            offset: small(2),
        },
        11 => Inst::AddrAdd {
            dst: reg(1),
            base: reg(2),
            offset: small(3),
        },
        12 => Inst::IndexAddr {
            dst: reg(1),
            base: reg(2),
            index: reg(3),
            stride: r[4] % 16,
            len: r[5] % 6,
        },
        13 => Inst::Load {
            ty: pick(&TYPES, r[1]),
            dst: reg(2),
            addr: reg(3),
            offset: small(4),
        },
        14 => Inst::Store {
            ty: pick(&TYPES, r[1]),
            addr: reg(2),
            offset: small(3),
            src: reg(4),
        },
        15 => Inst::MemCopy {
            dst_addr: reg(1),
            src_addr: reg(2),
            size: small(3),
        },
        16 => Inst::MemZero {
            addr: reg(1),
            size: small(2),
        },
        17 => Inst::MemEq {
            dst: reg(1),
            a: reg(2),
            b: reg(3),
            size: small(4),
        },
        18 => Inst::CreateResource {
            desc: reg(1),
            view_out: reg(2),
        },
        19 => Inst::DescribeResource {
            view: reg(1),
            desc_out: reg(2),
        },
        20 => Inst::CallNode {
            dst: reg(1),
            decl: NodeDeclId::from_u32(r[2] % 4),
            args: reg(3),
            size: small(4),
            flags: r[5] % 2,
        },
        21 => Inst::Marker {
            kind: pick(MarkerKind::ALL, r[1]),
            arg: r[2] % 3,
        },
        22 => Inst::Call {
            callee: FuncId::from_u32(r[1] % 3),
            args: list(2),
            results: list(4),
        },
        23 => Inst::Jump { target: block(1) },
        24 => Inst::LoopJump { target: block(1) },
        25 => Inst::Branch {
            cond: reg(1),
            then_block: block(2),
            else_block: block(3),
        },
        26 => Inst::Return { values: list(1) },
        _ => Inst::Abort { code: reg(1) },
    }
}

/// The random numbers one function is made from.
#[derive(Clone, Debug)]
struct FunctionSpec {
    params: Vec<u32>,
    returns: Vec<u32>,
    extra: Vec<u32>,
    frame_size: u32,
    blocks: Vec<Vec<[u32; 8]>>,
}

fn arb_function_spec() -> impl Strategy<Value = FunctionSpec> {
    (
        prop::collection::vec(0u32..6, 0..3),
        prop::collection::vec(0u32..6, 0..2),
        prop::collection::vec(0u32..6, 1..12),
        0u32..96,
        prop::collection::vec(
            prop::collection::vec(prop::array::uniform8(0u32..1000), 1..7),
            1..5,
        ),
    )
        .prop_map(
            |(params, returns, extra, frame_size, blocks)| FunctionSpec {
                params,
                returns,
                extra,
                frame_size,
                blocks,
            },
        )
}

/// Builds a module from specs: mostly well-typed instructions (registers picked by the type the
/// op needs, every register initialised in the entry block, edges in the allowed directions) with
/// one in forty instructions fully random, so that both the interpreter and the verifier's
/// rejections get exercised.
fn build_module(specs: &[FunctionSpec]) -> Module {
    let signatures: Vec<Signature> = specs
        .iter()
        .map(|s| Signature {
            params: s.params.iter().map(|&t| pick(&TYPES, t)).collect(),
            returns: s.returns.iter().map(|&t| pick(&TYPES, t)).collect(),
        })
        .collect();
    let mut module = Module::new();
    for (spec, signature) in specs.iter().zip(&signatures) {
        let mut reg_types = signature.params.clone();
        reg_types.extend(spec.extra.iter().map(|&t| pick(&TYPES, t)));
        reg_types.extend_from_slice(&Type::ALL);
        let n_regs = reg_types.len() as u32;
        let n_blocks = spec.blocks.len() as u32;
        let mut pool: Vec<Reg> = Vec::new();
        let reg_of = |ty: Type, n: u32| -> Reg {
            let candidates: Vec<u32> = (0..n_regs)
                .filter(|&i| reg_types[i as usize] == ty)
                .collect();
            if candidates.is_empty() {
                Reg::from_u32(n % (n_regs + 1))
            } else {
                Reg::from_u32(candidates[n as usize % candidates.len()])
            }
        };
        let typed_list = |pool: &mut Vec<Reg>, types: &[Type], n: u32| -> RegList {
            let start = pool.len() as u32;
            for (i, &ty) in types.iter().enumerate() {
                pool.push(reg_of(ty, n.wrapping_add(i as u32)));
            }
            RegList {
                start,
                len: types.len() as u32,
            }
        };
        let mut function = Function {
            name: "random".into(),
            signature: signature.clone(),
            frame_size: spec.frame_size,
            ..Function::default()
        };
        for (block_index, block) in spec.blocks.iter().enumerate() {
            let start = function.insts.len();
            if block_index == 0 {
                for index in signature.params.len() as u32..n_regs {
                    let dst = Reg::from_u32(index);
                    let inst = match reg_types[index as usize] {
                        Type::Addr => Inst::FrameAddr { dst, offset: 0 },
                        ty => Inst::Const {
                            ty,
                            dst,
                            bits: ConstBits::from_u64(index as u64 % 2),
                        },
                    };
                    function.insts.push(inst);
                }
            }
            for (i, r) in block.iter().enumerate() {
                let last = i + 1 == block.len();
                let current = block_index as u32;
                let inst = if r[7] % 40 == 0 {
                    make_inst(r, n_regs, n_blocks, pool.len() as u32)
                } else if last {
                    let forward =
                        |n: u32| Block::from_u32(current + 1 + n % (n_blocks - current - 1).max(1));
                    match r[0] % 5 {
                        0 if current + 1 < n_blocks => Inst::Jump {
                            target: forward(r[1]),
                        },
                        1 if current + 1 < n_blocks => Inst::Branch {
                            cond: reg_of(Type::Bool, r[1]),
                            then_block: forward(r[2]),
                            else_block: forward(r[3]),
                        },
                        2 => Inst::LoopJump {
                            target: Block::from_u32(r[1] % (current + 1)),
                        },
                        3 => Inst::Abort {
                            code: reg_of(Type::I32, r[1]),
                        },
                        _ => Inst::Return {
                            values: typed_list(&mut pool, &signature.returns, r[1]),
                        },
                    }
                } else {
                    let ty = pick(&TYPES, r[1]);
                    match r[0] % 16 {
                        0 => {
                            let op = pick(UnaryOp::ALL, r[1]);
                            Inst::Unary {
                                op,
                                dst: reg_of(op.result_type(), r[2]),
                                src: reg_of(op.operand_type(), r[3]),
                            }
                        }
                        1 | 2 => {
                            let op = pick(BinaryOp::ALL, r[1]);
                            let (a, b) = (
                                reg_of(op.operand_type(), r[3]),
                                reg_of(op.operand_type(), r[4]),
                            );
                            Inst::Binary {
                                op,
                                dst: reg_of(op.result_type(), r[2]),
                                a,
                                b,
                            }
                        }
                        3 => {
                            let op = pick(TernaryOp::ALL, r[1]);
                            let t = op.operand_type();
                            Inst::Ternary {
                                op,
                                dst: reg_of(t, r[2]),
                                a: reg_of(t, r[3]),
                                b: reg_of(t, r[4]),
                                c: reg_of(t, r[5]),
                            }
                        }
                        4 => {
                            let ty = if ty == Type::Addr { Type::U64 } else { ty };
                            let from = pick(&Type::ALL[..7], r[2]);
                            Inst::Convert {
                                to: ty,
                                from,
                                dst: reg_of(ty, r[3]),
                                src: reg_of(from, r[4]),
                            }
                        }
                        5 => Inst::Select {
                            dst: reg_of(ty, r[2]),
                            cond: reg_of(Type::Bool, r[3]),
                            a: reg_of(ty, r[4]),
                            b: reg_of(ty, r[5]),
                        },
                        6 => {
                            let op = pick(VectorOp::ALL, r[1]);
                            let width = if op == VectorOp::Cross {
                                3
                            } else {
                                (r[2] % 3) as u8 + 2
                            };
                            let (n_srcs, n_dsts) = op.arity(width).unwrap_or((0, 0));
                            let dsts = typed_list(&mut pool, &vec![Type::F32; n_dsts], r[3]);
                            let srcs = typed_list(&mut pool, &vec![Type::F32; n_srcs], r[4]);
                            Inst::Vector {
                                shape: VectorShape {
                                    op,
                                    ty: Type::F32,
                                    width,
                                },
                                dsts,
                                srcs,
                            }
                        }
                        7 => Inst::IndexAddr {
                            dst: reg_of(Type::Addr, r[1]),
                            base: reg_of(Type::Addr, r[2]),
                            index: reg_of(if r[3] % 2 == 0 { Type::I32 } else { Type::U32 }, r[4]),
                            stride: r[5] % 16,
                            len: r[6] % 6 + 1,
                        },
                        8 => Inst::AddrAdd {
                            dst: reg_of(Type::Addr, r[1]),
                            base: reg_of(Type::Addr, r[2]),
                            offset: r[3] % 64,
                        },
                        9 => {
                            let ty = if ty == Type::Addr { Type::F32 } else { ty };
                            Inst::Load {
                                ty,
                                dst: reg_of(ty, r[2]),
                                addr: reg_of(Type::Addr, r[3]),
                                offset: r[4] % 64,
                            }
                        }
                        10 => {
                            let ty = if ty == Type::Addr { Type::I32 } else { ty };
                            Inst::Store {
                                ty,
                                addr: reg_of(Type::Addr, r[3]),
                                offset: r[4] % 64,
                                src: reg_of(ty, r[2]),
                            }
                        }
                        11 => match r[2] % 3 {
                            0 => Inst::MemCopy {
                                dst_addr: reg_of(Type::Addr, r[3]),
                                src_addr: reg_of(Type::Addr, r[4]),
                                size: r[5] % 64,
                            },
                            1 => Inst::MemZero {
                                addr: reg_of(Type::Addr, r[3]),
                                size: r[5] % 64,
                            },
                            _ => Inst::MemEq {
                                dst: reg_of(Type::Bool, r[1]),
                                a: reg_of(Type::Addr, r[3]),
                                b: reg_of(Type::Addr, r[4]),
                                size: r[5] % 64,
                            },
                        },
                        12 => match r[2] % 3 {
                            0 => Inst::CreateResource {
                                desc: reg_of(Type::Addr, r[3]),
                                view_out: reg_of(Type::Addr, r[4]),
                            },
                            1 => Inst::DescribeResource {
                                view: reg_of(Type::Addr, r[3]),
                                desc_out: reg_of(Type::Addr, r[4]),
                            },
                            _ => Inst::CallNode {
                                dst: reg_of(Type::U32, r[1]),
                                decl: NodeDeclId::from_u32(r[3] % 4),
                                args: reg_of(Type::Addr, r[4]),
                                size: r[5] % 48,
                                flags: 0,
                            },
                        },
                        13 => Inst::Marker {
                            kind: pick(MarkerKind::ALL, r[1]),
                            arg: r[2] % 3,
                        },
                        14 => {
                            let callee = r[2] as usize % specs.len();
                            let args = typed_list(&mut pool, &signatures[callee].params, r[3]);
                            let results = typed_list(&mut pool, &signatures[callee].returns, r[4]);
                            Inst::Call {
                                callee: FuncId::from_u32(callee as u32),
                                args,
                                results,
                            }
                        }
                        _ => Inst::Move {
                            dst: reg_of(ty, r[2]),
                            src: reg_of(ty, r[3]),
                        },
                    }
                };
                function.insts.push(inst);
            }
            function.blocks.push(BlockData {
                start: start as u32,
                len: (function.insts.len() - start) as u32,
            });
        }
        function.locs = (0..function.insts.len() as u32)
            .map(|i| LocId::from_u32(i % 5))
            .collect();
        function.reg_types = reg_types;
        function.reg_lists = pool;
        module.add_function(function);
    }
    module
}

/// A default argument of each type; addresses point into a 256-byte I/O block.
fn default_arg(ty: Type) -> Value {
    match ty {
        Type::Addr => Value::Addr(16),
        _ => Value::from_bits(ty, 1),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    #[test]
    fn random_bytecode_verifies_or_runs_without_panicking(specs in prop::collection::vec(arb_function_spec(), 1..3)) {
        let module = build_module(&specs);
        let encoded = rpsl_vm::encode_module(&module);
        let decoded = rpsl_vm::decode_module(&encoded);
        prop_assert_eq!(decoded.as_ref(), Ok(&module));
        let text = module.to_string();
        prop_assert!(text.starts_with("fn0"));
        if let Ok(verified) = module.verify() {
            let limits = Limits { step_budget: 10_000, max_call_depth: 8, max_memory: 1 << 20 };
            let mut interp = Interpreter::new(limits);
            let mut host = RecordingHost::new();
            let args: Vec<Value> = verified.functions[0].signature.params.iter().map(|&t| default_arg(t)).collect();
            let mut io = vec![0u8; 256];
            let first = interp.run(&verified, FuncId::from_u32(0), &args, &mut io, &mut host);
            // The same interpreter runs again after any outcome, with the same result.
            let mut io_again = vec![0u8; 256];
            let mut host_again = RecordingHost::new();
            let second = interp.run(&verified, FuncId::from_u32(0), &args, &mut io_again, &mut host_again);
            prop_assert_eq!(format!("{first:?}"), format!("{second:?}"));
            prop_assert_eq!(host.events, host_again.events);
        }
    }
}

#[test]
fn random_generator_reaches_the_interpreter() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = prop::collection::vec(arb_function_spec(), 1..3);
    let mut n_verified = 0;
    for _ in 0..2000 {
        let specs = strategy.new_tree(&mut runner).expect("generates").current();
        match build_module(&specs).verify() {
            Ok(_) => n_verified += 1,
            Err(errors) if std::env::var_os("RPSL_FUZZ_DEBUG").is_some() => {
                eprintln!("{}", errors.0[0].message)
            }
            Err(_) => {}
        }
    }
    eprintln!("verified {n_verified} of 2000");
    assert!(
        n_verified >= 1000,
        "only {n_verified} of 2000 random functions verified"
    );
}
